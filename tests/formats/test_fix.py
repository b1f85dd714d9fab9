"""``formatkit fix`` (issue 21, item 1) on sets saved by LibreOffice (fixtures/fix, see its make script):
each damaged file is fixed, the copy validates, and it converts to exactly what the hand-cleaned set
converts to; the input is never touched; every change is listed at its cell or line."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from typer.testing import CliRunner, Result

from formatkit import RecordDict, fix_file, iter_dicts, validate_file
from formatkit.cli import app

FIX = Path(__file__).parents[2] / "fixtures" / "fix"

#: damaged fixture -> (hand-cleaned fixture, the change codes fix must list).
CASES: dict[str, tuple[str, list[str]]] = {
    "sheet_order.xlsx": ("clean.xlsx", ["sheet_moved"]),
    "headers.xlsx": ("clean.xlsx", ["header_renamed"] * 6),
    "merged.xlsx": ("clean.xlsx", ["cells_unmerged"] * 4),
    "parameters.xlsx": ("clean.xlsx", ["parameters_rewritten"] * 2),
    "ids.xlsx": ("clean.xlsx", ["id_trimmed"] * 5),
    "formulas.xlsx": ("clean.xlsx", ["formula_to_value", "parameters_rewritten", "parameters_rewritten"]),
    "everything.xlsx": (
        "clean.xlsx",
        ["sheet_moved", *["header_renamed"] * 6, *["cells_unmerged"] * 4, *["parameters_rewritten"] * 2],
    ),
    "everything.xls": (
        "clean.xlsx",
        ["sheet_moved", *["header_renamed"] * 6, *["cells_unmerged"] * 4, *["parameters_rewritten"] * 2],
    ),
    "bom_parameters.jsonl": ("clean.jsonl", ["bom_removed", *["parameters_rewritten", "id_trimmed"] * 2]),
    "gbk.jsonl": ("clean.jsonl", ["reencoded"]),
}


def fix(*args: str) -> Result:
    return CliRunner(env={"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}).invoke(app, ["fix", *args])


def records(path: Path) -> list[RecordDict]:
    return list(iter_dicts(path, meta=False))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def out_name(name: str) -> str:
    return "fixed.jsonl" if name.endswith(".jsonl") else "fixed.xlsx"


#: Text ids with spaces read as their numbers already: fix tidies them, validate has nothing to say.
TIDY_ONLY = {"ids.xlsx"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_damaged_set_is_invalid_before(name: str) -> None:
    assert validate_file(FIX / name).valid == (name in TIDY_ONLY)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fix_then_validate_then_convert_equals_the_hand_cleaned_set(name: str, tmp_path: Path) -> None:
    import json

    clean, expected = CASES[name]
    before = digest(FIX / name)
    out = tmp_path / out_name(name)
    result = fix(str(FIX / name), "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    assert sorted(change["code"] for change in json.loads(result.output)["changes"]) == sorted(expected)
    assert digest(FIX / name) == before  # IN is never touched
    report = validate_file(out)
    assert report.valid and report.errors == 0, report.issues
    assert records(out) == records(FIX / clean)


def test_every_change_is_listed_at_its_cell(tmp_path: Path) -> None:
    result = fix(str(FIX / "everything.xlsx"), "-o", str(tmp_path / "fixed.xlsx"))
    out = result.output
    assert '数据: moved sheet "数据" (the data) from position 2 to the front' in out
    assert '数据!C1 (问题): header "问题" renamed to "query" (a Chinese name)' in out
    assert '数据!B1 (ｓｙｓｔｅｍ＿ｐｒｏｍｐｔ): header "ｓｙｓｔｅｍ＿ｐｒｏｍｐｔ" renamed to "system_prompt"' in out
    assert "数据!A2 (session_id): unmerged A2:A4 and wrote 1 into each of its 3 cells" in out
    assert (
        '数据!E4 (parameters): parameters "｛“temperature”：0.7，“max_tokens”：1024｝" rewritten as JSON: '
        '{"temperature": 0.7, "max_tokens": 1024}'
    ) in out
    assert '数据!E6 (parameters): parameters "temperature=0.7, stop=[“，”]" rewritten as JSON: ' in out
    assert out.index("rewritten as JSON") < out.index("The copy, validated:") < out.index("valid: 0 error(s)")


def test_changes_in_chinese(tmp_path: Path) -> None:
    result = fix(str(FIX / "everything.xls"), "-o", str(tmp_path / "fixed.xlsx"), "--lang", "zh")
    assert result.exit_code == 0, result.output
    assert '数据!C1 (问题): 表头"问题"已改为"query"（中文名）' in result.output
    assert "已取消合并 A2:A4，并在其 3 个单元格中都填入 1" in result.output
    assert "已将 .xls 工作簿改写为 .xlsx" in result.output
    assert "13 处修改" in result.output


def test_the_locale_chooses_chinese(tmp_path: Path) -> None:
    result = CliRunner(env={"LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}).invoke(
        app, ["fix", str(FIX / "gbk.jsonl"), "-o", str(tmp_path / "fixed.jsonl")]
    )
    assert "已将文件从 GBK 解码，并以 UTF-8 写出（内容如：你是一名精通各大中餐菜系" in result.output


def test_the_workbook_keeps_the_other_sheets_and_the_layout(tmp_path: Path) -> None:
    out = tmp_path / "fixed.xlsx"
    assert fix(str(FIX / "everything.xlsx"), "-o", str(out)).exit_code == 0
    book = openpyxl.load_workbook(out)
    assert book.sheetnames == ["数据", "说明"]
    assert book["说明"]["A1"].value == "填写说明"
    data = book["数据"]
    original = openpyxl.load_workbook(FIX / "everything.xlsx")["数据"]

    def widths(ws: Any) -> dict[str, tuple[float, int, int]]:
        return {k: (d.width, d.min, d.max) for k, d in ws.column_dimensions.items()}

    assert widths(data) == widths(original) and widths(data)["E"] == (40, 5, 5)
    assert data.merged_cells.ranges == set()
    assert [data.cell(row=r, column=1).value for r in range(2, 7)] == [1, 1, 1, 2, 2]
    assert book.active.title == "数据"


def test_dry_run_lists_the_changes_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "fixed.xlsx"
    result = fix(str(FIX / "everything.xlsx"), "-o", str(out), "--dry-run")
    assert result.exit_code == 0, result.output
    assert not out.exists() and list(tmp_path.iterdir()) == []
    assert "13 change(s) (dry run: nothing written to" in result.output
    assert "The copy would validate as:" in result.output
    assert f"{out}: ok (excel-multi-turn, 2 records" in result.output  # named as the output, not a temp file


def test_what_no_repair_settles_is_left_to_validate_and_exits_1(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    ws = book.active
    assert ws is not None
    ws.append(["问题", "参考答案", "参数"])
    ws.append(["1+1", "2", "｛“temperature”：0.7｝"])
    ws.append(["", "3", None])  # an empty query: nobody but the user knows it
    src = tmp_path / "set.xlsx"
    book.save(src)
    out = tmp_path / "fixed.xlsx"
    result = fix(str(src), "-o", str(out))
    assert result.exit_code == 1, result.output
    assert out.exists()  # the repairs are written; the rest is for the user
    assert "4 change(s)" in result.output
    assert "Sheet!A3 (query): query is empty" in result.output
    assert "1 error(s) remain" in result.output
    assert [i.code for i in validate_file(out).issues] == ["empty_text"]


def test_nothing_to_repair_copies_the_file_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "copy.xlsx"
    result = fix(str(FIX / "clean.xlsx"), "-o", str(out))
    assert result.exit_code == 0 and "nothing to repair" in result.output
    assert digest(out) == digest(FIX / "clean.xlsx")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["{src}", "-o", "{src}"], "is the input itself"),
        (["{src}", "-o", "{tmp}/fixed.xls"], "name it *.xlsx"),
        (["{src}", "-o", "{tmp}"], "is a directory"),
        (["{tmp}/missing.xlsx", "-o", "{tmp}/fixed.xlsx"], "no such file"),
    ],
)
def test_bad_usage_exits_2(tmp_path: Path, args: list[str], says: str) -> None:
    src = tmp_path / "set.xlsx"
    src.write_bytes((FIX / "merged.xlsx").read_bytes())
    before = digest(src)
    result = fix(*(a.format(src=src, tmp=tmp_path) for a in args))
    assert result.exit_code == 2, result.output
    assert says in result.output
    assert digest(src) == before


def _sheet(tmp_path: Path, rows: list[list[Any]], merge: str | None = None) -> Path:
    book = openpyxl.Workbook()
    ws = book.active
    assert ws is not None
    for row in rows:
        ws.append(row)
    if merge:
        ws.merge_cells(merge)
    path = tmp_path / "set.xlsx"
    book.save(path)
    return path


def test_two_headers_for_one_column_are_left_alone(tmp_path: Path) -> None:
    src = _sheet(tmp_path, [["问题", "query", "参考答案"], ["a", "b", "c"]])
    result = fix_file(src, tmp_path / "fixed.xlsx")
    assert [(c.code, c.data["after"]) for c in result.changes] == [("header_renamed", "reference_response")]
    assert not result.valid  # duplicate/unknown columns stay for the user


def test_a_merge_across_other_columns_is_left_alone(tmp_path: Path) -> None:
    src = _sheet(tmp_path, [["query", "reference_response"], ["a", "b"], ["c", "d"]], merge="A2:A3")
    result = fix_file(src, tmp_path / "fixed.xlsx")
    assert result.changes == [] and "merged_cells" in result.report.counts


@pytest.mark.parametrize("second", [True, False])
def test_two_candidate_data_sheets_or_a_hidden_one_are_left_alone(tmp_path: Path, second: bool) -> None:
    book = openpyxl.Workbook()
    first = book.active
    assert first is not None
    first.append(["说明"])
    sheet = book.create_sheet("a")
    sheet.append(["query", "reference_response"])
    if second:
        book.create_sheet("b").append(["query", "reference_response"])
    else:
        sheet.sheet_state = "hidden"
    book.save(tmp_path / "set.xlsx")
    assert fix_file(tmp_path / "set.xlsx", tmp_path / "fixed.xlsx").changes == []


def test_lost_parts_are_noted(tmp_path: Path) -> None:
    """openpyxl drops shapes; the copy says so (the original stays as it is)."""
    import shutil
    import zipfile

    src = tmp_path / "set.xlsx"
    shutil.copy(FIX / "parameters.xlsx", src)
    with zipfile.ZipFile(src, "a") as archive:
        archive.writestr("xl/drawings/drawing1.xml", "<xdr:wsDr/>")
    result = fix(str(src), "-o", str(tmp_path / "fixed.xlsx"))
    assert "the copy could not keep drawings (shapes, images, charts) of the original" in result.output


def test_fonts_fills_and_frozen_panes_stay(tmp_path: Path) -> None:
    from openpyxl.styles import Font, PatternFill

    book = openpyxl.Workbook()
    ws = book.active
    assert ws is not None
    ws.append(["问题", "参考答案"])
    ws.append(["1+1", "2"])
    ws["A1"].font = Font(bold=True, color="FF0000")
    ws["B2"].fill = PatternFill("solid", fgColor="FFFF00")
    ws.freeze_panes = "A2"
    book.save(tmp_path / "set.xlsx")
    result = fix_file(tmp_path / "set.xlsx", tmp_path / "fixed.xlsx")
    assert result.valid and len(result.changes) == 2
    fixed = openpyxl.load_workbook(tmp_path / "fixed.xlsx").active
    assert fixed is not None
    assert fixed["A1"].value == "query" and fixed["A1"].font.bold and fixed["A1"].font.color.rgb == "00FF0000"
    assert fixed["B2"].fill.fgColor.rgb == "00FFFF00"
    assert fixed.freeze_panes == "A2"


@pytest.mark.parametrize(
    ("name", "content", "code"),
    [
        ("damaged.xlsx", b"PK\x03\x04 cut short", "unreadable_file"),
        ("empty.jsonl", b"", "empty_file"),
        ("table.txt", b"query\treference_response\n1+1\t2\n", "unsupported_extension"),
    ],
)
def test_an_input_that_cannot_be_read_is_reported_and_nothing_written(
    tmp_path: Path, name: str, content: bytes, code: str
) -> None:
    src = tmp_path / name
    src.write_bytes(content)
    out = tmp_path / ("fixed" + (".xlsx" if name.endswith("xlsx") else ".jsonl" if name.endswith("jsonl") else ".txt"))
    result = fix(str(src), "-o", str(out))
    assert result.exit_code == 1, result.output
    assert "could not be read for repair" in result.output and code in result.output
    assert not out.exists()
    assert "Traceback" not in result.output


def test_a_first_sheet_with_a_title_row_is_not_pushed_back(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    first = book.active
    assert first is not None
    first.append(["2025 年评测集"])
    first.append(["query", "reference_response"])
    first.append(["1+1", "2"])
    book.create_sheet("旧版").append(["query", "reference_response"])
    book.save(tmp_path / "set.xlsx")
    result = fix_file(tmp_path / "set.xlsx", tmp_path / "fixed.xlsx")
    # the title row is moved to a notes sheet (#29 item 1); the first sheet stays first
    assert [c.code for c in result.changes] == ["title_rows_moved"]
    assert result.report.valid and openpyxl.load_workbook(tmp_path / "fixed.xlsx").sheetnames[0] == "Sheet"


def test_jsonl_keys_in_another_case_width_or_alias_are_renamed(tmp_path: Path) -> None:
    lines = (FIX / "clean.jsonl").read_text(encoding="utf-8").splitlines()
    damaged = [
        lines[0].replace('"messages"', '"Messages"').replace('"answer"', '"ａｎｓｗｅｒ"'),
        lines[1].replace('"messages"', '"message"').replace('"parameters"', '"PARAMETERS "'),
    ]
    src = tmp_path / "set.jsonl"
    src.write_text("\n".join(damaged) + "\n", encoding="utf-8")
    assert not validate_file(src).valid
    result = fix_file(src, tmp_path / "fixed.jsonl")
    assert [(c.line, c.data["before"], c.data["after"], c.data["how"]) for c in result.changes] == [
        (1, "Messages", "messages", "normalized"),
        (1, "ａｎｓｗｅｒ", "answer", "normalized"),
        (2, "message", "messages", "alias"),
        (2, "PARAMETERS ", "parameters", "normalized"),
    ]
    assert result.valid and result.report.warnings == 0
    assert records(tmp_path / "fixed.jsonl") == records(FIX / "clean.jsonl")


def test_a_key_whose_name_the_line_holds_already_is_left(tmp_path: Path) -> None:
    src = tmp_path / "set.jsonl"
    src.write_text('{"prompt": "1+1", "Prompt": "2+2", "answer": "2"}\n', encoding="utf-8")
    result = fix_file(src, tmp_path / "fixed.jsonl")
    assert result.changes == [] and not result.valid


def test_json_lists_every_change_with_its_data_place_and_message(tmp_path: Path) -> None:
    import json

    result = fix(str(FIX / "gbk.jsonl"), "-o", str(tmp_path / "fixed.jsonl"), "--json", "--lang", "zh")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["valid"] and data["written"] and data["errors_before"] == 1
    [change] = data["changes"]
    assert change["code"] == "reencoded" and change["data"] == {
        "encoding": "GBK",
        "sample": "你是一名精通各大中餐菜系的中餐传奇大厨",
    }
    assert change["message"] == "已将文件从 GBK 解码，并以 UTF-8 写出（内容如：你是一名精通各大中餐菜系的中餐传奇大厨）"
    assert data["report"]["format"] == "jsonl-multi-turn"
