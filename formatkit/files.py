"""How formatkit reads and writes files, for a caller (and the command line) that wants the same rules.

- :func:`check_path`: the path as a Path, or :class:`~formatkit.errors.UnreadablePathError` when it is
  missing, a directory or not readable;
- :func:`read_small_file`: a side file (a dimensions map, a judge template) read with a bound, refusing
  FIFOs and devices (:class:`~formatkit.errors.SmallFileError`);
- :func:`output_lock`: hold an output's lock while it is written (another writer gets
  :class:`~formatkit.errors.OutputBusyError`);
- :data:`TERMINATED`: set when SIGTERM arrives, so a writer removes its temporary file and stops;
- :func:`csv_rows`: a CSV file's rows as ``(row number, cells)``, decoded and split as formatkit reads a
  ``.csv`` set (UTF-8 or GBK, ``,`` ``;`` or tab, rows numbered as Excel numbers them);
- :func:`fixed_suffix`: the extension of the repaired copy ``formatkit fix`` writes of a file (``.xlsx`` for
  an ``.xls``);
- :func:`sheet_rows`: the sheet validate reads in a workbook or CSV file, each cell as the text formatkit reads
  (:class:`SheetRows`; a preview of what the platform sees).

Names are loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from formatkit._lazy import lazy_getattr

_EXPORTS = {
    "check_path": "formatkit._api.validate",
    "read_small_file": "formatkit._core.smallfile",
    "output_lock": "formatkit._core.writers",
    "TERMINATED": "formatkit._core.writers",
    "csv_rows": "formatkit._reading.csv_file",
    "fixed_suffix": "formatkit._api.fix",
    "sheet_rows": "formatkit._api.cells",
    "SheetRows": "formatkit._api.cells",
}

__all__ = [
    "TERMINATED",
    "SheetRows",
    "check_path",
    "csv_rows",
    "fixed_suffix",
    "output_lock",
    "read_small_file",
    "sheet_rows",
]

__getattr__ = lazy_getattr(globals(), _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from formatkit._api.cells import SheetRows, sheet_rows
    from formatkit._api.fix import fixed_suffix
    from formatkit._api.validate import check_path
    from formatkit._core.smallfile import read_small_file
    from formatkit._core.writers import TERMINATED, output_lock
    from formatkit._reading.csv_file import csv_rows
