""".xls (Excel 97-2003, BIFF): cell values and merged ranges through xlrd.

An .xls file always stores a formula's result, so there is no formula without a value here; error
values and dates come typed from xlrd and are mapped onto the same plain values as the .xlsx reader's.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from formatkit._core.messages import Msg
from formatkit._reading.cells import CellError, SheetData, Unreadable, pick_sheet

__all__ = ["read_xls"]

# xlrd's cell types (xlrd.biffh): empty, text, number, date, boolean, error, blank.
_EMPTY, _TEXT, _NUMBER, _DATE, _BOOLEAN, _ERROR, _BLANK = range(7)


def read_xls(path: Path, wanted: str | None = None) -> SheetData:
    import xlrd

    try:
        try:
            book = xlrd.open_workbook(str(path), formatting_info=True, on_demand=True, logfile=_Quiet())
        except Exception as exc:
            if "encrypt" in str(exc).lower():
                raise
            # Some writers' formatting records trip xlrd; values (and dates) read without them, merged
            # ranges then go unseen.
            book = xlrd.open_workbook(str(path), on_demand=True, logfile=_Quiet())
    except Exception as exc:
        text = str(exc)
        if "encrypt" in text.lower():
            message = Msg("unreadable_file.xls_encrypted")
        else:
            message = Msg("unreadable_file.xls_damaged_kind", error=text[:120])
        raise Unreadable("unreadable_file", message) from None
    try:
        names = book.sheet_names()
        if not names:
            raise Unreadable("empty_file", Msg("empty_file.no_worksheet"))
        index = pick_sheet(names, wanted, [True] * len(names)) or 0
        sheet = book.sheet_by_index(index)
        rows = [_row(book, sheet, r) for r in range(sheet.nrows)]
        merged = [(rlo, clo, rhi - 1, chi - 1) for rlo, rhi, clo, chi in sheet.merged_cells]
        extra = [names[i] for i in range(1, len(names)) if book.sheet_by_index(i).nrows > 0] if wanted is None else []
        hidden = bool(getattr(sheet, "visibility", 0))  # 1 hidden, 2 very hidden
    except Unreadable:
        raise
    except Exception as exc:
        raise Unreadable(
            "unreadable_file",
            Msg("unreadable_file.xls_damaged", error=f"{type(exc).__name__}: {str(exc)[:120]}"),
        ) from None
    finally:
        book.release_resources()
    width = max((len(r) for r in rows), default=0)
    for row in rows:
        if len(row) < width:
            row.extend([""] * (width - len(row)))
    return SheetData(name=names[index], rows=rows, merged=merged, extra_sheets=extra, hidden=hidden)


def _row(book: Any, sheet: Any, index: int) -> list[Any]:
    import xlrd

    values: list[Any] = []
    for kind, value in zip(sheet.row_types(index), sheet.row_values(index), strict=False):
        if kind in (_EMPTY, _BLANK):
            values.append("")
        elif kind == _BOOLEAN:
            values.append(bool(value))
        elif kind == _ERROR:
            values.append(CellError(xlrd.error_text_from_code.get(value, "#VALUE!")))
        elif kind == _DATE:
            values.append(_date(value, book.datemode))
        else:
            values.append(value)
    return values


def _date(value: float, datemode: int) -> datetime.datetime | float:
    import xlrd

    try:
        return xlrd.xldate_as_datetime(value, datemode)  # type: ignore[no-any-return]
    except Exception:
        return datetime.datetime(1900, 1, 1)


class _Quiet:
    """xlrd writes warnings to a log file; keep them off the user's terminal."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass
