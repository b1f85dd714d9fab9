"""Rankings that claim only what the data supports (issue 40 item 5): tiers and shared ranks, one procedure
for the corrected interval and the verdict, differences from unrounded scores, the detectable difference
within the scale, the leaderboard and the ranking disagreeing in words, and how many more questions would
separate two adjacent tiers. Through the CLI on fixture files; the property over random score tables
through the library (a CLI run per example would take minutes)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook
from typer.testing import CliRunner

from formatkit import RecordDict
from formatkit.cli import app
from scoring._report.figures.aggregate import aggregate
from scoring._report.figures.multiple import ALPHA, pair_tests

runner = CliRunner()


def _record(i: int, score: float, model: str, dataset: str = "set", dimension: str | None = None) -> RecordDict:
    answer = {"parameters": {}, "content": f"answer {i}", "model": model, "score": score, "analysis": "rule"}
    meta: dict[str, Any] = {"dataset": dataset}
    if dimension:
        meta["dimension"] = dimension
    return cast(
        RecordDict,
        {
            "session_id": f"{dataset}-{i}",
            "messages": [
                {"role": "user", "content": f"question {dataset} {i}"},
                {"role": "assistant", "reference_response": "r", "responses": [answer]},
            ],
            "meta": meta,
        },
    )


def _write(path: Path, records: list[RecordDict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _models(tmp_path: Path, scores: dict[str, list[float]]) -> list[Path]:
    return [
        _write(tmp_path / f"{name}.jsonl", [_record(i, s, name) for i, s in enumerate(values)])
        for name, values in scores.items()
    ]


def _report(paths: list[Path], fmt: str = "json", *more: str) -> str:
    result = runner.invoke(app, ["report", *map(str, paths), "--format", fmt, *more])
    assert result.exit_code == 0, result.output
    return result.stdout


def _bits(rng: random.Random, p: float, n: int) -> list[float]:
    return [float(rng.random() < p) for _ in range(n)]


def test_two_models_with_identical_results_share_a_rank(tmp_path: Path) -> None:
    """The issue's finding: identical results got ranks 1 and 2. ``twin`` answers exactly as ``best``; ``weak``
    is far behind on 200 questions: two tiers, ranks 1, 1, 3."""
    rng = random.Random(40)
    best = _bits(rng, 0.9, 200)
    paths = _models(tmp_path, {"best": best, "weak": _bits(rng, 0.3, 200), "twin": list(best)})
    data = json.loads(_report(paths))
    ranks = {name: r["rank"] for name, r in data["ratings"].items()}
    assert ranks == {"best": 1, "twin": 1, "weak": 3}
    assert [t["models"] for t in data["tiers"]] == [["best", "twin"], ["weak"]]
    assert data["tiers"][0]["more_questions"] == 0  # the tiers are already separated
    text = _report(paths, "text")
    assert "Tiers" in text and "best twin" in text and "already separated" in text
    out = tmp_path / "r.xlsx"
    _report(paths, "xlsx", "-o", str(out))
    book = load_workbook(out, read_only=True)
    ranking = list(book["Ranking"].iter_rows(values_only=True))
    assert [(r[1], r[2]) for r in ranking[1:4]] == [(1, "best"), (1, "twin"), (3, "weak")]
    tiers = list(book["Tiers"].iter_rows(values_only=True))
    assert tiers[1][:2] == (1, "best twin") and tiers[2][:2] == (3, "weak")


def test_identical_results_cannot_be_separated_by_more_questions(tmp_path: Path) -> None:
    same = _bits(random.Random(1), 0.6, 50)
    data = json.loads(_report(_models(tmp_path, {"a": same, "b": list(same), "c": [0.0] * 50})))
    assert data["ratings"]["a"]["rank"] == data["ratings"]["b"]["rank"] == 1
    pair = next(p for p in data["pairs"] if {p["a"], p["b"]} == {"a", "b"})
    assert pair["difference"] == 0 and not pair["distinguishable"]


def test_more_questions_to_separate_adjacent_tiers_do_separate_them(tmp_path: Path) -> None:
    """``a`` is shown ahead of ``c``, ``b`` is told apart from neither: ranks 1, 1, 2. The closest pair of the
    two tiers (b, c) is not separated yet; the report says about how many more questions would, and the same
    answers repeated to that many questions (same gaps, same spread) do separate it."""
    rng = random.Random(2)
    scores = {name: _bits(rng, p, 80) for name, p in (("a", 0.75), ("b", 0.6), ("c", 0.45))}
    data = json.loads(_report(_models(tmp_path, scores)))
    assert [(t["rank"], t["models"]) for t in data["tiers"]] == [(1, ["a", "b"]), (2, ["c"])]
    more = data["tiers"][0]["more_questions"]
    assert data["tiers"][0]["next_pair"] == ["b", "c"] and more > 0
    assert f"about {more} more" in _report(_models(tmp_path, scores), "text")

    def b_c(times: int) -> bool:
        tests = pair_tests(_aggregates({name: values * times for name, values in scores.items()}))
        return next(t for t in tests if (t.a, t.b) == ("b", "c")).distinguishable

    times = -(-(80 + more) // 80)  # enough copies for 80 + more questions
    assert not b_c(1) and b_c(times)


def _aggregates(scores: dict[str, list[float]]) -> dict[str, Any]:
    return {name: aggregate([_record(i, s, name) for i, s in enumerate(values)]) for name, values in scores.items()}


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=2, max_value=5).flatmap(
        lambda models: st.integers(min_value=2, max_value=40).flatmap(
            lambda n: st.lists(
                st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=n, max_size=n),
                min_size=models,
                max_size=models,
            )
        )
    )
)
def test_no_pair_is_distinguishable_while_its_interval_holds_zero(table: list[list[float]]) -> None:
    """Over random score tables: a pair is distinguishable exactly when its corrected interval (as printed)
    leaves out 0, its adjusted p is then below α, and the interval holds the difference."""
    tests = pair_tests(_aggregates({f"m{k}": row for k, row in enumerate(table)}))
    assert tests
    for t in tests:
        assert t.interval is not None
        outside = t.interval.low > 0 or t.interval.high < 0
        assert t.distinguishable == outside
        assert t.to_dict()["distinguishable"] == outside
        if t.distinguishable:
            assert t.p_adjusted is not None and t.p_adjusted < ALPHA
        assert t.interval.low <= t.difference <= t.interval.high
        assert t.min_detectable is None or t.min_detectable <= 100


def test_the_detectable_difference_stays_within_the_scale(tmp_path: Path) -> None:
    """The issue's finding: 200 points on a 0–100 scale. Two records that disagree: at most 100, said as
    "more than the scale"."""
    paths = _models(tmp_path, {"a": [1.0, 0.0], "b": [0.0, 1.0]})
    data = json.loads(_report(paths))
    assert data["power"]["set"]["min_detectable_difference"] == 100
    assert all(p["min_detectable_difference"] <= 100 for p in data["pairs"])
    assert "more than the scale" in _report(paths, "text")
    assert "超出量程" in _report(paths, "text", "--lang", "zh")


def test_the_report_says_why_the_leaderboard_and_the_ranking_disagree(tmp_path: Path) -> None:
    """``big`` leads by a little on a set of 300 questions, ``small`` leads by a lot on one of 10 in another
    dimension: the overall (mean of dimensions) puts ``small`` first, the rating (per-question battles)
    ``big``. The report names the pair and says why, in both languages; differences are unrounded."""
    records: dict[str, list[RecordDict]] = {"big": [], "small": []}
    for i in range(300):
        records["big"].append(_record(i, float(i % 10 < 6), "big", "large", "knowledge"))
        records["small"].append(_record(i, float(i % 10 < 5), "small", "large", "knowledge"))
    for i in range(10):
        records["big"].append(_record(i, float(i < 2), "big", "tiny", "writing"))
        records["small"].append(_record(i, float(i < 9), "small", "tiny", "writing"))
    paths = [_write(tmp_path / f"{n}.jsonl", r) for n, r in records.items()]
    data = json.loads(_report(paths))
    assert data["models"]["small"]["overall"] > data["models"]["big"]["overall"]
    assert data["ratings"]["big"]["rating"] > data["ratings"]["small"]["rating"]
    (said,) = data["order_disagreements"]
    assert (said["above"], said["below"]) == ("big", "small")
    assert abs(said["overall_gap"] - 30.0) < 1e-9  # 0.5 × (90 − 20) + 0.5 × (50 − 60), unrounded
    text = _report(paths, "text")
    assert "big rates above small (Bradley–Terry), but small's overall is higher by 30.00 points" in text
    assert "each dimension weighs the same" in text
    assert "排名" in _report(paths, "text", "--lang", "zh") and "顺序：按 Bradley–Terry 评分 big 高于 small" in _report(
        paths, "text", "--lang", "zh"
    )
