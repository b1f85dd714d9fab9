"""Workbook-wide facts of an .xlsx that python-calamine does not expose, read from small zip parts.

- :func:`number_formats` — which cell styles show numbers other than General does (``0.00``, ``0%``...):
  ``xl/styles.xml`` maps a cell's ``s`` (style index) to a number format.
- :func:`recalculates_on_load` — ``fullCalcOnLoad``: the writer tells Excel its cached formula values
  are placeholders (pandas' xlsxwriter engine writes 0 for every formula).
- :func:`totals_rows` — the totals row of each Excel table on a sheet.
"""

from __future__ import annotations

import posixpath
import zipfile
from xml.etree import ElementTree

from formatkit._reading.numfmt import is_general

__all__ = ["BUILTIN_FORMATS", "number_formats", "recalculates_on_load", "totals_rows"]

#: Built-in number formats (ECMA-376 §18.8.30) that show a number differently from General. The date
#: and time ids (14-22, 45-47) are left out: the reader already returns those cells as dates.
BUILTIN_FORMATS = {
    1: "0",
    2: "0.00",
    3: "#,##0",
    4: "#,##0.00",
    5: '"$"#,##0_);("$"#,##0)',
    6: '"$"#,##0_);[Red]("$"#,##0)',
    7: '"$"#,##0.00_);("$"#,##0.00)',
    8: '"$"#,##0.00_);[Red]("$"#,##0.00)',
    9: "0%",
    10: "0.00%",
    11: "0.00E+00",
    12: "# ?/?",
    13: "# ??/??",
    37: "#,##0 ;(#,##0)",
    38: "#,##0 ;[Red](#,##0)",
    39: "#,##0.00;(#,##0.00)",
    40: "#,##0.00;[Red](#,##0.00)",
    48: "##0.0E+0",
}
_MAX_PART = 64 * 1024 * 1024


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _parse(archive: zipfile.ZipFile, name: str) -> ElementTree.Element | None:
    try:
        info = archive.getinfo(name)
        if info.file_size > _MAX_PART:
            return None
        return ElementTree.fromstring(archive.read(name))
    except (KeyError, zipfile.BadZipFile, OSError, ValueError, EOFError, ElementTree.ParseError):
        return None
    except Exception:  # a damaged part (zlib.error, NotImplementedError...): the facts are simply unknown
        return None


def number_formats(archive: zipfile.ZipFile) -> dict[int, str]:
    """Style index → format code, for the styles whose format shows a number unlike General."""
    root = _parse(archive, "xl/styles.xml")
    if root is None:
        return {}
    custom: dict[int, str] = {}
    xfs: list[int] = []
    for child in root:
        name = _local(child.tag)
        if name == "numFmts":
            for fmt in child:
                try:
                    custom[int(fmt.get("numFmtId", ""))] = fmt.get("formatCode") or ""
                except ValueError:
                    continue
        elif name == "cellXfs":
            for xf in child:
                try:
                    xfs.append(int(xf.get("numFmtId") or 0))
                except ValueError:
                    xfs.append(0)
    out: dict[int, str] = {}
    for index, fmt_id in enumerate(xfs):
        code = custom.get(fmt_id, BUILTIN_FORMATS.get(fmt_id, "General"))
        if not is_general(code):
            out[index] = code
    return out


def recalculates_on_load(workbook: ElementTree.Element | None) -> bool:
    """Whether ``<calcPr fullCalcOnLoad="1">`` marks every cached formula value as stale."""
    if workbook is None:
        return False
    for child in workbook:
        if _local(child.tag) == "calcPr":
            return (child.get("fullCalcOnLoad") or "").strip().lower() in ("1", "true")
    return False


def totals_rows(archive: zipfile.ZipFile, sheet_part: str) -> list[int]:
    """1-based rows that hold an Excel table's totals row on the sheet stored at ``sheet_part``."""
    folder, name = posixpath.split(sheet_part)
    rels = _parse(archive, posixpath.join(folder, "_rels", name + ".rels"))
    if rels is None:
        return []
    rows: list[int] = []
    for rel in rels:
        if not (rel.get("Type") or "").endswith("/table"):
            continue
        target = rel.get("Target") or ""
        part = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        table = _parse(archive, part)
        if table is None:
            continue
        try:
            count = int(table.get("totalsRowCount") or 0)
        except ValueError:
            continue
        last = _last_row(table.get("ref") or "")
        if count > 0 and last is not None:
            rows.extend(range(max(last - count + 1, 1), last + 1))
    return sorted(set(rows))


def _last_row(ref: str) -> int | None:
    end = ref.split(":")[-1]
    digits = end.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz$").replace("$", "")
    return int(digits) if digits.isdigit() and len(digits) <= 7 else None
