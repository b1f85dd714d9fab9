"""Review of issue 19 items 1-3: replies that broke the new exact, containment and choice rules, each
scored from the command line and read back from the output file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

runner = CliRunner()


def _score(tmp_path: Path, question: str, reference: str, reply: str, metric: str) -> dict[str, Any]:
    record = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": question},
            {"role": "assistant", "reference_response": reference, "responses": [{"content": reply}]},
        ],
        "meta": {"dataset": "qa"},
    }
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(src), "-o", str(out), "--metric", metric])
    assert result.exit_code == 0, result.output
    response: dict[str, Any] = json.loads(out.read_text(encoding="utf-8").splitlines()[0])["messages"][-1]["responses"][
        0
    ]
    return response


# A marked answer the reply then withdraws ("不对，应该是 4") is no answer: the correction is.
# (reference, reply, expected score)
RETRACTED = [
    ("3", "答案是 3。不对，应该是 4。", 0.0),
    ("4", "答案是 3。不对，应该是 4。", 1.0),
    ("北京", "答案是北京。不对，应该是上海。", 0.0),
    ("上海", "答案是北京。不对，应该是上海。", 1.0),
    ("Paris", "The answer is Paris. Wait, no, it's Lyon.", 0.0),
    ("Paris", "Paris\nWait, no, it's Lyon.", 0.0),
    ("12", "The answer is 12. Wait, let me check: 3 × 4 = 12.", 1.0),  # a check is no correction
    ("北京", "答案是北京。选项上海不对，因为它不是首都。", 1.0),  # "上海不对" judges another candidate
]


@pytest.mark.parametrize("metric", ["exact", "auto"])
@pytest.mark.parametrize(("reference", "reply", "expected"), RETRACTED)
def test_an_answer_the_reply_corrects_is_not_its_answer(
    tmp_path: Path, metric: str, reference: str, reply: str, expected: float
) -> None:
    response = _score(tmp_path, "?", reference, reply, metric)
    assert response["score"] == expected, response["analysis"]


CHOICES = "Which one?\nA. 1\nB. 2\nC. 3\nD. 4"


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("答案是B。不对，应该是C。", "C"),
        ("The answer is B. Wait, no, it's C.", "C"),
        ("The answer is (B).\nCorrection: the answer is (D).", "D"),
        ("答案是B。不对。", None),
    ],
)
def test_a_corrected_choice_is_the_correction(tmp_path: Path, reply: str, letter: str | None) -> None:
    response = _score(tmp_path, CHOICES, "B", reply, "choice")
    assert response["answer"] == letter, response["analysis"]
    assert response["score"] == (1.0 if letter == "B" else 0.0)


@pytest.mark.parametrize(
    ("reference", "reply", "expected"),
    [
        ("3", "答案是 3。不对，应该是 4。", 0.0),
        ("\\frac{1}{2}", "答案是 $\\frac{1}{3}$。不对，应该是 $\\frac{1}{2}$。", 1.0),
        ("\\frac{1}{3}", "答案是 $\\frac{1}{3}$。不对，应该是 $\\frac{1}{2}$。", 0.0),
    ],
)
def test_math_reads_the_correction_too(tmp_path: Path, reference: str, reply: str, expected: float) -> None:
    response = _score(tmp_path, "?", reference, reply, "math")
    assert response["score"] == expected, response["analysis"]


@pytest.mark.parametrize(
    ("reference", "reply", "expected"),
    [
        ("H2O", "水的化学式是H2O。", 1.0),
        ("DNA", "细胞的遗传物质是DNA。", 1.0),
        ("DNA", "这种酶叫DNA聚合酶。", 0.0),  # a longer, different word
        ("H2O", "过氧化氢的化学式是H2O2。", 0.0),
        ("DNA", "遗传物质不是DNA。", 0.0),
    ],
)
def test_a_latin_answer_in_a_chinese_sentence(tmp_path: Path, reference: str, reply: str, expected: float) -> None:
    response = _score(tmp_path, "?", reference, reply, "auto")
    assert response["score"] == expected, response["analysis"]


@pytest.mark.parametrize(
    ("reference", "metric"), [("DNA", "exact"), ("CPU", "exact"), ("ACD", "choice"), ("B", "choice")]
)
def test_auto_takes_an_abbreviation_for_a_word_when_no_options_are_in_sight(
    tmp_path: Path, reference: str, metric: str
) -> None:
    response = _score(tmp_path, "细胞的遗传物质是什么？", reference, f"答案是{reference}。", "auto")
    assert (response["metric"], response["score"]) == (metric, 1.0), response["analysis"]


@pytest.mark.parametrize(
    ("reference", "reply", "expected"),
    [
        ("3/2", "The answer is 1 1/2 cups.", 1.0),
        ("1", "The answer is 1 1/2.", 0.0),  # it read «1» and gave full marks
        ("1.5", "答案是 1又1/2", 1.0),
        ("1.5", "1 1/2", 1.0),  # the last number was «1/2»
        ("1 1/2", "The answer is 3/2.", 1.0),
        ("1000", "答案是 1 000", 1.0),  # thousands with a space stay one number
    ],
)
def test_a_mixed_number_is_one_number(tmp_path: Path, reference: str, reply: str, expected: float) -> None:
    response = _score(tmp_path, "?", reference, reply, "exact")
    assert response["score"] == expected, response["analysis"]


# The last marked answer wins, and an answer named as the wrong one is none.
MARKS = [
    ("北京", "答案是北京。最终答案是上海。", 0.0),
    ("上海", "答案是北京，最终答案是上海。", 1.0),
    ("北京", "答案是北京，最终答案是上海。", 0.0),
    ("5", "答案是 3，最终答案是 5。", 1.0),
    ("Paris", "Answer: Paris. Final answer: Lyon", 0.0),
    ("北京", "错误答案是北京。正确答案是上海。", 0.0),
    ("北京", "正确答案是上海，错误答案是北京。", 0.0),
    ("上海", "正确答案是上海，错误答案是北京。", 1.0),
    ("Paris", "The wrong answer would be Paris; the right one is Lyon.", 0.0),
    ("Paris", "The right answer is Lyon, and the wrong answer is Paris.", 0.0),
    ("3", "答案是 5，错误答案是 3。", 0.0),
]


@pytest.mark.parametrize(("reference", "reply", "expected"), MARKS)
def test_the_last_mark_wins_and_a_rejected_one_is_none(
    tmp_path: Path, reference: str, reply: str, expected: float
) -> None:
    response = _score(tmp_path, "?", reference, reply, "exact")
    assert response["score"] == expected, response["analysis"]


# Containment must not credit a reference the reply's final sentence names only to deny it, to attribute
# it to others, or under a condition.
GUARDS = [
    ("Paris", "It is Lyon; Paris isn't the capital.", 0.0),
    ("Paris", "Lyon. Paris was never the capital.", 0.0),
    ("李白", "这首诗是杜甫写的，李白没写过。", 0.0),
    ("李白", "这首诗是杜甫写的，李白从未写过。", 0.0),
    ("北京", "首都是上海，但很多人以为是北京。", 0.0),
    ("北京", "首都是上海，不过人们常误认为是北京。", 0.0),
    ("Paris", "The capital is Lyon, but many say Paris.", 0.0),
    ("北京", "如果是北京的话就对了。", 0.0),
    # and still credits the answer itself
    ("北京", "很多人以为是上海，其实是北京。", 1.0),
    ("Paris", "Many think Lyon but it is Paris.", 1.0),
    ("北京", "我认为中国的首都是北京。", 1.0),
    ("爱因斯坦", "提出相对论的不是牛顿，而是爱因斯坦。", 1.0),
]


@pytest.mark.parametrize(("reference", "reply", "expected"), GUARDS)
def test_containment_does_not_credit_a_denied_or_attributed_answer(
    tmp_path: Path, reference: str, reply: str, expected: float
) -> None:
    response = _score(tmp_path, "?", reference, reply, "exact")
    assert response["score"] == expected, response["analysis"]


def test_choice_stops_at_every_end_token_exact_knows(tmp_path: Path) -> None:
    # <eoe> ends the answer for exact (normalize.END_TOKEN); choice kept a copy of the list without it
    response = _score(tmp_path, CHOICES, "B", "[正确答案]B<eoe>\n例题：答案是C", "choice")
    assert response["answer"] == "B", response["analysis"]


PARTIES = "Which party?\nA. Democrat\nB. Republican\nC. Independent\nD. Libertarian"


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("Unlike what one might think, this voter would not identify as (A) Democrat.", None),
        ("The voter is best described rather than (C) Independent.", None),
        ("After weighing it all, this voter would most likely identify as (D) Libertarian.", "D"),
    ],
)
def test_an_option_named_with_its_text_under_a_negation_is_no_answer(
    tmp_path: Path, reply: str, letter: str | None
) -> None:
    response = _score(tmp_path, PARTIES, letter or "A", reply, "choice")
    assert response["answer"] == letter, response["analysis"]


# A marked answer that offers two values commits to neither; words around one value do not change it.
OFFERS = [
    ("12", "答案是 12 或 13", 0.0),
    ("12", "The answer is 12 or 13.", 0.0),
    ("12", "答案是 12 和 13", 0.0),
    ("3", "The answer is 3 (or maybe 4).", 0.0),
    ("3", "The answer is x = 2 or x = 3.", 0.0),
    ("12", "The answer is 12, not 13.", 1.0),
    ("13", "The answer is 12, not 13.", 0.0),
    ("12", "The answer is approximately 12.", 1.0),
    ("18", "答案：约 18 元", 1.0),
    ("1234.5", "The answer is 1,234.5", 1.0),
    ("1000", "答案是 1,000 元", 1.0),
]


@pytest.mark.parametrize(("reference", "reply", "expected"), OFFERS)
def test_a_marked_answer_offering_two_values_is_neither(
    tmp_path: Path, reference: str, reply: str, expected: float
) -> None:
    response = _score(tmp_path, "?", reference, reply, "exact")
    assert response["score"] == expected, response["analysis"]


@pytest.mark.parametrize(
    ("reference", "reply", "expected"),
    [
        ("3", "The answer is x = 2 or x = 3.", 0.5),  # the right value among others, as '12 or 13' gets: was 1.0
        ("11", "x = 5+5+1 = 11", 1.0),  # a chain still states its last value
    ],
)
def test_math_does_not_read_two_offered_values_as_a_chain(
    tmp_path: Path, reference: str, reply: str, expected: float
) -> None:
    response = _score(tmp_path, "?", reference, reply, "math")
    assert response["score"] == expected, response["analysis"]


@pytest.mark.parametrize(
    ("reference", "reply", "expected"),
    [
        ("Paris", "Is it Paris?", 0.0),
        ("北京", "难道是北京？", 0.0),
        ("北京", "你问首都？是北京", 1.0),
    ],
)
def test_a_final_question_commits_to_nothing(tmp_path: Path, reference: str, reply: str, expected: float) -> None:
    response = _score(tmp_path, "What is the capital?", reference, reply, "exact")
    assert response["score"] == expected, response["analysis"]


@pytest.mark.parametrize("reply", ["The answer is B. Option A says 1, that is wrong.", "答案是B，选项A说1，不对。"])
def test_a_verdict_on_another_option_inside_a_sentence_is_no_retraction(tmp_path: Path, reply: str) -> None:
    response = _score(tmp_path, CHOICES, "B", reply, "choice")
    assert response["answer"] == "B", response["analysis"]
