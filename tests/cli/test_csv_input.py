"""CSV as an input format (#32 item 1), through the command line: validate, convert, fix and eval read a CSV
as the same set saved as a workbook, whatever Excel's flavour of CSV it is (encoding, separator, line breaks
inside cells, ``="0123"``), and ``csv_rows`` gives its rows to a Python caller."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner, Result

from formatkit.cli import app
from formatkit.errors import UnreadablePathError
from formatkit.files import csv_rows

SEED = Path(__file__).parents[2] / "fixtures" / "seed"
runner = CliRunner()


def _run(*args: str) -> Result:
    return runner.invoke(app, [args[0], "--lang", "en", *args[1:]])


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _saved_as_csv(workbook: Path, target: Path, *, encoding: str, delimiter: str, sep_line: bool = False) -> Path:
    """The workbook's first sheet as Excel writes a CSV: CRLF line breaks, the given encoding and separator."""
    sheet = openpyxl.load_workbook(workbook, data_only=True).worksheets[0]
    text = io.StringIO(newline="")
    if sep_line:
        text.write(f"sep={delimiter}\r\n")
    writer = csv.writer(text, delimiter=delimiter, lineterminator="\r\n")
    for row in sheet.iter_rows(values_only=True):
        writer.writerow(["" if value is None else value for value in row])
    target.write_bytes(text.getvalue().encode(encoding))
    return target


