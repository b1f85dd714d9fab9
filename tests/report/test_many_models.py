"""Many models in one report (#31): ratings, pairs corrected for many comparisons, what a dataset can
detect. The statistics are checked against computations made here by other means: Bradley–Terry by
Hunter's MM algorithm (the report fits by Newton's method), t quantiles by integrating the density, the
detectable difference by the closed-form power calculation, and the corrected intervals' coverage by
simulation (slow)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any, cast

import pytest
from typer.testing import CliRunner

from formatkit import RecordDict
from formatkit.cli import app
from scoring._report.figures.aggregate import aggregate
from scoring._report.figures.distributions import t_cdf, t_quantile
from scoring._report.figures.multiple import holm, pair_tests, paired_moments
from scoring._report.figures.power import min_detectable_difference

runner = CliRunner()


def _record(i: int, score: float, model: str, dataset: str = "set", **response: Any) -> RecordDict:
    answer = {"parameters": {}, "content": f"answer {i}", "model": model, "score": score, "analysis": "rule"}
    answer.update(response)
    return cast(
        RecordDict,
        {
            "session_id": i,
            "messages": [
                {"role": "user", "content": f"question {i}"},
                {"role": "assistant", "reference_response": "r", "responses": [answer]},
            ],
            "meta": {"dataset": dataset},
        },
    )


def _write(path: Path, records: list[RecordDict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _report_json(paths: list[Path]) -> dict[str, Any]:
    result = runner.invoke(app, ["report", *map(str, paths), "--format", "json"])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def _models(tmp_path: Path, scores: dict[str, list[float]], dataset: str = "set") -> list[Path]:
    return [
        _write(tmp_path / f"{name}.jsonl", [_record(i, s, name, dataset) for i, s in enumerate(values)])
        for name, values in scores.items()
    ]


# --- reference computations ---------------------------------------------------------------------------------


def _mm_fit(wins: list[list[float]], prior: float = 1.0, rounds: int = 20000) -> list[float]:
    """Hunter's MM algorithm for Bradley–Terry (ties already split into halves), with ``prior`` battles
    between every two players split evenly; log-strengths centred on 0."""
    n = len(wins)
    w = [[wins[i][j] + (prior / 2 if i != j else 0.0) for j in range(n)] for i in range(n)]
    p = [1.0] * n
    for _ in range(rounds):
        new = []
        for i in range(n):
            won = sum(w[i])
            denominator = sum((w[i][j] + w[j][i]) / (p[i] + p[j]) for j in range(n) if j != i)
            new.append(won / denominator)
        scale = math.exp(sum(math.log(v) for v in new) / n)
        new = [v / scale for v in new]
        if max(abs(a - b) for a, b in zip(new, p, strict=True)) < 1e-13:
            p = new
            break
        p = new
    logs = [math.log(v) for v in p]
    mean = sum(logs) / n
    return [v - mean for v in logs]


def _t_density(x: float, df: float) -> float:
    front = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    return float(front * (1 + x * x / df) ** (-(df + 1) / 2))


def _t_quantile_by_integration(p: float, df: float) -> float:
    """The t quantile from Simpson's rule on the density (0..x) and a bisection."""

    def cdf(x: float) -> float:
        steps = 4000
        h = x / steps
        total = _t_density(0, df) + _t_density(x, df)
        total += sum((4 if k % 2 else 2) * _t_density(k * h, df) for k in range(1, steps))
        return 0.5 + total * h / 3

    low, high = 0.0, 60.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if cdf(mid) < p else (low, mid)
    return (low + high) / 2


# --- the statistics ---------------------------------------------------------------------------------------


def test_t_distribution_matches_published_table_values() -> None:
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-4)
    assert t_quantile(0.975, 10) == pytest.approx(2.228139, abs=1e-6)
    assert t_quantile(0.80, 30) == pytest.approx(0.8538, abs=1e-4)
    assert t_cdf(2.0, 5) == pytest.approx(0.949030, abs=1e-6)
    assert t_quantile(0.975, 12) == pytest.approx(_t_quantile_by_integration(0.975, 12), abs=1e-6)


