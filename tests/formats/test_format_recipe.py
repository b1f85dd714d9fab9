"""CONTRIBUTING.md, "Add an input format": a toy format registered in the table of input formats
(formatkit/_core/formats.py) for the test's duration is read by every command that reads a file, with the
rules its row names; unregistered, the same file is an unsupported extension again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from formatkit._core.formats import INPUT_FORMATS, TABLE_RULES, InputFormat, input_format, readable_suffixes
from formatkit._core.messages import catalogue, languages
from formatkit._reading.cells import SheetData
from formatkit.cli import app


def read_tsv(path: Path, sheet: str | None) -> SheetData:
    """The toy format: tab-separated text, one row per line, the header first (no quoting)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return SheetData(name=path.stem, rows=[line.split("\t") for line in lines])


@pytest.fixture
def tsv() -> Iterator[None]:
    """The toy row, registered for the test: the table rules (those of an Excel sheet), cells from read_tsv.
    The catalogues list the readable extensions as the table holds them when they load (a built-in format
    is a row of the table's source): loaded first, they do not list the toy after the test."""
    if ".tsv" in INPUT_FORMATS:  # CONTRIBUTING's worked example added for real: test the table's own row
        yield
        return
    for lang in languages():
        catalogue(lang)
    INPUT_FORMATS[".tsv"] = InputFormat(TABLE_RULES, sheet=read_tsv)
    try:
        yield
    finally:
        del INPUT_FORMATS[".tsv"]


def _write(path: Path, *rows: str) -> Path:
    path.write_text("".join(f"{row}\n" for row in rows), encoding="utf-8")
    return path


def test_a_registered_format_is_validated_and_converted(tsv: None, tmp_path: Path) -> None:
    assert ".tsv" in readable_suffixes() and input_format("SET.TSV") is INPUT_FORMATS[".tsv"]
    path = _write(tmp_path / "菜谱.tsv", "query\treference_response", "家里有鸡蛋、西红柿\t西红柿炒鸡蛋", "1+1\t2")
    checked = CliRunner().invoke(app, ["validate", "--lang", "en", str(path)])
    assert checked.exit_code == 0, checked.output
    assert f"{path}: ok (excel-single-turn, 2 records, 0 errors, 0 warnings)" in checked.output
    out = tmp_path / "out.jsonl"
    converted = CliRunner().invoke(app, ["convert", "--lang", "en", str(path), "-o", str(out)])
    assert converted.exit_code == 0, converted.output
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["messages"] for r in records] == [
        [
            {"role": "user", "content": "家里有鸡蛋、西红柿"},
            {"role": "assistant", "reference_response": "西红柿炒鸡蛋", "responses": [{"parameters": {}}]},
        ],
        [
            {"role": "user", "content": "1+1"},
            {"role": "assistant", "reference_response": "2", "responses": [{"parameters": {}}]},
        ],
    ]
    assert [r["meta"]["source"]["rows"] for r in records] == [[2], [3]]  # placed like a sheet's rows


def test_the_rules_of_its_row_apply_at_their_places(tsv: None, tmp_path: Path) -> None:
    path = _write(tmp_path / "set.tsv", "query\tanswer", "1+1\t2", "\t3")
    result = CliRunner().invoke(app, ["validate", "--json", str(path)])
    assert result.exit_code == 1, result.output
    [report] = json.loads(result.output)["files"]
    assert report["format"] == "excel-single-turn"
    assert [(i["code"], i["sheet"], i["row"], i["column"]) for i in report["issues"]] == [
        ("alias_column", "set", 1, "B (answer)"),
        ("empty_text", "set", 3, "A (query)"),
    ]


def test_fix_leaves_a_format_without_a_repair_to_validate(tsv: None, tmp_path: Path) -> None:
    path = _write(tmp_path / "set.tsv", "query\treference_response", "1+1\t2")
    result = CliRunner().invoke(app, ["fix", "--lang", "en", str(path), "-o", str(tmp_path / "fixed.tsv")])
    assert result.exit_code == 0, result.output
    assert "could not be read for repair" in result.output
    assert not (tmp_path / "fixed.tsv").exists()


def test_unregistered_the_format_is_refused_again(tmp_path: Path) -> None:
    if ".tsv" in INPUT_FORMATS:
        pytest.skip("CONTRIBUTING's worked example is a row of the table: .tsv is read")
    path = _write(tmp_path / "set.tsv", "query\treference_response", "1+1\t2")
    result = CliRunner().invoke(app, ["validate", "--lang", "en", str(path)])
    assert result.exit_code == 1
    assert '"set.tsv" is a .tsv file; formatkit reads .xlsx, .xls, .jsonl and .csv.' in result.output
