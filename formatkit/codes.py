"""Issue codes, a public contract (scripts filter on them: codes are added, never renamed).

:data:`CODES` maps each code to its severity and one-line summary (also exported as ``formatkit.CODES``, the
name the report's schema gives); :func:`describe` reads a code back from a report, where it is a plain string.
"""

from formatkit._core.codes import CODES, Code, Severity, describe

__all__ = ["CODES", "Code", "Severity", "describe"]
