"""Intervals that never claim more certainty than their records give (issue 19, item 6), from the CLI.

The stratified percentile bootstrap had zero width wherever a stratum had no variance: a dimension of 4
all-right records reported [100, 100], a 4-right and a 3-wrong dataset [50, 50], and the overall ignored
every small all-right dataset. Every one of these keeps a width its size justifies now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from formatkit.cli import app


def _records(dataset: str, scores: list[float], metric: str = "exact") -> list[dict[str, Any]]:
    return [
        {
            "session_id": i,
            "meta": {"dataset": dataset},
            "messages": [
                {"role": "user", "content": f"{dataset} {i}"},
                {
                    "role": "assistant",
                    "reference_response": "x",
                    "responses": [{"content": "x", "model": "m", "score": s, "metric": metric, "answer": "x"}],
                },
            ],
        }
        for i, s in enumerate(scores)
    ]


def _report(tmp_path: Path, records: list[dict[str, Any]], dimensions: dict[str, str]) -> dict[str, Any]:
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    mapping = tmp_path / "dims.json"
    mapping.write_text(json.dumps(dimensions), encoding="utf-8")
    result = CliRunner().invoke(
        app, ["report", str(results), "--dimensions", str(mapping), "--format", "json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _width(ci: list[float]) -> float:
    return ci[1] - ci[0]


def test_a_dimension_of_four_all_right_records_is_not_certain(tmp_path: Path) -> None:
    data = _report(tmp_path, _records("a", [1, 1]) + _records("b", [1, 1]), {"a": "d", "b": "d"})
    dim = data["dimensions"]["d"]
    assert dim["score"] == 100.0
    low, high = dim["ci"]
    assert high == 100.0 and low < 75.0  # Jeffreys for 4 of 4: about 55; was [100, 100]


def test_a_right_and_a_wrong_dataset_do_not_make_a_certain_fifty(tmp_path: Path) -> None:
    data = _report(tmp_path, _records("right", [1] * 4) + _records("wrong", [0] * 3), {"right": "d", "wrong": "d"})
    dim = data["dimensions"]["d"]
    assert dim["score"] == 50.0
    low, high = dim["ci"]
    assert low < 40.0 and high > 60.0  # was [50.0, 50.0]


def test_partial_credit_with_no_variance_keeps_a_width(tmp_path: Path) -> None:
    data = _report(tmp_path, _records("half", [0.5] * 4, metric="math"), {"half": "d"})
    ds = data["datasets"]["half"]
    assert ds["score"] == 50.0 and ds["small"] is True
    low, high = ds["ci"]
    assert low < 35.0 and high > 65.0  # was [50.0, 50.0]


def test_the_overall_carries_a_small_all_right_datasets_uncertainty(tmp_path: Path) -> None:
    mixed = [1.0, 0.0] * 30
    data = _report(tmp_path, _records("small", [1] * 4) + _records("big", mixed), {"small": "s", "big": "b"})
    alone = _width(data["dimensions"]["s"]["ci"])
    big = _width(data["datasets"]["big"]["ci"])
    overall = data["overall_ci"]
    assert data["overall"] == 75.0 and overall[0] <= 75.0 <= overall[1]
    # overall = (small + big) / 2: at least half of each part's spread; the old interval had only big's (12.5)
    assert _width(overall) > 0.5 * alone and _width(overall) > 0.5 * big + 5
    assert data["datasets"]["small"]["small"] is True and data["datasets"]["big"]["small"] is False


def test_a_pairwise_mean_of_all_wins_can_still_be_below_zero(tmp_path: Path) -> None:
    records = _records("pair", [1.0] * 4, metric="pairwise")
    for record in records:
        response = record["messages"][-1]["responses"][0]
        response["judge"] = {"metric": "pairwise", "status": "scored", "outcome": "win"}
    data = _report(tmp_path, records, {"pair": "d"})
    low, high = data["datasets"]["pair"]["ci"]  # mean ×100 on −100..100; was Wilson's [51.0, 100.0]
    assert high == 100.0 and low < 50.0
