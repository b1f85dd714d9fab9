"""export: canonical records to a readable .xlsx, text kept as text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openpyxl
from typer.testing import CliRunner

from formatkit import RecordDict, ResponseDict, export_excel
from formatkit.cli import app

SEED = Path(__file__).parents[2] / "fixtures" / "seed"
runner = CliRunner()


def _sheet(path: Path) -> list[dict[str, Any]]:
    sheet = openpyxl.load_workbook(path).active
    rows = list(sheet.iter_rows(values_only=True))
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def _record(content: str, **response: Any) -> RecordDict:
    extra: ResponseDict = response  # type: ignore[assignment]  # the response's result keys, as given
    return {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "问题"},
            {
                "role": "assistant",
                "reference_response": "答案",
                "responses": [{"parameters": {}, "content": content, **extra}],
            },
        ],
    }


def test_cli_export_seed_output_one_row_per_turn(tmp_path: Path) -> None:
    out = tmp_path / "out.xlsx"
    result = runner.invoke(app, ["export", str(SEED / "seed_output_multi_turn.jsonl"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = _sheet(out)
    assert [r["session_id"] for r in rows] == [0, 1, 2, 2]
    assert rows[2]["query"] == "3+1" and rows[2]["response"] == "999" and rows[2]["reference_response"] is None
    assert rows[3]["query"] == "3+2" and rows[3]["reference_response"] == "5"
    assert rows[3]["score"] == 2 and json.loads(rows[3]["usage"])["total_tokens"] == 48
    assert rows[1]["system_prompt"] == "请完成下面的计算题"


def test_text_that_looks_like_a_formula_stays_text(tmp_path: Path) -> None:
    out = tmp_path / "out.xlsx"
    export_excel([_record("=SUM(A1:A9)")], out)
    sheet = openpyxl.load_workbook(out).active
    cell = sheet["F2"]
    assert cell.value == "=SUM(A1:A9)" and cell.data_type == "s"


def test_long_and_control_character_text_is_made_safe(tmp_path: Path) -> None:
    out = tmp_path / "out.xlsx"
    export_excel([_record("好" * 40_000 + "\x00\x07")], out)
    [row] = _sheet(out)
    assert len(row["response"]) == 32_767 and row["response"].endswith("[truncated by formatkit]")


def test_several_samples_get_numbered_columns(tmp_path: Path) -> None:
    record = _record("A", score=1.0)
    record["messages"][-1]["responses"].append({"parameters": {}, "content": "B", "score": 0.0})
    out = tmp_path / "out.xlsx"
    export_excel([record], out)
    [row] = _sheet(out)
    assert (row["response"], row["score"], row["response_2"], row["score_2"]) == ("A", 1, "B", 0)


def test_cli_export_rejects_other_extensions_and_bad_input(tmp_path: Path) -> None:
    assert runner.invoke(app, ["export", str(SEED / "seed_output_multi_turn.jsonl"), "-o", "x.csv"]).exit_code == 2
    bad = Path(__file__).parents[2] / "fixtures" / "invalid" / "jsonl" / "invalid_role.jsonl"
    result = runner.invoke(app, ["export", str(bad), "-o", str(tmp_path / "x.xlsx")])
    assert result.exit_code == 1 and not (tmp_path / "x.xlsx").exists()
