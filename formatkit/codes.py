"""Issue codes, a public contract (scripts filter on them: codes are added, never renamed).

:data:`CODES` maps each code to its severity and one-line summary (also exported as ``formatkit.CODES``);
:func:`describe` reads a code back from a report, where it is a plain string; :data:`CAUSES` are the codes
that explain others (a report lists them before the errors they cause).
"""

from formatkit._core.codes import CODES, Code, Severity, describe
from formatkit._core.issue_parts import CAUSES

__all__ = ["CAUSES", "CODES", "Code", "Severity", "describe"]
