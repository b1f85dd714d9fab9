"""``--metric auto`` chooses per record: a mixed upload (choice, numbers, math, free text) is scored by
the metric each record needs, and free text of either language is left for a judge, never scored 0."""

from __future__ import annotations

import pytest

from formatkit import RecordDict
from scoring import Item, score_records
from scoring._metrics.auto import reference_kind

OPTIONS = "Which is right?\nA. one\nB. two\nC. three\nD. four"


@pytest.mark.parametrize(
    ("question", "reference", "kind"),
    [
        pytest.param(OPTIONS, "B", "choice", id="letter"),
        pytest.param(OPTIONS, "AC", "choice", id="letter-set"),
        pytest.param("水是湿的吗？", "是", "yes-no", id="yes-no-zh"),
        pytest.param("q", "42", "number", id="number"),
        pytest.param("q", "1,000", "number", id="thousands"),
        pytest.param("q", "\\frac{3}{4}", "math", id="latex"),
        pytest.param("q", "(1,2)", "math", id="interval"),
        pytest.param("q", "x^2+2x+1", "math", id="polynomial"),
        pytest.param("q", "这个长方体纸箱的表面积是190dm^2", "math", id="zh-math-sentence"),
        pytest.param("q", "Paris", "short", id="en-short"),
        pytest.param("q", "北京", "short", id="zh-short"),
        pytest.param("q", "2023/01/05", "short", id="date-is-not-a-division"),
        pytest.param("q", "1990-2000", "short", id="range-is-not-a-subtraction"),
        pytest.param("q", "1/2", "number", id="fraction-is-a-number"),
        pytest.param("q", "The Treaty of Versailles", "short", id="en-title"),
        pytest.param("q", "长江是中国最长的河流，全长约六千三百公里，流经多个省份。", "long", id="zh-30-char-sentence"),
        pytest.param("q", "它流经多个省份，最后注入东海。", "long", id="zh-clause-break"),
        pytest.param(
            "q", "The city grew as a trading port and later became the capital of the region.", "long", id="en-sentence"
        ),
        pytest.param("q", "It is old. It is large.", "long", id="en-two-sentences"),
        pytest.param("q", "", "missing", id="missing"),
    ],
)
def test_reference_kind(question: str, reference: str, kind: str) -> None:
    assert reference_kind(Item(question, reference)) == kind


def _record(i: int, question: str, reference: str, reply: str) -> RecordDict:
    return {
        "session_id": i,
        "messages": [
            {"role": "user", "content": question},
            {"role": "assistant", "reference_response": reference, "responses": [{"content": reply}]},
        ],
        "meta": {"dataset": "综合"},
    }


def test_a_mixed_set_is_scored_record_by_record() -> None:
    records = [
        _record(0, OPTIONS, "B", "The answer is (B)."),
        _record(1, "How many?", "18", "The answer is 18."),
        _record(2, "Solve.", "\\frac{3}{4}", "So the answer is \\boxed{0.75}."),
        _record(3, "Describe the river.", "长江是中国最长的河流，全长约六千三百公里，流经多个省份。", "长江很长。"),
        _record(4, "Capital?", "Paris", "Paris"),
    ]
    outcome = score_records(records, metric="auto")
    responses = [r["messages"][-1]["responses"][0] for r in outcome.records]
    assert [r["metric"] for r in responses] == ["choice", "math", "math", "judge-needed", "math"]
    assert [r["score"] for r in responses] == [1.0, 1.0, 1.0, None, 1.0]
    assert "a judge is needed" in responses[3]["analysis"]
    pick = outcome.metrics["综合"]
    assert pick.metric == "mixed"
    assert pick.reason.startswith("chosen per record: 3 math, 1 choice, 1 judge-needed")


def test_without_math_short_answers_and_numbers_go_to_exact() -> None:
    records = [_record(0, "How many?", "18", "共计18元"), _record(1, "Capital?", "Paris", "The answer is Paris.")]
    outcome = score_records(records, metric="auto")
    responses = [r["messages"][-1]["responses"][0] for r in outcome.records]
    assert [r["metric"] for r in responses] == ["exact", "exact"]
    assert responses[0]["score"] == 1.0
    assert outcome.metrics["综合"].metric == "exact"


def test_a_set_of_free_text_is_left_for_a_judge_never_scored_zero() -> None:
    records = [
        _record(0, "Explain.", "The city grew as a trading port and later became the capital of the region.", "x"),
        _record(1, "解释。", "它流经多个省份，最后注入东海。", "y"),
    ]
    outcome = score_records(records, metric="auto")
    assert [r["messages"][-1]["responses"][0]["score"] for r in outcome.records] == [None, None]
    assert outcome.metrics["综合"].metric == "judge-needed"
    assert outcome.summary()["datasets"]["综合"]["errors"] == 2
