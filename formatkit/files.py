"""How formatkit reads a CSV file and names a repaired copy, for a caller that wants the same.

:func:`csv_rows`: a CSV file's rows as ``(row number, cells)``, decoded and split as formatkit reads a
``.csv`` set (UTF-8 or GBK, ``,`` ``;`` or tab, rows numbered as Excel numbers them).

:func:`sheet_rows`: the sheet validate reads in a workbook or CSV file, each cell as the text formatkit reads
(:class:`SheetRows`; a preview of what the platform sees).

:func:`fixed_suffix`: the extension of the repaired copy ``formatkit fix`` writes of a file (``.xlsx`` for an
``.xls``).

Loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from formatkit._lazy import lazy_getattr

_EXPORTS = {
    "csv_rows": "formatkit._reading.csv_file",
    "fixed_suffix": "formatkit._api.fix",
    "sheet_rows": "formatkit._api.cells",
    "SheetRows": "formatkit._api.cells",
}

__all__ = ["SheetRows", "csv_rows", "fixed_suffix", "sheet_rows"]

__getattr__ = lazy_getattr(globals(), _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from formatkit._api.cells import SheetRows, sheet_rows
    from formatkit._api.fix import fixed_suffix
    from formatkit._reading.csv_file import csv_rows
