"""Issue 29 item 6, silent changes and wrong words, from the command line on files built at test time: a
number Excel cut to 15 digits, a time cell called a time, the headers fix renames, the --sheet hint only
where there is a --sheet, UTF-32 told from UTF-16, damaged workbooks refused at their place, and eval
--lang zh in Chinese beyond its issues."""

from __future__ import annotations

import datetime
import warnings
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner

from formatkit.cli import app

EXCEL = Path(__file__).parents[2] / "fixtures" / "invalid" / "excel"
SEED = Path(__file__).parents[2] / "fixtures" / "seed"

HEADER = ["session_id", "system_prompt", "query", "reference_response"]


def _workbook(path: Path, rows: list[list[Any]], header: list[str] = HEADER) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(header)
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


def _validate(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["validate", *args])
    return result.exit_code, result.output


def test_a_number_excel_cut_to_15_digits_is_a_located_warning_saying_how_to_type_it(tmp_path: Path) -> None:
    # Excel writes an 18-digit number typed into a cell as 1.23456789012346E+17: the last digits are gone.
    path = _workbook(tmp_path / "ids.xlsx", [[1, "", "订单号是多少？", 1.23456789012346e17], [2, "", "1+1", 2]])
    code, output = _validate(str(path))
    assert code == 0, output
    [line] = [line for line in output.splitlines() if "[long_number]" in line]
    assert line.lstrip().startswith("warning") and "Sheet!D2 (reference_response)" in line
    assert "1.23456789012346E+17" in line and "15 digits" in line and "'123456789012345678" in line
    code, output = _validate("--lang", "zh", str(path))
    assert "Excel 只保留数字的前 15 位" in output and "文本" in output
    # a number of 15 digits or less, and one typed short (1E+20), are left alone
    rows = [[1, "", "q", 999_999_999_999_999], [2, "", "q", 1e20], [3, "", "q", 1234567890123400.0]]
    exact = _workbook(tmp_path / "exact.xlsx", rows)
    assert "long_number" not in _validate(str(exact))[1]


def test_a_time_cell_is_called_a_time_not_a_date(tmp_path: Path) -> None:
    path = _workbook(tmp_path / "times.xlsx", [[1, "", "比分？", datetime.time(10, 30)]])
    code, output = _validate(str(path))
    assert code == 1
    [line] = [line for line in output.splitlines() if "[date_cell]" in line]
    assert "the time 10:30:00" in line and "the date" not in line and "type 10:30 again" in line
    code, output = _validate("--lang", "zh", str(path))
    assert "单元格中是时间 10:30:00" in output and "日期 10:30:00" not in output
    # a date keeps its own words
    dated = _workbook(tmp_path / "dates.xlsx", [[1, "", "比分？", datetime.datetime(2026, 1, 2)]])
    assert "the date 2026-01-02" in _validate(str(dated))[1]


def test_fix_renames_headers_spelled_with_spaces_case_or_a_line_break(tmp_path: Path) -> None:
    header = ["Session ID", "System Prompt", "query\n(问题)", "Reference Response"]
    path = _workbook(tmp_path / "template.xlsx", [[1, "你是助手", "1+1=?", "2"]], header)
    code, output = _validate(str(path))
    assert code == 0, output
    for text, name in [("System Prompt", "system_prompt"), ("query (问题)", "query"), ("Session ID", "session_id")]:
        assert f'Header "{text}" is read as "{name}"' in output
    assert 'Header "Reference Response" is read as "reference_response"' in output
    assert "unknown_column" not in output and "missing_column" not in output
    fixed = tmp_path / "fixed.xlsx"
    result = CliRunner().invoke(app, ["fix", str(path), "-o", str(fixed)])
    assert result.exit_code == 0, result.output
    assert 'header "System Prompt" renamed to "system_prompt"' in result.output
    assert 'header "Reference Response" renamed to "reference_response"' in result.output
    assert 'header "query (问题)" renamed to "query"' in result.output
    book = openpyxl.load_workbook(fixed)
    renamed = [cell.value for cell in book.worksheets[0][1]]
    assert renamed == ["session_id", "system_prompt", "query", "reference_response"]
    assert _validate(str(fixed))[0] == 0


def test_a_header_that_only_looks_like_a_column_stays_unknown(tmp_path: Path) -> None:
    header = ["session_id", "query", "reference_response", "query\nnotes", "system prompt id"]
    path = _workbook(tmp_path / "notes.xlsx", [[1, "1+1=?", "2", "x", "y"]], header)
    output = _validate(str(path))[1]
    assert "duplicate_column" in output  # query\nnotes names query by its first line
    assert 'Unknown column "system prompt id"' in output
    # a first line that is an alias is an alias, one in Chinese is a Chinese name
    path = _workbook(tmp_path / "alias.xlsx", [["1+1=?", "2"]], ["Prompt\n(用户输入)", "答案\nanswer"])
    output = _validate(str(path))[1]
    assert 'Header "Prompt (用户输入)" is accepted as an alias of "query"' in output
    assert 'Unknown column "答案 answer" in row 1. Did you mean "reference_response"?' in output


