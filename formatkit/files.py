"""How formatkit reads a CSV file and names a repaired copy, for a caller that wants the same.

:func:`csv_rows`: a CSV file's rows as ``(row number, cells)``, decoded and split as formatkit reads a
``.csv`` set (UTF-8 or GBK, ``,`` ``;`` or tab, rows numbered as Excel numbers them).

:func:`fixed_suffix`: the extension of the repaired copy ``formatkit fix`` writes of a file (``.xlsx`` for an
``.xls``).

Loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from formatkit._lazy import lazy_getattr

_EXPORTS = {"csv_rows": "formatkit._reading.csv_file", "fixed_suffix": "formatkit._api.fix"}

__all__ = ["csv_rows", "fixed_suffix"]

__getattr__ = lazy_getattr(globals(), _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from formatkit._api.fix import fixed_suffix
    from formatkit._reading.csv_file import csv_rows