def _conversation(record: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
    source = record["meta"]["source"]
    return record["session_id"], record["messages"], source["format"], source["rows"]


@pytest.mark.parametrize(
    ("seed", "encoding", "delimiter", "sep_line"),
    [
        ("seed_excel_single_turn.xlsx", "utf-8-sig", ",", False),  # Excel's "CSV UTF-8"
        ("seed_excel_multi_turn.xlsx", "gbk", ",", False),  # Excel's plain "CSV" on a Chinese Windows
        ("seed_excel_multi_turn.xlsx", "utf-8", ";", True),  # a locale with a decimal comma, and sep=;
    ],
)
def test_a_seed_saved_as_csv_converts_to_the_workbooks_records(
    tmp_path: Path, seed: str, encoding: str, delimiter: str, sep_line: bool
) -> None:
    saved = _saved_as_csv(SEED / seed, tmp_path / "set.csv", encoding=encoding, delimiter=delimiter, sep_line=sep_line)
    from_csv, from_xlsx = tmp_path / "csv.jsonl", tmp_path / "xlsx.jsonl"
    converted = _run("convert", str(saved), "-o", str(from_csv))
    assert converted.exit_code == 0, converted.output
    assert _run("convert", str(SEED / seed), "-o", str(from_xlsx)).exit_code == 0
    assert [_conversation(r) for r in _records(from_csv)] == [_conversation(r) for r in _records(from_xlsx)]
    assert ("csv_encoding" in converted.output) == (encoding == "gbk")


def test_rows_are_numbered_as_excel_numbers_them(tmp_path: Path) -> None:
    """A quoted line break does not start a row (Excel shows one row), a sep= line is not a row: the empty
    query is at row 3 of the sheet, line 6 of the file."""
    path = tmp_path / "多行.csv"
    path.write_bytes('sep=,\r\nquery,reference_response\r\n"第一行\r\n第二行\r\n第三行",1\r\n"",2\r\n'.encode())
    result = runner.invoke(app, ["validate", "--json", str(path)])
    assert result.exit_code == 1, result.output
    [report] = json.loads(result.output)["files"]
    assert [(i["code"], i["sheet"], i["row"], i["column"]) for i in report["issues"]] == [
        ("empty_text", "多行", 3, "A (query)")
    ]
    assert list(csv_rows(path)) == [
        (1, ["query", "reference_response"]),
        (2, ["第一行\r\n第二行\r\n第三行", "1"]),
        (3, ["", "2"]),
    ]


@pytest.mark.parametrize(
    ("text", "separator"),
    [
        ("XX评测集（第二版）\r\nquery;reference_response\r\n1, 2, 3 的和？;6\r\nHello, world?;hi\r\n", ";"),
        ("query;reference_response\r\n0,5+0,5;1\r\n2,5+1;3,5\r\n", ";"),
        ("query,reference_response\r\n1;2;3 的和？,6\r\n", ","),
        ("query\treference_response\r\n1,5+1\t2,5\r\n", "\t"),
    ],
    ids=["title-row-above", "decimal-commas", "semicolons-in-text", "tab"],
)
def test_the_separator_is_the_one_every_row_holds(tmp_path: Path, text: str, separator: str) -> None:
    """The separator is the one found the same number of times on most rows, not the one a sentence or a
    decimal comma holds more of, nor none because of a title row above the header."""
    path = tmp_path / "set.csv"
    path.write_bytes(text.encode())
    rows = list(csv_rows(path))
    assert rows == [(n, line.split(separator)) for n, line in enumerate(text.split("\r\n")[:-1], start=1)]


def test_excels_text_cells_and_a_tab_separated_utf16_file(tmp_path: Path) -> None:
    """="0123" is Excel's text that looks like a number: read as 0123. Excel's "Unicode text" is UTF-16 with
    tabs between cells."""
    path = tmp_path / "ids.csv"
    path.write_bytes('query\treference_response\r\n编号？\t="0123"\r\n'.encode("utf-16"))
    out = tmp_path / "ids.jsonl"
    result = _run("convert", str(path), "-o", str(out))
    assert result.exit_code == 0, result.output
    [record] = _records(out)
    assert record["messages"][-1]["reference_response"] == "0123"
    assert record["messages"][0]["content"] == "编号？"


def test_traditional_chinese_saved_as_gbk_is_read(tmp_path: Path) -> None:
    """GBK holds traditional characters outside GB2312 too: read, unlike the same text saved as Big5
    (fixtures/invalid/csv/unreadable_file_big5.csv), which GB18030 would read as other characters."""
    text = "query,reference_response\r\n這是一個關於機器學習的評測集，請問臺灣的首都是哪裡？,臺北\r\n"
    (tmp_path / "繁體.csv").write_bytes(text.encode("gbk"))
    assert list(csv_rows(tmp_path / "繁體.csv")) == [
        (1, ["query", "reference_response"]),
        (2, text.split("\r\n")[1].split(",")),
    ]
    (tmp_path / "big5.csv").write_bytes(text.encode("big5"))
    with pytest.raises(UnreadablePathError, match="neither UTF-8 nor GBK"):
        list(csv_rows(tmp_path / "big5.csv"))


def test_a_file_in_no_encoding_read_cleanly_is_refused_not_garbled(tmp_path: Path) -> None:
    path = tmp_path / "西文.csv"
    path.write_bytes("query,reference_response\nOù est la gare ? Près de l'église,à gauche\n".encode("latin-1"))
    result = _run("convert", str(path), "-o", str(tmp_path / "out.jsonl"))
    assert result.exit_code == 1
    assert "neither UTF-8 nor GBK" in result.output and "[unreadable_file]" in result.output
    assert not (tmp_path / "out.jsonl").exists()
    with pytest.raises(UnreadablePathError, match="neither UTF-8 nor GBK"):
        list(csv_rows(path))


def test_a_quote_never_closed_is_said_at_its_cell(tmp_path: Path) -> None:
    """A quote opened and never closed runs to the end of the file (Excel reads the rest as one cell): said
    at the cell, not read as one record with an odd reference; a quote inside a cell is text."""
    path = tmp_path / "quote.csv"
    path.write_bytes(b'query,reference_response\r\nsay "hi",1\r\n"1+1,2\r\n2+2,4\r\n')
    result = runner.invoke(app, ["validate", "--json", str(path)])
    [report] = json.loads(result.output)["files"]
    assert [(i["code"], i["sheet"], i["row"], i["column"]) for i in report["issues"]] == [
        ("unreadable_file", "quote", 3, "A")
    ]
    assert "Cell A3 opens a quote that is never closed" in report["issues"][0]["message"]


def test_fix_writes_the_csv_back_as_it_was_written(tmp_path: Path) -> None:
    """GBK, ; and CRLF kept; the header and parameters repaired; the rows no repair touched copied byte for
    byte (their quoting and ="0123" included); the title row above the header removed and said."""
    rows = [
        "评测集（第二版）;;",
        "Session ID;问题;答案;parameters",
        '1;"1+1等于几？";="0123";temperature=0.5',
        '2;"多行\r\n问题";"a;b";',
    ]
    source = tmp_path / "题目.csv"
    source.write_bytes("".join(row + "\r\n" for row in rows).encode("gbk"))
    fixed = tmp_path / "fixed.csv"
    result = _run("fix", str(source), "-o", str(fixed))
    assert result.exit_code == 0, result.output
    assert 'removed row(s) 1 above the header (title or notes: "评测集（第二版）")' in result.output
    assert 'header "问题" renamed to "query"' in result.output
    assert 'the copy is a CSV written as the input is (GBK, separated by ";")' in result.output
    assert fixed.read_bytes().decode("gbk") == (
        "session_id;query;reference_response;parameters\r\n"
        '1;"1+1等于几？";="0123";"{""temperature"": 0.5}"\r\n'
        '2;"多行\r\n问题";"a;b";\r\n'
    )
    assert "fixed.csv: ok (excel-single-turn, 2 records, 0 errors, 1 warnings)" in result.output  # csv_encoding


def test_fix_of_a_csv_with_nothing_to_repair_is_a_copy(tmp_path: Path) -> None:
    source = tmp_path / "ok.csv"
    source.write_bytes(b'\xef\xbb\xbfquery,reference_response\r\n"1+1",2\r\n')
    result = _run("fix", str(source), "-o", str(tmp_path / "copy.csv"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "copy.csv").read_bytes() == source.read_bytes()


def test_eval_runs_a_csv_set(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    saved = tmp_path / "算术.csv"
    saved.write_bytes("query;reference_response\r\n1+1等于几？;2\r\n2+3等于几？;5\r\n".encode("gbk"))
    out = tmp_path / "eval"
    args = ["eval", str(saved), "--base-url", fake_openai.base_url, "--model", "m", "-o", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    scored = _records(out / "scored.jsonl")
    assert [r["messages"][0]["content"] for r in scored] == ["1+1等于几？", "2+3等于几？"]
    assert fake_openai.requests == 2 and {r["meta"]["dataset"] for r in scored} == {"算术"}
    assert all(resp["metric"] in ("exact", "math") for r in scored for resp in r["messages"][-1]["responses"])


def test_a_line_break_in_a_quoted_cell_reads_as_in_the_workbook(tmp_path: Path) -> None:
    # Windows writes a quoted line break as CR LF: the record's text holds "\n", as the xlsx path gives it
    path = tmp_path / "breaks.csv"
    path.write_bytes('query,reference_response\r\n"第一行\r\n第二行",1\r\n'.encode())
    out = tmp_path / "out.jsonl"
    assert _run("convert", str(path), "-o", str(out)).exit_code == 0
    [record] = _records(out)
    assert [m["content"] for m in record["messages"] if m["role"] == "user"] == ["第一行\n第二行"]


def test_a_title_row_in_a_csv_is_said_to_be_removed_by_fix(tmp_path: Path) -> None:
    path = tmp_path / "title.csv"
    path.write_bytes("XX评测集（第二版）\r\nquery,reference_response\r\n1+1?,2\r\n".encode())
    for lang, said in (("en", "it removes row(s) 1 from its copy"), ("zh", "它会从副本中删除第 1 行")):
        result = runner.invoke(app, ["validate", "--lang", lang, str(path)])
        assert result.exit_code == 1 and "[header_not_first_row]" in result.output
        assert said in result.output and ("sheet of their own" not in result.output)
