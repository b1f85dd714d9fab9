"""Scores are data: a scored response carries ``metric``, ``answer`` and ``settled``, and the report reads
those fields, never the analysis text."""

from __future__ import annotations

import pytest

import scoring
from formatkit import RecordDict


def _record(reference: str, replies: list[str], dataset: str = "capitals") -> RecordDict:
    return {
        "session_id": 1,
        "messages": [
            {"role": "user", "content": "Capital of France?"},
            {"role": "assistant", "reference_response": reference, "responses": [{"content": r} for r in replies]},
        ],
        "meta": {"dataset": dataset},
    }


def test_scored_responses_carry_metric_answer_and_settled() -> None:
    record = _record("Paris", ["Paris", "I do not know the city at all, sorry"])
    scoring.score_records([record], metric="exact")
    right, wrong = record["messages"][-1]["responses"]
    assert (right["metric"], right["answer"], right["settled"], right["score"]) == ("exact", "paris", True, 1.0)
    assert (wrong["metric"], wrong["settled"], wrong["score"]) == ("exact", True, 0.0)


@pytest.mark.parametrize(
    ("replies", "majority"),
    [
        pytest.param(["Paris", "London", "London"], 0.0, id="wrong-majority"),
        pytest.param(["London", "Paris", "Paris"], 100.0, id="right-majority"),
    ],
)
def test_majority_is_the_most_frequent_answer_not_the_mean(replies: list[str], majority: float) -> None:
    record = _record("Paris", replies)
    outcome = scoring.score_records([record], metric="exact")
    assert outcome.summary()["datasets"]["capitals"]["majority"] == majority


def test_report_reads_the_metric_field_not_the_analysis() -> None:
    record = _record("Paris", ["Paris"])
    scoring.score_records([record], metric="exact")
    response = record["messages"][-1]["responses"][0]
    response["analysis"] = "choice：a judge wrote this with a full-width colon"
    assert scoring.aggregate([record]).to_dict()["datasets"]["capitals"]["metric"] == "exact"


def test_a_dataset_scored_with_several_metrics_is_reported_as_mixed() -> None:
    records = [_record("Paris", ["Paris"]), _record("\\frac{1}{2}", ["0.5"])]
    records[1]["messages"][0]["content"] = "Half?"
    scoring.score_records(records, metric="auto")
    assert [r["messages"][-1]["responses"][0]["metric"] for r in records] == ["math", "math"]
    records[0]["messages"][-1]["responses"][0]["metric"] = "exact"  # as a file scored record by record says
    assert scoring.aggregate(records).to_dict()["datasets"]["capitals"]["metric"] == "mixed"
