"""What the command line (and ``formatkit serve``, the other face) needs of formatkit beyond its public face,
in one private module.

The CLI is a client of the public faces (``formatkit``, its public submodules, ``scoring``); a few things it
needs are its own concerns, not a caller's: the upload checked and the conversion run with the report built
only when there is more to say than "clean" (``check_files``, ``run_conversion``, their :class:`Checked`:
the report's pydantic models cost ~65 ms to import), the output refused before any work (``check_output``),
the input path refused with exit 2 (``check_path``), an output's lock, SIGTERM's flag, a side file read with
a bound, and the codes that explain others (listed first). They are kept out of the public API (a name
there is a promise to callers) and gathered here, the one private module of formatkit the CLI may import
(pyproject.toml's import-linter contract names it). Loaded on first use, as the public face is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from formatkit._lazy import lazy_getattr

_EXPORTS = {
    "Checked": "formatkit._api.validate",
    "check_files": "formatkit._api.validate",
    "check_path": "formatkit._api.validate",
    "run_conversion": "formatkit._api.conversion",
    "check_output": "formatkit._api.conversion",
    "CAUSES": "formatkit._core.issue_parts",
    "TERMINATED": "formatkit._core.writers",
    "output_lock": "formatkit._core.writers",
    "read_small_file": "formatkit._core.smallfile",
}

__all__ = [
    "CAUSES",
    "TERMINATED",
    "Checked",
    "check_files",
    "check_output",
    "check_path",
    "output_lock",
    "read_small_file",
    "run_conversion",
]

__getattr__ = lazy_getattr(globals(), _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from formatkit._api.conversion import check_output, run_conversion
    from formatkit._api.validate import Checked, check_files, check_path
    from formatkit._core.issue_parts import CAUSES
    from formatkit._core.smallfile import read_small_file
    from formatkit._core.writers import TERMINATED, output_lock
