"""``formatkit fix`` on tiny hostile workbooks (issue 29, item 2): one merged range over the whole sheet,
200,000 small merged ranges, 1,000,000 cell styles. Each is refused before openpyxl loads it (exit 1, a
message naming the range or the count and what to do, nothing written), and a merge down past the data is
unmerged only over the rows that hold data. Every run is a subprocess bounded in memory (1 GiB address
space); its ``timeout`` only stops a hang, no test reads a clock."""

from __future__ import annotations

import resource
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl

_NS = "http://schemas.openxmlformats.org/"
_CONTENT_TYPES = (
    f'<Types xmlns="{_NS}package/2006/content-types">'
    f'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '<Override PartName="/xl/styles.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
    "</Types>"
)
_RELS = (
    f'<Relationships xmlns="{_NS}package/2006/relationships">'
    f'<Relationship Id="rId1" Type="{_NS}officeDocument/2006/relationships/officeDocument" '
    'Target="xl/workbook.xml"/></Relationships>'
)
_WORKBOOK = (
    f'<workbook xmlns="{_NS}spreadsheetml/2006/main" xmlns:r="{_NS}officeDocument/2006/relationships">'
    '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_WORKBOOK_RELS = (
    f'<Relationships xmlns="{_NS}package/2006/relationships">'
    f'<Relationship Id="rId1" Type="{_NS}officeDocument/2006/relationships/worksheet" '
    'Target="worksheets/sheet1.xml"/>'
    f'<Relationship Id="rId2" Type="{_NS}officeDocument/2006/relationships/styles" Target="styles.xml"/>'
    "</Relationships>"
)
_XF = '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'

#: session_id, query, response; two sessions, the first one's id merged down rows 2-3 by the tests that merge.
_ROWS: list[list[str | int | None]] = [
    ["session_id", "query", "reference_response"],
    [1, "你好", None],
    [None, "第二轮", "好的"],
    [2, "q", "r"],
]


def _styles(count: int) -> str:
    return (
        f'<styleSheet xmlns="{_NS}spreadsheetml/2006/main">'
        '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
        '<fills count="1"><fill><patternFill patternType="none"/></fill></fills>'
        '<borders count="1"><border/></borders>'
        f'<cellStyleXfs count="1">{_XF}</cellStyleXfs>'
        f'<cellXfs count="{count}">{_XF * count}</cellXfs></styleSheet>'
    )


def _sheet(merges: list[str]) -> str:
    rows = []
    for r, values in enumerate(_ROWS, start=1):
        cells = "".join(
            f'<c r="{"ABC"[j]}{r}"><v>{value}</v></c>'
            if isinstance(value, int)
            else f'<c r="{"ABC"[j]}{r}" t="inlineStr"><is><t>{value}</t></is></c>'
            for j, value in enumerate(values)
            if value is not None
        )
        rows.append(f'<row r="{r}">{cells}</row>')
    merged = "".join(f'<mergeCell ref="{ref}"/>' for ref in merges)
    tail = f'<mergeCells count="{len(merges)}">{merged}</mergeCells>' if merges else ""
    return f'<worksheet xmlns="{_NS}spreadsheetml/2006/main"><sheetData>{"".join(rows)}</sheetData>{tail}</worksheet>'


