"""score_records on the response fixtures: every response's score is the one its record expects."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import orjson
import pytest

from formatkit import RecordDict
from scoring import aggregate, score_records
from scoring._metrics.auto import JUDGE_NEEDED
from scoring._pipeline.score import choose_metrics

RESPONSES = Path(__file__).parents[2] / "fixtures" / "responses"
SETS = ["mmlu_pro", "gsm8k", "math_mixed", "yes_no"]


def load(name: str) -> list[RecordDict]:
    return [orjson.loads(line) for line in (RESPONSES / f"{name}.jsonl").read_bytes().splitlines()]


@pytest.mark.parametrize("name", SETS)
def test_every_response_scores_as_expected(name: str) -> None:
    records = load(name)
    outcome = score_records(records, metric="auto", default_dataset=name)
    for record in outcome.records:
        got = [r.get("score") for r in record["messages"][-1]["responses"]]
        assert got == dict(record["meta"])["expected"], (record["session_id"], record["messages"][-1]["responses"])
        for response in record["messages"][-1]["responses"]:
            assert response["analysis"]


def test_records_keep_order_and_count() -> None:
    records = load("mmlu_pro")
    ids = [r["session_id"] for r in records]
    outcome = score_records(records, metric="choice")
    assert [r["session_id"] for r in outcome.records] == ids


def test_auto_picks_per_dataset() -> None:
    picks = {name: choose_metrics(load(name))[str(load(name)[0]["meta"]["dataset"])].metric for name in SETS}
    # math_mixed holds one option-letter item among math answers: auto scores it with choice, the rest with math
    assert picks == {"mmlu_pro": "choice", "gsm8k": "exact", "math_mixed": "mixed", "yes_no": "choice"}
    reason = choose_metrics(load("math_mixed"))["math_mixed"].reason
    assert reason.startswith("chosen per record: 24 math, 1 choice"), reason


def test_auto_leaves_long_free_text_to_a_judge() -> None:
    essay = "A long reference answer that explains the history of the city in many words. " * 5
    record: RecordDict = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "Tell me about it"},
            {"role": "assistant", "reference_response": essay, "responses": [{"content": "It is old."}]},
        ],
    }
    outcome = score_records([record], metric="auto")
    response = outcome.records[0]["messages"][-1]["responses"][0]
    assert response["score"] is None
    assert "judge" in response["analysis"]
    assert outcome.metrics["dataset"].metric == JUDGE_NEEDED
    assert outcome.summary()["datasets"]["dataset"]["errors"] == 1


def test_summary_shape_and_math_strict_loose() -> None:
    outcome = score_records(load("math_mixed"), metric="math")
    summary = outcome.summary()
    ds = summary["datasets"]["math_mixed"]
    assert {"metric", "score", "records", "errors"} <= set(ds)
    assert ds["metric"] == "math"
    assert ds["records"] == 25 and ds["errors"] == 1
    strict, loose, overall = ds["strict"], ds["loose"], summary["overall"]
    assert strict is not None and loose is not None and overall is not None
    assert strict < loose
    assert 0 <= overall <= 100


def test_samples_give_pass_at_k_and_majority() -> None:
    outcome = score_records(load("mmlu_pro"), metric="choice")
    ds = outcome.summary()["datasets"]["mmlu_pro"]
    assert ds["samples"] == 3
    pass_at_k, score = ds["pass_at_k"], ds["score"]
    assert pass_at_k is not None and score is not None
    assert pass_at_k >= score
    assert "majority" in ds


def test_aggregate_dimensions_then_overall() -> None:
    records: list[RecordDict] = []
    for name in SETS:
        records += score_records(load(name), metric="auto").records
    agg = aggregate(records)
    dims = agg.to_dict()["dimensions"]
    assert set(dims) == {"综合能力", "推理数学", "语言创作"}
    math_dim = [agg.datasets[n].score for n in ("gsm8k", "math_mixed")]
    assert dims["推理数学"]["score"] == pytest.approx(sum(s for s in math_dim if s is not None) / 2, abs=0.01)
    assert agg.overall == pytest.approx(sum(cast(float, d["score"]) for d in dims.values()) / 3, abs=0.01)
    assert agg.usage["total_tokens"] > 0


def test_dimension_map_overrides_meta() -> None:
    records = score_records(load("gsm8k"), metric="exact").records + score_records(load("yes_no")).records
    agg = aggregate(records, dimensions={"gsm8k": "all", "boolq": "all"})
    assert list(agg.dimensions) == ["all"]
    assert agg.overall == agg.dimensions["all"].score


def test_unknown_metric_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        score_records([], metric="bleu")