def test_holm_adjusts_step_down_and_stays_monotone() -> None:
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


@pytest.mark.parametrize("n", [8, 40, 400])
def test_detectable_difference_is_the_closed_form_power_calculation(n: int) -> None:
    sd = 0.45
    factor = _t_quantile_by_integration(0.975, n - 1) + _t_quantile_by_integration(0.80, n - 1)
    assert min_detectable_difference(n, sd) == pytest.approx(100 * factor * sd / math.sqrt(n), abs=0.01)
    if n >= 400:  # the normal closed form (1.96 + 0.84) sd / sqrt(n)
        assert min_detectable_difference(n, sd) == pytest.approx(100 * 2.8016 * sd / math.sqrt(n), rel=0.005)


def test_a_dataset_reports_the_detectable_difference_of_its_paired_variance(tmp_path: Path) -> None:
    rng = random.Random(7)
    scores = {m: [float(rng.random() < p) for _ in range(40)] for m, p in (("a", 0.7), ("b", 0.6))}
    data = _report_json(_models(tmp_path, scores))
    diffs = [x - y for x, y in zip(scores["a"], scores["b"], strict=True)]
    n, _, sd, _ = paired_moments(diffs)
    # the smoothed sd is the plain one with half a record at −1 and +1 (one record more in all)
    plain = math.sqrt(sum((d - sum(diffs) / 40) ** 2 for d in diffs) / 39)
    assert sd == pytest.approx(plain, rel=0.05)
    factor = _t_quantile_by_integration(0.975, 39) + _t_quantile_by_integration(0.80, 39)
    expected = 100 * factor * sd / math.sqrt(n)
    assert data["power"]["set"]["min_detectable_difference"] == pytest.approx(expected, abs=0.01)
    assert data["datasets"]["set"]["min_detectable_difference"] == data["power"]["set"]["min_detectable_difference"]
    assert data["models"]["b"]["datasets"]["set"]["min_detectable_difference"] == pytest.approx(expected, abs=0.01)


def test_ratings_match_an_independent_maximum_likelihood_fit(tmp_path: Path) -> None:
    rng = random.Random(31)
    strength = {"m1": 0.85, "m2": 0.7, "m3": 0.55, "m4": 0.5, "m5": 0.3}
    scores = {m: [float(rng.random() < p) for _ in range(120)] for m, p in strength.items()}
    data = _report_json(_models(tmp_path, scores))
    names = list(strength)
    wins = [[0.0] * len(names) for _ in names]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j:
                wins[i][j] = sum((1 + x - y) / 2 for x, y in zip(scores[a], scores[b], strict=True))
    expected = _mm_fit(wins)
    assert data["ratings_method"]["scale"] == "logit"
    for name, rating in zip(names, expected, strict=True):
        got = data["ratings"][name]
        assert got["rating"] == pytest.approx(rating, abs=0.01)
        assert got["ci"][0] <= got["rating"] <= got["ci"][1] and got["ci"][1] - got["ci"][0] > 0.05
    order = sorted(names, key=lambda m: -data["ratings"][m]["rating"])
    assert order[0] == "m1" and order[-1] == "m5"


