"""``report --human LABELS``: each judged dataset shows its judge's κ with the labels beside its score (the
``judge-check`` figures), and a judge below ``--min-kappa`` is uncalibrated: its datasets are marked and
left out of the ranking, said in JSON, text (en, zh), Markdown, HTML and the workbook. On the fixture
fixtures/judge_check (judge-a: κ 6/13 ≈ 0.462 on ten labels; see tests/judges/test_judge_check.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from typer.testing import CliRunner

from formatkit.cli import app

FIXTURES = Path(__file__).parents[2] / "fixtures" / "judge_check"
SCORED, LABELS = FIXTURES / "scored.jsonl", FIXTURES / "labels.jsonl"
runner = CliRunner()


def _quiz(model: str, scores: list[float]) -> list[dict[str, Any]]:
    """A dataset no judge scored (exact match): it stays in the ranking whatever the judge."""
    out = []
    for i, score in enumerate(scores):
        response = {"content": "a", "model": model, "score": score, "metric": "exact_match"}
        turn = {"role": "assistant", "reference_response": "a", "responses": [response]}
        messages = [{"role": "user", "content": "q"}, turn]
        out.append({"session_id": 500 + i, "messages": messages, "meta": {"dataset": "quiz"}})
    return out


def _models(tmp_path: Path) -> list[str]:
    """Two models: ``m`` (the fixture, with a quiz) and ``m2`` (the fixture's records answered by m2)."""
    lines = SCORED.read_text(encoding="utf-8").splitlines()
    first = tmp_path / "m.jsonl"
    first.write_text("\n".join([*lines, *(json.dumps(r) for r in _quiz("m", [1.0] * 8))]) + "\n", encoding="utf-8")
    second = tmp_path / "m2.jsonl"
    other = [line.replace('"model": "m"', '"model": "m2"') for line in lines]
    second.write_text("\n".join([*other, *(json.dumps(r) for r in _quiz("m2", [0.0] * 8))]) + "\n", encoding="utf-8")
    return [str(first), str(second)]


def _report(paths: list[str], *extra: str) -> Any:
    result = runner.invoke(app, ["report", *paths, "--human", str(LABELS), *extra])
    assert result.exit_code == 0, result.output
    return result


def test_each_judged_dataset_shows_its_judges_kappa_beside_its_score() -> None:
    summary = json.loads(_report([str(SCORED)], "--format", "json").stdout)
    recipes = summary["datasets"]["recipes"]
    assert recipes["judge_kappa"]["judge"] == "judge-a" and recipes["judge_kappa"]["n"] == 5
    assert recipes["judge_kappa"]["judge_overall"]["kappa"] == round(6 / 13, 4)
    low, high = recipes["judge_kappa"]["judge_overall"]["kappa_ci"]
    assert low < 6 / 13 < high
    assert recipes["judge_kappa"]["calibrated"] is True and recipes["judge_kappa"]["ranked"] is True
    assert summary["models"]["m"]["datasets"]["jokes"]["judge_kappa"]["n"] == 5
    assert summary["judge_calibration"]["judges"]["judge-a"]["calibrated"] is True
    assert summary["judge_calibration"]["left_out_of_ranking"] == []
    text = _report([str(SCORED)], "--lang", "en").stdout
    assert "judge judge-a: Cohen's κ with people 0.462 [" in text and "calibrated (κ ≥ 0.4)" in text
    assert "recipes: judged by judge-a, κ 0.167 [" in text


def test_without_labels_the_report_says_nothing_of_kappa() -> None:
    result = runner.invoke(app, ["report", str(SCORED), "--format", "json"])
    summary = json.loads(result.stdout)
    assert "judge_calibration" not in summary and "judge_kappa" not in summary["datasets"]["recipes"]


def test_a_judge_below_min_kappa_is_uncalibrated_and_its_datasets_leave_the_ranking(tmp_path: Path) -> None:
    paths = _models(tmp_path)
    calibrated = json.loads(_report(paths, "--format", "json").stdout)
    assert {p["scope"] for p in calibrated["pairs"]} == {"recipes", "jokes", "quiz", "overall"}
    summary = json.loads(_report(paths, "--format", "json", "--min-kappa", "0.5").stdout)
    assert summary["judge_calibration"]["uncalibrated"] == ["judge-a"]
    assert summary["judge_calibration"]["left_out_of_ranking"] == ["jokes", "recipes"]
    assert {p["scope"] for p in summary["pairs"]} == {"quiz"}  # the ranking on the quiz alone
    assert summary["datasets"]["recipes"]["judge_kappa"]["ranked"] is False
    assert summary["datasets"]["recipes"]["score"] == calibrated["datasets"]["recipes"]["score"]  # still shown
    text = _report(paths, "--min-kappa", "0.5", "--lang", "en").stdout
    assert "UNCALIBRATED (κ below 0.5, or not defined)" in text
    assert "recipes: judged by judge-a, κ 0.167 [" in text and "; left out of the ranking" in text
    assert "the ranking (ratings, tiers, pairs) leaves out the datasets of uncalibrated judges: jokes, recipes" in text
    zh = _report(paths, "--min-kappa", "0.5", "--lang", "zh").stdout
    assert "未校准（κ 低于 0.5 或无法计算）" in zh
    assert "排名（评分、层级、成对比较）不含未校准裁判的数据集：jokes, recipes" in zh
    md = _report(paths, "--min-kappa", "0.5", "--format", "md").stdout
    assert "UNCALIBRATED" in md
    html = tmp_path / "r.html"
    _report(paths, "--min-kappa", "0.5", "-o", str(html))
    assert "UNCALIBRATED" in html.read_text(encoding="utf-8")
    book = tmp_path / "r.xlsx"
    _report(paths, "--min-kappa", "0.5", "-o", str(book))
    cells = [str(c.value) for ws in load_workbook(book).worksheets for row in ws.iter_rows() for c in row if c.value]
    assert any("UNCALIBRATED" in c for c in cells)
