"""Review of issue 19 items 5-7: a report's numbers must add up as a reader checks them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
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


def _judged(sid: int, model: str, score: float | None) -> dict[str, Any]:
    response: dict[str, Any] = {"content": "x", "model": model, "score": score, "metric": "judge"}
    if score is None:  # the judge replied, but no verdict could be read
        response["judge"] = {"status": "unparseable", "raw": "I cannot decide."}
    return {
        "session_id": sid,
        "meta": {"dataset": "qa"},
        "messages": [
            {"role": "user", "content": f"q{sid}"},
            {"role": "assistant", "reference_response": "x", "responses": [response]},
        ],
    }


def test_the_workbooks_leaderboard_shows_void_verdicts_beside_the_score(tmp_path: Path) -> None:
    path = tmp_path / "judged.jsonl"
    records = [_judged(0, "a", 1.0), _judged(1, "a", None), _judged(0, "b", 0.0), _judged(1, "b", 1.0)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    for extra, label, score in (([], "left out", 100), (["--void-as-zero"], "counted as 0", 50)):
        out = tmp_path / "r.xlsx"
        result = CliRunner().invoke(app, ["report", str(path), "--format", "xlsx", "-o", str(out), *extra])
        assert result.exit_code == 0, result.output
        rows = list(load_workbook(out)["Leaderboard"].iter_rows(values_only=True))
        head = rows[0]
        a, b = head.index(f"a void verdicts ({label})"), head.index(f"b void verdicts ({label})")
        qa = next(r for r in rows if r[1] == "qa")
        assert qa[head.index("a")] == score and qa[a] == 1 and qa[b] == 0
        overall = next(r for r in rows if r[0] == "overall")
        assert overall[a] == 1 and overall[b] == 0
