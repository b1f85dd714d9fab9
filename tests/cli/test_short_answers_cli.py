"""Issue 19, items 1-3 through ``formatkit score``: short answers by value, Chinese containment, choice
commitments in prose. Each case is one record scored from the command line, read back from the output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

runner = CliRunner()


def _record(question: str, reference: str, reply: str, dataset: str = "qa") -> dict[str, Any]:
    return {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": question},
            {"role": "assistant", "reference_response": reference, "responses": [{"content": reply}]},
        ],
        "meta": {"dataset": dataset},
    }


def _score(tmp_path: Path, record: dict[str, Any], metric: str) -> dict[str, Any]:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(src), "-o", str(out), "--metric", metric])
    assert result.exit_code == 0, result.output
    scored = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    response: dict[str, Any] = scored["messages"][-1]["responses"][0]
    return response


# (question, reference, reply, expected score, words the analysis holds)
VALUES = [
    ("1/3+1/6=?", "1/2", "答案是 \\frac{1}{2}", 1.0, "compared by value"),
    ("1/3+1/6=?", "1/2", "答案是 \\frac{1}{3}。验算：1/2", 0.0, "compared by value"),
    ("1/3+1/6=?", "1/2", "答案：$\\dfrac{1}{2}$", 1.0, "compared by value"),
    ("1/3+1/6=?", "1/2", "1/3 + 1/6 = 2/6 + 1/6 = 3/6 = 1/2", 1.0, 'final "= 1/2"'),
    ("What is 1/4?", "0.25", "The answer is $\\frac14$.", 1.0, "compared by value"),
    ("What is 1/4?", "\\frac{1}{4}", "The answer is 0.25.", 1.0, "compared by value as in math"),
    ("What is 1/4?", "$\\frac14$", "**0.25**", 1.0, "compared by value as in math"),
    ("Half of 36?", "18", "Half of 36 is **18**.", 1.0, 'bold "**18**"'),
    ("Half of 36?", "18", "\\boxed{18} since 36/2 = 18, not 19", 1.0, "boxed"),
    ("Half of 36?", "18", "The answer is 18. Check: 18 + 18 = 36.", 1.0, 'marker "answer is 18"'),
    ("Half of 36?", "18", "The answer is 17. Check: 17 + 19 = 36, so 18 is wrong.", 0.0, 'marker "answer is 17"'),
]


@pytest.mark.parametrize("metric", ["exact", "auto"])
@pytest.mark.parametrize(("question", "reference", "reply", "expected", "says"), VALUES)
def test_a_marked_answer_is_read_as_a_value_before_the_last_number(
    tmp_path: Path, metric: str, question: str, reference: str, reply: str, expected: float, says: str
) -> None:
    response = _score(tmp_path, _record(question, reference, reply), metric)
    assert response["score"] == expected, response["analysis"]
    if response["metric"] == "exact":  # auto sends a math reference (\frac) to math, which compares by value
        assert says in response["analysis"]
    assert "last number" not in response["analysis"]


# (reference, reply, expected score)
CONTAINMENT = [
    ("北京", "中国的首都是北京。", 1.0),
    ("北京", "我认为中国的首都是北京，它也是政治中心。", 1.0),
    ("北京", "答案：是北京。它有三千年的建城史。", 1.0),  # the marked answer, not the final sentence
    ("北京", "北京有三千年的建城史。答案：上海。", 0.0),
    ("北京", "中国的首都是北京。它有三千年的建城史。", 1.0),  # the first sentence states it (#38)
    ("北京", "中国的首都不是北京。", 0.0),
    ("北京", "北京不是中国的首都，上海才是。", 0.0),
    ("北京", "中国的首都是北京或上海。", 0.0),
    ("北京", "中国的首都可能是北京。", 0.0),
    ("北京", "上海、北京都是直辖市。", 0.0),
    ("水", "常温下呈液态的金属是水银。", 0.0),
    ("诈骗", "被告人构成合同诈骗罪。", 0.0),
    ("诈骗", "被告人的行为构成诈骗罪。", 1.0),
    ("婚姻家庭", "[类别]婚姻家庭<eoa>", 1.0),
    ("Paris", "The capital of France is Paris.", 1.0),
    ("Paris", "It is not Paris.", 0.0),
    ("Paris", "It is either Paris or Lyon.", 0.0),
    ("Paris", "The Parisian region is the answer region.", 0.0),
]


@pytest.mark.parametrize(("reference", "reply", "expected"), CONTAINMENT)
def test_a_short_reference_found_as_the_answer_counts_where_it_does_not_lie(
    tmp_path: Path, reference: str, reply: str, expected: float
) -> None:
    response = _score(tmp_path, _record("中国的首都是哪里？", reference, reply), "auto")
    assert response["metric"] == "exact"
    assert response["score"] == expected, response["analysis"]
    if expected:
        assert response["matched_by"] == "containment"
        assert "(rule: containment)" in response["analysis"]
        assert response["answer"] == reference.casefold()


def test_an_exact_match_names_its_rule_too(tmp_path: Path) -> None:
    response = _score(tmp_path, _record("中国的首都是哪里？", "北京", "北京"), "exact")
    assert response["score"] == 1.0 and response["matched_by"] == "normalised match"


QUESTION = (
    "Which party would this voter most likely support?\n"
    "A. Democrat\nB. Republican\nC. Independent\nD. Libertarian\nE. Green"
)
# (reply, expected letter or None)
COMMITMENTS = [
    ("(A) Democrat is unlikely given the record. This voter would most likely identify as (B) Republican.", "B"),
    ("Weighing each one, the lamp flashes once per (C) Independent cycle.", "C"),
    ("(A) Democrat and (C) Independent fit less well.\n\nTherefore, the best answer is:\n\nB. Republican", "B"),
    ("The record is clear. Therefore, the voter is best described as a Libertarian.", "D"),
    ("Thus, the correct answer is:\n\\[ \\text{The answer is } (E) \\]", "E"),
    (
        "The most persuasive argument for the voter's stated preferences in the Senate race is (D). "
        "Libertarian values explain them.",
        "D",
    ),
    ("The answer is (A).\n\nNow, let's summarize all the answers:\nThe answer is B.\nThe answer is C.", "A"),
    # rejected or hedged: no answer
    ("(B) Republican is not right here, since the record contradicts it.", None),
    ("Therefore, the voter is not a Republican.", None),
    ("None fits exactly, so the answer is any option except E.", None),
    ("It could be a Democrat or a Republican.", None),
]


@pytest.mark.parametrize(("reply", "letter"), COMMITMENTS)
def test_choice_reads_commitments_in_prose_and_keeps_rejections_out(
    tmp_path: Path, reply: str, letter: str | None
) -> None:
    response = _score(tmp_path, _record(QUESTION, letter or "B", reply), "choice")
    assert response["answer"] == letter, response["analysis"]
    assert response["score"] == (1.0 if letter else 0.0)