def test_pairwise_verdicts_rate_models_against_the_reference_as_an_anchor(tmp_path: Path) -> None:
    """CompassBench verdicts: win 1, tie ½, loss 0 for the model against the reference answer."""
    outcome = {1.0: "win", 0.0: "tie", -1.0: "loss"}
    plans = {"strong": [1.0] * 14 + [0.0] * 4 + [-1.0] * 2, "weak": [1.0] * 4 + [0.0] * 4 + [-1.0] * 12}
    paths = []
    for name, values in plans.items():
        records = [
            _record(
                i,
                v,
                name,
                "writing",
                metric="pairwise",
                judge={"metric": "pairwise", "status": "scored", "outcome": outcome[v], "against": "reference answer"},
            )
            for i, v in enumerate(values)
        ]
        paths.append(_write(tmp_path / f"{name}.jsonl", records))
    data = _report_json(paths)
    assert set(data["ratings"]) == {"strong", "weak"} and set(data["rating_anchors"]) == {"reference answer"}
    # the reference is the only opponent: players strong, weak, reference; wins as the verdicts give them
    strong_wins = 14 + 2.0
    weak_wins = 4 + 2.0
    wins = [[0.0, 0.0, strong_wins], [0.0, 0.0, weak_wins], [20 - strong_wins, 20 - weak_wins, 0.0]]
    fitted = _mm_fit(wins)
    centre = (fitted[0] + fitted[1]) / 2
    assert data["ratings"]["strong"]["rating"] == pytest.approx(fitted[0] - centre, abs=0.01)
    assert data["rating_anchors"]["reference answer"]["rating"] == pytest.approx(fitted[2] - centre, abs=0.01)
    assert data["ratings_method"]["battles"] == {"judge": 40}


def test_every_pair_has_a_corrected_verdict(tmp_path: Path) -> None:
    rng = random.Random(3)
    scores = {m: [float(rng.random() < p) for _ in range(300)] for m, p in (("a", 0.9), ("b", 0.5), ("c", 0.48))}
    data = _report_json(_models(tmp_path, scores))
    pairs = {(p["a"], p["b"]): p for p in data["pairs"] if p["scope"] == "set"}
    assert set(pairs) == {("a", "b"), ("a", "c"), ("b", "c")}
    for p in pairs.values():
        assert set(p) >= {"a", "b", "difference", "ci", "p_adjusted", "distinguishable"} and p["family"] == 3
        assert p["p_adjusted"] >= p["p"]
    assert pairs[("a", "b")]["distinguishable"] and pairs[("a", "c")]["distinguishable"]
    assert not pairs[("b", "c")]["distinguishable"] and pairs[("b", "c")]["verdict"] == "set too small to tell"


def test_a_ten_point_lead_on_forty_questions_is_too_small_to_tell(tmp_path: Path) -> None:
    # 40 questions, a right on 24, b on 20: a 10-point lead the set cannot detect
    a = [1.0] * 24 + [0.0] * 16
    b = [1.0] * 20 + [0.0] * 20
    random.Random(1).shuffle(b)
    data = _report_json(_models(tmp_path, {"a": a, "b": b}))
    pair = data["pairs"][0]
    assert pair["difference"] == 10.0 and not pair["distinguishable"]
    assert data["power"]["set"]["min_detectable_difference"] > 10 and pair["verdict"] == "set too small to tell"
    text = runner.invoke(app, ["report", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]).stdout
    assert "set too small to tell" in text and "What each dataset can tell" in text


def test_ten_models_rank_in_one_readable_table(tmp_path: Path) -> None:
    rng = random.Random(10)
    scores = {f"model-{k:02d}": [float(rng.random() < 0.3 + 0.06 * k) for _ in range(200)] for k in range(10)}
    paths = _models(tmp_path, scores)
    data = _report_json(paths)
    assert len(data["ratings"]) == 10 and len([p for p in data["pairs"] if p["scope"] == "set"]) == 45
    text = runner.invoke(app, ["report", *map(str, paths)]).stdout
    ranking = text.split("Ranking (")[1].split("\n\n")[1].splitlines()
    assert len(ranking) == 2 + 10  # head, rule, one line per model
    assert max(len(line) for line in ranking) < 160
    md = runner.invoke(app, ["report", *map(str, paths), "--format", "md"]).stdout
    assert "### Ranking" in md and "### Pairs on set" in md


