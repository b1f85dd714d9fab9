"""export → edit a cell → score: an Excel and a jsonl input round-trip with every field kept; cells read
back exactly as written (formula-looking text, ``_x0041_``, ``\\r\\n``, control characters); sheets readable."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from roundtrip import records_without_source
from typer.testing import CliRunner

from formatkit import RecordDict, export_excel, iter_dicts, validate_file
from formatkit.cli import app

FIXTURES = Path(__file__).parent.parent.parent / "fixtures"
runner = CliRunner()


def _invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


_records = records_without_source


def _with_model(source: Path, tmp_path: Path) -> Path:
    """A jsonl single-turn set with result keys: model, usage (as collected elsewhere), the last reply wrong."""
    lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    for i, line in enumerate(lines):
        line["model"] = "collected-model"
        line["usage"] = {"prompt_tokens": 10 + i, "completion_tokens": 5, "total_tokens": 15 + i}
    lines[-1]["response"] = "我不知道"  # a wrong reply, for the reviewer to correct
    path = tmp_path / "collected.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(FIXTURES / "responses" / "scored_sheet.xlsx", id="excel"),
        pytest.param(FIXTURES / "valid" / "scored_single_turn.jsonl", id="jsonl"),
        # three samples per record, a failed inference (error, no reply), an empty reply, meta labels
        pytest.param(FIXTURES / "responses" / "mmlu_pro.jsonl", id="samples-errors-empty-replies"),
    ],
)
def test_export_edit_score_round_trips(source: Path, tmp_path: Path) -> None:
    if source.name == "scored_single_turn.jsonl":
        source = _with_model(source, tmp_path)
    first, exported, second = tmp_path / "first.jsonl", tmp_path / "exported.xlsx", tmp_path / "second.jsonl"
    _invoke("score", str(source), "-o", str(first))
    _invoke("export", str(first), "-o", str(exported))
    assert validate_file(exported, mode="scored").valid

    # Unedited, the exported sheet scores to exactly the same records.
    _invoke("score", str(exported), "-o", str(second))
    before = _records(first)
    assert _records(second) == before

    # Edit one response cell, as a reviewer would (the reply becomes the reference), and score again:
    # only that response changes.
    book = openpyxl.load_workbook(exported)
    sheet = book.active
    header = [c.value for c in sheet[1]]
    row = sheet.max_row
    reference = sheet.cell(row=row, column=header.index("reference_response") + 1).value
    sheet.cell(row=row, column=header.index("response") + 1, value=f"答案：{reference}")
    book.save(exported)
    _invoke("score", str(exported), "-o", str(second))
    after = _records(second)
    assert after[:-1] == before[:-1]
    edited, original = after[-1]["messages"][-1]["responses"][0], before[-1]["messages"][-1]["responses"][0]
    assert edited["content"] == f"答案：{reference}" != original["content"]
    assert edited["score"] == 1.0 and original["score"] < 1.0
    kept = ("parameters", "usage", "model")
    assert {k: edited.get(k) for k in kept} == {k: original.get(k) for k in kept}
    assert after[-1]["messages"][-1]["reference_response"] == before[-1]["messages"][-1]["reference_response"]


def test_export_keeps_references_of_an_excel_input(tmp_path: Path) -> None:
    out = tmp_path / "out.xlsx"
    output = _invoke("export", str(FIXTURES / "seed" / "seed_excel_single_turn.xlsx"), "-o", str(out))
    assert "infer-eval mode" in output
    rows = list(openpyxl.load_workbook(out).active.iter_rows(values_only=True))
    references = [r[rows[0].index("reference_response")] for r in rows[1:]]
    assert all(references) and references[0].startswith("那可以做一道经典的西红柿炒鸡蛋")
    assert validate_file(out).valid  # no unknown columns


def test_export_mode_option_reads_the_input_in_that_mode(tmp_path: Path) -> None:
    out = tmp_path / "out.xlsx"
    _invoke("export", str(FIXTURES / "seed" / "seed_excel_single_turn.xlsx"), "-o", str(out), "--mode", "infer-only")
    rows = list(openpyxl.load_workbook(out).active.iter_rows(values_only=True))
    assert all(r[rows[0].index("reference_response")] is None for r in rows[1:])


def test_jsonl_result_keys_are_carried_into_the_response(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    line = {
        "prompt": "1+1",
        "answer": "2",
        "response": "2",
        "score": 1,
        "analysis": "ok",
        "error": None,
        "usage": {"total_tokens": 3},
        "endpoint_id": "ep-1",
    }
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    [record] = iter_dicts(path, mode="scored")
    response = record["messages"][-1]["responses"][0]
    assert (response["score"], response["analysis"], response["usage"], response["model"]) == (
        1.0,
        "ok",
        {"total_tokens": 3},
        "ep-1",
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        pytest.param("score", "high", id="score-not-a-number"),
        pytest.param("usage", "[1, 2]", id="usage-not-an-object"),
    ],
)
def test_a_result_value_of_the_wrong_type_is_an_issue_at_its_place(tmp_path: Path, key: str, value: str) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"prompt": "q", "answer": "a", "response": "a", key: value}) + "\n", encoding="utf-8")
    report = validate_file(path, mode="scored")
    assert [(i.code, i.line, i.field) for i in report.issues] == [("invalid_type", 1, key)]


TRICKY = [
    "=SUM(A1:A9)",
    "+1 is not a formula",
    "-2",
    "@mention",
    "_x0041_ stays as written",
    "line one\r\nline two",
    "bell \x07 and escape \x1b",
    "中文，全角标点：不转义",
]


def test_cells_read_back_exactly_as_written(tmp_path: Path) -> None:
    records: list[RecordDict] = [
        {
            "session_id": i,
            "messages": [
                {"role": "user", "content": f"q{i}"},
                {"role": "assistant", "reference_response": text, "responses": [{"parameters": {}, "content": text}]},
            ],
        }
        for i, text in enumerate(TRICKY)
    ]
    out = tmp_path / "tricky.xlsx"
    export_excel(records, out)
    sheet = openpyxl.load_workbook(out).active
    assert all(cell.data_type == "s" for cell in sheet["F"][1:])  # never a formula
    read = list(iter_dicts(out, mode="scored"))  # formatkit's own reader (calamine) decodes the escapes
    assert [r["messages"][-1]["responses"][0]["content"] for r in read] == TRICKY
    assert [r["messages"][-1]["reference_response"] for r in read] == TRICKY


def test_sheet_is_readable(tmp_path: Path) -> None:
    record: RecordDict = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "问题"},
            {
                "role": "assistant",
                "reference_response": "B",
                "responses": [
                    {"parameters": {}, "content": "一\n二\n三\n四", "score": 1.0},
                    {"parameters": {}, "content": "x", "score": 0.5},
                ],
            },
        ],
    }
    out = tmp_path / "out.xlsx"
    export_excel([record], out)
    sheet = openpyxl.load_workbook(out).active
    header = [c.value for c in sheet[1]]
    assert sheet.freeze_panes == "A2" and sheet.auto_filter.ref and all(c.font.b for c in sheet[1])
    assert sheet.row_dimensions[2].height >= 4 * 15  # four lines show
    assert sheet["F2"].alignment.wrap_text
    score, score_2 = sheet.cell(2, header.index("score") + 1), sheet.cell(2, header.index("score_2") + 1)
    assert (score.value, score.fill.fgColor.rgb[-6:]) == (1, "C6EFCE")  # right: green, a number
    assert score_2.fill.fgColor.rgb[-6:] == "FFEB9C"  # partial: yellow