def test_only_commands_that_take_sheet_say_read_it_with_sheet(tmp_path: Path) -> None:
    empty_first, extra = str(EXCEL / "no_records_first_sheet_empty.xlsx"), str(EXCEL / "extra_sheet.xlsx")
    server = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]  # never reached: the file stops them
    without = {
        "eval": ["eval", empty_first, *server, "-o", str(tmp_path / "eval")],
        "run": ["run", empty_first, *server, "-o", str(tmp_path / "run.jsonl")],
        "score": ["score", empty_first, "-o", str(tmp_path / "scored.jsonl")],
        "fix": ["fix", extra, "-o", str(tmp_path / "fixed.xlsx")],
    }
    for command, args in without.items():
        for lang, words in (("en", "only the first sheet"), ("zh", "只读取第一个工作表")):
            output = CliRunner().invoke(app, [*args, "--lang", lang]).output
            assert words in output, (command, lang, output)
            assert "--sheet" not in output, (command, lang, output)
    for path in (empty_first, extra):
        assert '--sheet "' in _validate(path)[1]
        assert '--sheet "' in _validate("--lang", "zh", path)[1]
        result = CliRunner().invoke(app, ["convert", path, "-o", str(tmp_path / "out.jsonl")])
        assert '--sheet "' in result.output


LINE = '{"messages": [{"role": "user", "content": "你好"}], "answer": "嗨"}\n'


@pytest.mark.parametrize(
    ("codec", "bom", "named"),
    [
        ("utf-32-le", b"\xff\xfe\x00\x00", "UTF-32"),
        ("utf-32-be", b"\x00\x00\xfe\xff", "UTF-32"),
        ("utf-16-le", b"\xff\xfe", "UTF-16"),
        ("utf-16-be", b"\xfe\xff", "UTF-16"),
        ("utf-32-le", b"", "UTF-32LE"),
        ("utf-32-be", b"", "UTF-32BE"),
        ("utf-16-le", b"", "UTF-16LE"),
        ("utf-16-be", b"", "UTF-16BE"),
    ],
)
def test_utf32_is_told_from_utf16_with_a_bom_or_without(tmp_path: Path, codec: str, bom: bytes, named: str) -> None:
    path = tmp_path / "wide.jsonl"
    path.write_bytes(bom + (LINE * 3).encode(codec))
    code, output = _validate(str(path))
    assert code == 1
    [line] = [line for line in output.splitlines() if "[not_utf8]" in line]
    assert f"it looks like {named}." in line and f"iconv -f {named} -t UTF-8" in line
    assert "invalid_json" not in output  # one error for the encoding, not one per line
    fixed = tmp_path / "fixed.jsonl"
    result = CliRunner().invoke(app, ["fix", str(path), "-o", str(fixed)])
    assert result.exit_code == 0, result.output
    assert f"decoded the file from {named} and wrote it as UTF-8 (it reads: 你好" in result.output
    assert fixed.read_text(encoding="utf-8") == LINE * 3


_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_TYPES = "http://schemas.openxmlformats.org/package/2006/content-types"
_XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml"


def _parts(sheet_data: str, strings: list[str]) -> list[tuple[str, str]]:
    """The parts of a one-sheet workbook with shared strings, as Excel lays them out."""
    shared = "".join(f"<si><t>{s}</t></si>" for s in strings)
    return [
        (
            "[Content_Types].xml",
            f'<Types xmlns="{_TYPES}"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override '
            f'PartName="/xl/workbook.xml" ContentType="{_XLSX}.sheet.main+xml"/><Override '
            f'PartName="/xl/worksheets/sheet1.xml" ContentType="{_XLSX}.worksheet+xml"/><Override '
            f'PartName="/xl/sharedStrings.xml" ContentType="{_XLSX}.sharedStrings+xml"/></Types>',
        ),
        (
            "_rels/.rels",
            f'<Relationships xmlns="{_REL}"><Relationship Id="rId1" Type="{_DOC}/officeDocument" '
            'Target="xl/workbook.xml"/></Relationships>',
        ),
        (
            "xl/workbook.xml",
            f'<workbook xmlns="{_MAIN}" xmlns:r="{_DOC}"><sheets><sheet name="数据" sheetId="1" r:id="rId1"/>'
            "</sheets></workbook>",
        ),
        (
            "xl/_rels/workbook.xml.rels",
            f'<Relationships xmlns="{_REL}"><Relationship Id="rId1" Type="{_DOC}/worksheet" '
            f'Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="{_DOC}/sharedStrings" '
            'Target="sharedStrings.xml"/></Relationships>',
        ),
        ("xl/sharedStrings.xml", f'<sst xmlns="{_MAIN}" count="{len(strings)}">{shared}</sst>'),
        ("xl/worksheets/sheet1.xml", f'<worksheet xmlns="{_MAIN}"><sheetData>{sheet_data}</sheetData></worksheet>'),
    ]