def _simulated_family_coverage(rounds: int, seed: int) -> float:
    rng = random.Random(seed)
    truth = {"a": 0.75, "b": 0.7, "c": 0.6, "d": 0.58, "e": 0.4}
    covered = 0
    for _ in range(rounds):
        n = 80
        aggregates = {
            m: aggregate([_record(i, float(rng.random() < p), m) for i in range(n)]) for m, p in truth.items()
        }
        tests = pair_tests(aggregates)
        covered += all(
            t.interval is not None and t.interval.low <= 100 * (truth[t.a] - truth[t.b]) <= t.interval.high
            for t in tests
        )
    return covered / rounds


@pytest.mark.slow
def test_corrected_intervals_cover_every_true_difference_together() -> None:
    """Family-wise: all ten intervals of five models hold their true differences at once, in at least
    93 % of 400 simulated reports (nominal 95 %)."""
    assert _simulated_family_coverage(400, 20261127) >= 0.93


def test_the_workbook_has_ranking_pairs_power_and_flips_with_rationale_and_diff(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    a = [_record(i, 1.0, "a", content="答案是北京市") for i in range(3)]
    b = [_record(i, 0.0, "b", content="答案是上海市") for i in range(3)]
    c = [_record(i, float(i % 2), "c") for i in range(3)]
    paths = [_write(tmp_path / f"{n}.jsonl", r) for n, r in (("a", a), ("b", b), ("c", c))]
    out = tmp_path / "r.xlsx"
    assert runner.invoke(app, ["report", *map(str, paths), "--format", "xlsx", "-o", str(out)]).exit_code == 0
    book = load_workbook(out, read_only=True)
    assert {"Ranking", "Pairs", "Power", "Flips"} <= set(book.sheetnames)
    ranking = list(book["Ranking"].iter_rows(values_only=True))
    assert [r[2] for r in ranking[1:]] == ["a", "c", "b"]
    assert [r[1] for r in ranking[1:]] == [1, 1, 1]  # three records separate no one: one tier, one rank
    pairs = list(book["Pairs"].iter_rows(values_only=True))
    assert len(pairs) == 1 + 3 and pairs[0][8] == "p adjusted"
    flips = list(book["Flips"].iter_rows(values_only=True))
    a_over_b = [r for r in flips[1:] if r[:2] == ("a", "b")]
    assert len(a_over_b) == 3 and a_over_b[0][8] == "rule" and a_over_b[0][10] == "答案是[-上海-]{+北京+}市"
    assert flips[1][:2] == ("a", "c")  # the best-rated two first (a, c, then b)


def test_a_verdict_against_another_models_file_is_a_battle_between_the_two(tmp_path: Path) -> None:
    """`score --metric pairwise --against b.jsonl` writes `against: response in b.jsonl (...)`: when the
    report reads b.jsonl too, the verdicts rate a against b directly (no anchor)."""
    b_path = _write(tmp_path / "b.jsonl", [_record(i, float(i % 2), "b", "writing") for i in range(10)])
    outcome = {1.0: "win", 0.0: "tie", -1.0: "loss"}
    values = [1.0] * 7 + [0.0] * 2 + [-1.0]
    against = f"response in {b_path}"
    records = [
        _record(
            i,
            v,
            "a",
            "duel",
            metric="pairwise",
            judge={
                "metric": "pairwise",
                "status": "scored",
                "outcome": outcome[v],
                "against": f"{against} (session_id {i!r}, response 0)",
            },
        )
        for i, v in enumerate(values)
    ]
    a_path = _write(tmp_path / "a.jsonl", records)
    data = _report_json([a_path, b_path])
    assert data["rating_anchors"] == {} and data["ratings_method"]["battles"] == {"judge": 10}
    wins = [[0.0, 7 + 1.0], [10 - 8.0, 0.0]]
    expected = _mm_fit(wins)
    assert data["ratings"]["a"]["rating"] == pytest.approx(expected[0], abs=0.01)
