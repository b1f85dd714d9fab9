"""The leaderboard's Δ columns (HTML and workbook) are differences of the unrounded scores (#40): 1 of 3 right
(33.33) against 2 of 3 (66.67) is a difference of 33.33, not the 33.34 of the rounded cells."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner

from formatkit.cli import app

runner = CliRunner()


def _scored(tmp_path: Path, model: str, right: int) -> Path:
    source = tmp_path / f"{model}.jsonl"
    lines = []
    for i in range(3):
        reply = "巴黎" if i < right else "里昂"
        target = {"role": "assistant", "reference_response": "巴黎", "responses": [{"content": reply, "model": model}]}
        record = {"session_id": i, "messages": [{"role": "user", "content": f"法国的首都？{i}"}, target]}
        lines.append(json.dumps({**record, "meta": {"dataset": "capitals"}}, ensure_ascii=False))
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / f"{model}.scored.jsonl"
    result = runner.invoke(app, ["score", str(source), "-o", str(out), "--metric", "exact"])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture()
def two(tmp_path: Path) -> list[str]:
    return [str(_scored(tmp_path, "m-a", 1)), str(_scored(tmp_path, "m-b", 2))]


def test_the_workbooks_deltas_are_unrounded(two: list[str], tmp_path: Path) -> None:
    out = tmp_path / "r.xlsx"
    assert runner.invoke(app, ["report", *two, "-o", str(out)]).exit_code == 0
    rows = list(load_workbook(out, read_only=True)["Leaderboard"].iter_rows(values_only=True))
    overall = next(r for r in rows if r[0] == "overall")
    assert (overall[3], overall[6]) == (33.33, 66.67)  # the cells, rounded
    assert overall[-1] == pytest.approx(100 / 3, abs=1e-4)  # Δ from the exact scores, not 33.34


def test_the_pages_deltas_are_unrounded(two: list[str], tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    assert runner.invoke(app, ["report", *two, "-o", str(out)]).exit_code == 0
    page = out.read_text(encoding="utf-8")
    assert "+33.33" in page and "+33.34" not in page
