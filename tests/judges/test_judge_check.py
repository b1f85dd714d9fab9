"""``judge-check`` on fixtures whose figures were computed by hand (fixtures/judge_check, and small sets built
here): agreement, Cohen's κ (quadratic-weighted on a scale, unweighted for pairwise), the confusion matrix,
void verdicts, labels matching no record, per dataset, swap- and self-consistency, a panel."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from formatkit.cli import app
from scoring import judge_check

FIXTURES = Path(__file__).parents[2] / "fixtures" / "judge_check"
SCORED, LABELS = FIXTURES / "scored.jsonl", FIXTURES / "labels.jsonl"
runner = CliRunner()


def test_the_hand_computed_fixture() -> None:
    """Ten 0-2 verdicts against ten labels (one more record has a void verdict, one label no record).

    Confusion (rows judge, columns human): 0: [2, 1, 0], 1: [0, 2, 1], 2: [1, 1, 2]; margins 3/3/4 and 3/4/3.
    Quadratic weights (a−b)²/4: observed Σw·O = (0.25 + 0.25 + 0.25 + 1)/10 = 0.175; chance Σw·rᵢcⱼ/n² =
    (3·4·0.25 + 3·3·1 + 3·3·0.25 + 3·3·0.25 + 4·3·1 + 4·4·0.25)/100 = 0.325; κ = 1 − 0.175/0.325 = 6/13.
    judge − human = 0 0 0 0 +1 −1 −1 +2 0 0 against lengths 10..100: r = 25 / √(6.9 · 8250)."""
    result = runner.invoke(app, ["judge-check", str(SCORED), "--human", str(LABELS), "--json", "--skip-bad-labels"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["n"] == 10 and summary["agreement"] == 0.6
    assert summary["kappa"] == round(6 / 13, 4) and summary["kappa_weights"] == "quadratic"
    assert summary["confusion"] == {"0": {"0": 2, "1": 1}, "1": {"1": 2, "2": 1}, "2": {"0": 1, "1": 1, "2": 2}}
    assert summary["void"] == 1 and summary["labels"] == 12 and summary["unmatched"] == 1
    assert summary["length_correlation"] == round(25 / math.sqrt(6.9 * 8250), 4)
    low, high = summary["kappa_ci"]
    assert low < summary["kappa"] < high
    assert sorted(summary["by_dataset"]) == ["jokes", "recipes"]
    assert summary["by_dataset"]["jokes"]["void"] == 1 and summary["by_dataset"]["recipes"]["n"] == 5
    again = runner.invoke(app, ["judge-check", str(SCORED), "--human", str(LABELS), "--json", "--skip-bad-labels"])
    assert json.loads(again.stdout)["kappa_ci"] == [low, high]  # seeded: the same interval every time


def test_the_text_names_the_judge_the_figures_and_the_matrix() -> None:
    result = runner.invoke(app, ["judge-check", str(SCORED), "--human", str(LABELS), "--skip-bad-labels"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "12 human label(s), 1 matching no record, 1 bad label(s) skipped"
    assert lines[1] == "judge-a (Cohen's κ quadratic-weighted, 95% bootstrap interval)"
    assert lines[2].startswith("  overall: n 10, agreement 60.0%, κ 0.462 [")
    assert lines[4].split() == ["0", "2", "1", "0"]  # judge 0: human 0 twice, 1 once
    assert lines[-1].startswith("  recipes: n 5, agreement 60.0%")


def _pairwise(session: int, outcome: str, disagree: bool) -> dict[str, Any]:
    orders = [{"order": "model_first", "choice": "A+"}, {"order": "model_second", "choice": "A+"}]
    judge = {"metric": "pairwise", "model": "j", "status": "scored", "outcome": outcome, "orders": orders,
             "disagree": disagree}  # fmt: skip
    response = {"content": "x" * (session + 1), "score": 0.0, "metric": "pairwise", "judge": judge}
    return {"session_id": session, "messages": [{"role": "user", "content": "q"},
            {"role": "assistant", "reference_response": "r", "responses": [response]}]}  # fmt: skip


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def test_pairwise_is_unweighted_and_reports_the_swap_consistency(tmp_path: Path) -> None:
    """judge win, win, loss, tie against A, B, B, tie: agreement 3/4; margins judge 2/1/1, human 1/1/2
    (win/tie/loss); chance (2 + 1 + 2)/16; κ = (3/4 − 5/16)/(1 − 5/16) = 7/11. One pair of four flips
    with the order: swap consistency 3/4."""
    scored = _write(tmp_path / "s.jsonl", [_pairwise(0, "win", False), _pairwise(1, "win", True),
                                           _pairwise(2, "loss", False), _pairwise(3, "tie", False)])  # fmt: skip
    labels = _write(tmp_path / "l.jsonl", [{"session_id": i, "human": h} for i, h in enumerate(["A", "b", "B", "tie"])])
    summary = judge_check(scored, labels).to_dict()
    assert summary["agreement"] == 0.75 and summary["kappa"] == round(7 / 11, 4)
    assert summary["kappa_weights"] == "none" and summary["swap_consistency"] == 0.75
    assert summary["confusion"] == {"win": {"win": 1, "loss": 1}, "tie": {"tie": 1}, "loss": {"loss": 1}}


def _absolute(session: int, score: float, **judge: Any) -> dict[str, Any]:
    entry = {"metric": "judge", "model": "j", "status": "scored", "scale": "0-2", **judge}
    response = {"content": "x", "score": score, "metric": "judge", "judge": entry}
    return {"session_id": session, "messages": [{"role": "user", "content": "q"},
            {"role": "assistant", "reference_response": "r", "responses": [response]}]}  # fmt: skip


def test_a_panel_checks_each_judge_and_the_panel_and_repeats_give_self_consistency(tmp_path: Path) -> None:
    panel = [
        {"model": "a", "status": "scored", "score": 2, "repeats": [2, 2, 2]},
        {"model": "b", "status": "scored", "score": 0, "repeats": [0, 1, 0]},
    ]
    scored = _write(tmp_path / "s.jsonl", [_absolute(0, 1.0, panel=panel), _absolute(1, 2.0, panel=panel)])
    labels = _write(tmp_path / "l.jsonl", [{"session_id": 0, "human": 2}, {"session_id": 1, "human": 2}])
    summary = judge_check(scored, labels).to_dict()
    assert list(summary["judges"]) == ["a", "b", "panel"]
    assert summary["judge"] == "panel" and summary["agreement"] == 0.5  # the panel's 1 and 2 against 2 and 2
    assert summary["judges"]["a"]["agreement"] == 1.0 and summary["judges"]["b"]["agreement"] == 0.0
    assert summary["judges"]["a"]["self_consistency"] == 1.0 and summary["judges"]["b"]["self_consistency"] == 0.0


@pytest.mark.parametrize(("label", "says"), [({"session": 0, "human": 1}, '"session_id", "human"')])
def test_a_label_of_the_wrong_kind_is_bad_usage(tmp_path: Path, label: dict[str, Any], says: str) -> None:
    scored = _write(tmp_path / "s.jsonl", [_absolute(0, 1.0)])
    labels = _write(tmp_path / "l.jsonl", [label])
    result = runner.invoke(app, ["judge-check", str(scored), "--human", str(labels)])
    assert result.exit_code == 2 and says in result.output and "Traceback" not in result.output


def _both_orders(session: int, first: float, second: float) -> dict[str, Any]:
    """A comparison asked in both orders: its value for the model shown ``first``, and shown ``second``."""
    record = _pairwise(session, "win" if first + second > 0 else "loss" if first + second < 0 else "tie", False)
    judge = record["messages"][1]["responses"][0]["judge"]
    judge["orders"] = [{"order": "model_first", "value": first}, {"order": "model_second", "value": second}]
    judge["disagree"] = (first > 0) != (second > 0)
    return record


def test_position_and_length_bias_with_their_intervals(tmp_path: Path) -> None:
    """Eight comparisons in both orders: six flip, four of them toward the first position (the model won
    when shown first, lost when second), two toward the second: flip rate 6/8, lean (4 − 2)/8 = +0.25;
    each with a seeded bootstrap interval around it. The length correlation gets its interval too."""
    values = [(1, 1), (-1, -1), (1, -1), (1, -1), (1, -1), (1, -1), (-1, 1), (-1, 1)]
    scored = _write(tmp_path / "s.jsonl", [_both_orders(i, a, b) for i, (a, b) in enumerate(values)])
    humans = ["A", "B", "A", "B", "tie", "A", "B", "tie"]
    labels = _write(tmp_path / "l.jsonl", [{"session_id": i, "human": h} for i, h in enumerate(humans)])
    result = runner.invoke(app, ["judge-check", str(scored), "--human", str(labels), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    bias = summary["position_bias"]
    assert (bias["pairs"], bias["flipped"], bias["toward_first"], bias["toward_second"]) == (8, 6, 4, 2)
    assert bias["flip_rate"] == 0.75 and bias["lean"] == 0.25
    assert bias["flip_rate_ci"][0] < 0.75 < bias["flip_rate_ci"][1] <= 1
    assert -1 <= bias["lean_ci"][0] < 0.25 < bias["lean_ci"][1] <= 1
    assert summary["swap_consistency"] == 0.25
    low, high = summary["length_correlation_ci"]
    assert -1 <= low <= summary["length_correlation"] <= high <= 1
    text = runner.invoke(app, ["judge-check", str(scored), "--human", str(labels), "--lang", "en"]).stdout
    overall = text.splitlines()[1 + 1]
    assert "position bias: 6 of 8 flipped with the order (75.0% [" in overall
    assert "4 toward the first position, 2 toward the second (lean +0.25 [" in overall
    assert f"r(judge − human, length) {summary['length_correlation']:+.2f} [" in overall
    zh = runner.invoke(app, ["judge-check", str(scored), "--human", str(labels), "--lang", "zh"]).stdout
    assert "位置偏差：8 对中 6 对随顺序翻转（75.0% [" in zh and "4 对偏向第一位，2 对偏向第二位" in zh


def test_a_scale_judge_reports_no_position_bias() -> None:
    result = runner.invoke(app, ["judge-check", str(SCORED), "--human", str(LABELS), "--json", "--skip-bad-labels"])
    summary = json.loads(result.stdout)
    assert summary["position_bias"] is None
    assert (
        "position bias"
        not in runner.invoke(
            app, ["judge-check", str(SCORED), "--human", str(LABELS), "--skip-bad-labels", "--lang", "en"]
        ).stdout
    )