def _workbook(path: Path, merges: list[str], styles: int = 1) -> Path:
    """A minimal .xlsx written with zipfile (a million styles in 160 KB on disk)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("xl/workbook.xml", _WORKBOOK)
        archive.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)
        archive.writestr("xl/styles.xml", _styles(styles))
        archive.writestr("xl/worksheets/sheet1.xml", _sheet(merges))
    return path


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _fix(*args: str) -> subprocess.CompletedProcess[str]:
    """``formatkit fix`` in a process held to 1 GiB; the timeout only stops a hang (the old code ran for
    minutes and past a gigabyte on these files)."""
    return subprocess.run(
        [sys.executable, "-m", "formatkit.cli", "fix", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        preexec_fn=_limit_memory,
        timeout=300,
        check=False,
    )


def _refused(tmp_path: Path, source: Path, *pieces: str) -> None:
    output = tmp_path / "fixed.xlsx"
    done = _fix(str(source), "-o", str(output), "--lang", "en")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert f"formatkit fix: {source}: " in done.stderr
    for piece in pieces:
        assert piece in done.stderr
    assert f"nothing was written to {output} (validate reads it)" in done.stderr
    assert not output.exists()


def test_one_range_over_the_whole_sheet_is_refused_naming_it(tmp_path: Path) -> None:
    source = _workbook(tmp_path / "whole.xlsx", ["D2:XFD1048576"])
    assert source.stat().st_size < 4096
    _refused(
        tmp_path, source, 'sheet "Sheet1": the merged range D2:XFD1048576 covers 17,176,707,075 cells', "unmerge it"
    )


def test_200000_small_merges_are_refused_with_their_count(tmp_path: Path) -> None:
    source = _workbook(tmp_path / "merges.xlsx", [f"E{r}:F{r}" for r in range(2, 200_002)])
    _refused(tmp_path, source, 'sheet "Sheet1" holds 200,000 merged ranges, more than fix rewrites (10,000)')


def test_a_million_cell_styles_are_refused_with_their_count(tmp_path: Path) -> None:
    source = _workbook(tmp_path / "styles.xlsx", [], styles=1_000_000)
    assert source.stat().st_size < 400_000
    _refused(tmp_path, source, "1,000,000 cell styles, more than fix rewrites (64,000, Excel's own limit)")


def test_the_refusal_in_chinese(tmp_path: Path) -> None:
    source = _workbook(tmp_path / "whole.xlsx", ["D2:XFD1048576"])
    done = _fix(str(source), "-o", str(tmp_path / "fixed.xlsx"), "--lang", "zh")
    assert done.returncode == 1
    assert "工作表“Sheet1”：合并区域 D2:XFD1048576 覆盖 17,176,707,075 个单元格" in done.stderr
    assert "未写入" in done.stderr


def test_a_merge_down_past_the_data_fills_only_the_rows_with_data(tmp_path: Path) -> None:
    # the second session_id merged from row 4 down to row 90,000 (within the bound): nothing is written
    # below row 4, the last row that holds data; the old code wrote 89,996 cells (and the copy then held
    # 89,996 records of an id and nothing else)
    source = _workbook(tmp_path / "down.xlsx", ["A2:A3", "A4:A90000"])
    output = tmp_path / "fixed.xlsx"
    done = _fix(str(source), "-o", str(output), "--lang", "en")
    assert done.returncode == 0, done.stderr
    ws = openpyxl.load_workbook(output).worksheets[0]
    assert ws.max_row == 4
    assert [ws.cell(row=r, column=1).value for r in range(1, 5)] == ["session_id", 1, 1, 2]
    assert not ws.merged_cells.ranges


def test_within_the_bounds_fix_still_repairs(tmp_path: Path) -> None:
    source = _workbook(tmp_path / "ok.xlsx", ["A2:A3"])
    output = tmp_path / "fixed.xlsx"
    done = _fix(str(source), "-o", str(output), "--lang", "en")
    assert done.returncode == 0, done.stderr
    assert "unmerged A2:A3" in done.stdout
    ws = openpyxl.load_workbook(output).worksheets[0]
    assert [ws.cell(row=r, column=1).value for r in range(1, 5)] == ["session_id", 1, 1, 2]


def test_a_workbook_listing_100000_sheets_is_refused_with_their_count(tmp_path: Path) -> None:
    # issue #39: 100,000 sheets listed (each pointing at the one sheet part), under 1 MB on disk; openpyxl's
    # cost per sheet grows with the sheets already there: the old code ran past 300 s and 775 MB
    listed = "".join(f'<sheet name="S{i}" sheetId="{i}" r:id="rId1"/>' for i in range(1, 100_001))
    source = tmp_path / "sheets.xlsx"
    with zipfile.ZipFile(source, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("xl/workbook.xml", _WORKBOOK.replace('<sheet name="Sheet1" sheetId="1" r:id="rId1"/>', listed))
        archive.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)
        archive.writestr("xl/styles.xml", _styles(1))
        archive.writestr("xl/worksheets/sheet1.xml", _sheet([]))
    _refused(tmp_path, source, "the workbook lists 100,000 sheets, more than fix rewrites (1,000)")