def _zip(path: Path, parts: list[tuple[str, str]]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name the probe is made of
        with zipfile.ZipFile(path, "w") as archive:
            for name, text in parts:
                archive.writestr(name, text)
    return path


STRINGS = ["query", "reference_response", "一加一", "2", "二加二", "4"]
HEAD = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'


def _row(number: int, query: int, answer: int, quote: str = '"') -> str:
    q = quote
    return (
        f"<row r={q}{number}{q}><c r={q}A{number}{q} t={q}s{q}><v>{query}</v></c>"
        f"<c r={q}B{number}{q} t={q}s{q}><v>{answer}</v></c></row>"
    )


def test_damaged_workbooks_are_refused_at_their_place_not_read_silently(tmp_path: Path) -> None:
    sound = _zip(tmp_path / "sound.xlsx", _parts(HEAD + _row(2, 2, 3) + _row(3, 4, 5), STRINGS))
    code, output = _validate(str(sound))
    assert code == 0, output
    probes = {
        # the same part twice: zipfile reads the last copy, another reader the first
        "duplicate": _zip(
            tmp_path / "duplicate.xlsx",
            [*_parts(HEAD + _row(2, 2, 3), STRINGS), ("xl/worksheets/sheet1.xml", "<worksheet/>")],
        ),
        # row 2 written twice: the second copy's cells overwrite the first's
        "row": _zip(tmp_path / "row.xlsx", _parts(HEAD + _row(2, 2, 3) + _row(2, 4, 5), STRINGS)),
        # the same, spelled so that the exact XML parse reads it (single quotes)
        "row_exact": _zip(tmp_path / "row_exact.xlsx", _parts(HEAD + _row(2, 2, 3, "'") + _row(2, 4, 5, "'"), STRINGS)),
        # a shared-string index of -1: read as another cell's text
        "shared": _zip(tmp_path / "shared.xlsx", _parts(HEAD + _row(2, -1, 3), STRINGS)),
        "shared_exact": _zip(tmp_path / "shared_exact.xlsx", _parts(HEAD + _row(2, -1, 3, "'"), STRINGS)),
    }
    expected = {
        "duplicate": ('holds its part "xl/worksheets/sheet1.xml" twice', ""),
        "row": ('Row 2 of sheet "数据" is written twice', "数据!2:"),
        "row_exact": ('Row 2 of sheet "数据" is written twice', "数据!2:"),
        "shared": ('Cell A2 of sheet "数据" points at shared text number -1', "数据!A2:"),
        "shared_exact": ('Cell A2 of sheet "数据" points at shared text number -1', "数据!A2:"),
    }
    for name, path in probes.items():
        code, output = _validate(str(path))
        words, place = expected[name]
        assert code == 1, (name, output)
        assert words in output and "[unreadable_file]" in output and place in output, (name, output)
        result = CliRunner().invoke(app, ["convert", str(path), "-o", str(tmp_path / f"{name}.jsonl")])
        assert result.exit_code == 1 and not (tmp_path / f"{name}.jsonl").exists(), (name, result.output)
    assert "工作簿已损坏" in _validate("--lang", "zh", str(probes["row"]))[1]


def test_eval_lang_zh_says_its_progress_and_judge_notes_in_chinese(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    sets = [str(SEED / "seed_excel_single_turn.xlsx"), str(SEED / "seed_jsonl_multi_turn.jsonl")]
    args = ["eval", *sets, "--base-url", fake_openai.base_url, "--model", "m", "-o", str(tmp_path / "zh")]
    result = CliRunner().invoke(app, [*args, "--lang", "zh"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "run：5/5 条记录 (100.0%)，" in lines[0] and "条有错误，剩余 " in lines[0]
    [judge] = [line for line in lines if "需要裁判模型" in line]
    assert "参考答案是自由文本或缺失（2 long）：规则无法评分" in judge
    assert "with errors" not in result.output and "references are free text" not in result.output
    english = CliRunner().invoke(app, [*args[:-1], str(tmp_path / "en"), "--lang", "en"])
    assert "run: 5/5 records (100.0%), " in english.output and ", 0 with errors, eta " in english.output
    assert (
        "references are free text or missing (2 long): rules cannot score them — use --metric judge" in english.output
    )
