"""Review of issue 19 items 5-7: a report's numbers must add up as a reader checks them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from formatkit.cli import app


def _record(sid: int, dataset: str, score: float) -> dict[str, Any]:
    response = {"content": "x", "model": "m", "score": score, "metric": "exact", "answer": "x"}
    return {
        "session_id": sid,
        "meta": {"dataset": dataset, "dimension": dataset},
        "messages": [
            {"role": "user", "content": f"q{sid}"},
            {"role": "assistant", "reference_response": "x", "responses": [response]},
        ],
    }


def test_the_overall_is_the_mean_of_exact_dimension_scores_not_of_rounded_ones(tmp_path: Path) -> None:
    # a third right in one dimension, all right in the other: (33.333… + 100) / 2 = 66.67 (not 66.66)
    records = [_record(0, "a", 1.0), _record(1, "a", 0.0), _record(2, "a", 0.0), _record(3, "b", 1.0)]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = CliRunner().invoke(app, ["report", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["dimensions"]["a"]["score"] == 33.33
    assert report["overall"] == 66.67
