"""Issue 28 items 1, 2 and the math/QA half of 7, through ``formatkit score``: GSM8K's answer markers and final
``= value``, Chinese numerals and money words, a decimal reference against a LaTeX fraction; each case with a
wrong twin so the rule cannot pass by crediting everything."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from formatkit.cli import app
from scoring import Item
from scoring._metrics.extract.numeric import extract_number
from scoring._metrics.math import SympyGuard, score_math

runner = CliRunner()


def _score(tmp_path: Path, reference: str, reply: str, metric: str) -> dict[str, Any]:
    record = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "Q"},
            {"role": "assistant", "reference_response": reference, "responses": [{"content": reply}]},
        ],
        "meta": {"dataset": "qa"},
    }
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(src), "-o", str(out), "--metric", metric])
    assert result.exit_code == 0, result.output
    line = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    response: dict[str, Any] = line["messages"][-1]["responses"][0]
    return response


# (reference, reply, expected score, a word the analysis says)
GSM8K = [
    ("160", "A: 160", 1.0, 'keyword "A:"'),
    ("161", "A: 160", 0.0, 'keyword "A:"'),
    ("540", "So he runs 9*60=540 meters a week\nA: 540", 1.0, 'keyword "A:"'),
    ("540", "He runs 3*60=<<3*60=180>>180 meters a day\nSo he runs 180*3=<<180*3=540>>540 meters a week", 1.0, "= 540"),
    ("545", "He runs 3*60=<<3*60=180>>180 meters a day\nSo he runs 180*3=<<180*3=540>>540 meters a week", 0.0, "= 540"),
    ("18", "She makes 9 * 2 = $18 every day.\nAns: 18", 1.0, 'keyword "Ans:"'),
    ("18", "She makes 9 * 2 = $18 every day.\nA：18", 1.0, 'keyword "A："'),
]


@pytest.mark.parametrize(("reference", "reply", "expected", "said"), GSM8K)
def test_gsm8k_replies_with_metric_math(tmp_path: Path, reference: str, reply: str, expected: float, said: str) -> None:
    response = _score(tmp_path, reference, reply, "math")
    assert response["score"] == expected, response["analysis"]
    assert said in response["analysis"]


# Chinese numerals and money words: the same reply scores with math and with auto (exact for these references).
ZH = [
    ("4", "一年有四个季节。", 1.0),
    ("5", "一年有四个季节。", 0.0),
    ("2", "需要两天的时间才能到达。", 1.0),
    ("12", "他今年十二岁。", 1.0),
    ("13", "他今年十二岁。", 0.0),
    ("125", "一共有一百二十五人。", 1.0),
    ("1/3", "答案是三分之一。", 1.0),
    ("1/4", "答案是三分之一。", 0.0),
    ("50%", "百分之五十", 1.0),
    ("60元", "旺季的门票是60块钱。", 1.0),
    ("70元", "旺季的门票是60块钱。", 0.0),
]
# A reference naming what it counts is a short answer: auto scores it with exact.
NAMED_COUNT = [
    ("旺季60元", "旺季的门票是60块钱。", 1.0),
    ("旺季60元", "旺季的门票是80块钱，淡季60元。", 0.0),
    ("旺季60元", "旺季的门票是60美元。", 0.0),
]


@pytest.mark.parametrize("metric", ["auto", "math"])
@pytest.mark.parametrize(("reference", "reply", "expected"), ZH)
def test_chinese_numerals_and_money_words(
    tmp_path: Path, metric: str, reference: str, reply: str, expected: float
) -> None:
    response = _score(tmp_path, reference, reply, metric)
    assert response["score"] == expected, response["analysis"]


@pytest.mark.parametrize(("reference", "reply", "expected"), NAMED_COUNT)
def test_a_reference_naming_what_it_counts(tmp_path: Path, reference: str, reply: str, expected: float) -> None:
    response = _score(tmp_path, reference, reply, "auto")
    assert response["score"] == expected, response["analysis"]


# A decimal reference against a LaTeX fraction (a QA set scored with auto, which picks exact for numbers).
FRACTIONS = [
    ("0.5", "The probability is $\\frac{1}{2}$.", 1.0),
    ("0.75", "所以概率为$\\dfrac{3}{4}$", 1.0),
    ("0.5", "The probability is $\\frac{1}{3}$.", 0.0),
]


@pytest.mark.parametrize(("reference", "reply", "expected"), FRACTIONS)
def test_a_decimal_reference_against_a_latex_fraction(
    tmp_path: Path, reference: str, reply: str, expected: float
) -> None:
    response = _score(tmp_path, reference, reply, "auto")
    assert response["score"] == expected, response["analysis"]


#: A worker that starts and never answers (a comparison stuck in C code): the guard gives up at its limit.
_HANGING_WORKER = [
    sys.executable,
    "-c",
    "import sys, time; print('ready', flush=True); sys.stdin.readline(); time.sleep(120); print('true', flush=True)",
]


def test_a_sympy_time_out_is_null_not_zero() -> None:
    guard = SympyGuard(timeout=0.3, startup_allowance=60.0, command=_HANGING_WORKER)
    try:
        result = score_math("\\boxed{binomial(5,2)}", Item("Q", "10"), guard)
    finally:
        guard.close()
    assert guard.timeouts == 1
    assert result.score is None and result.settled is False, result.analysis
    assert "time limit" in result.analysis


def test_an_answer_sympy_cannot_parse_is_compared_by_its_value(guard: SympyGuard) -> None:
    right = score_math("The answer is 540 m/wk", Item("Q", "540"), guard)
    wrong = score_math("The answer is 541 m/wk", Item("Q", "540"), guard)
    assert (right.score, wrong.score) == (1.0, 0.0), (right.analysis, wrong.analysis)


# Chinese short QA (auto picks exact): a name inside a descriptive sentence after a quoted title, a year and a
# count in Chinese numerals; each with a wrong twin.
QA_ZH = [
    ("李白", "《静夜思》是唐代诗人李白创作的一首五言绝句。", 1.0),
    ("杜甫", "《静夜思》是唐代诗人李白创作的一首五言绝句。", 0.0),
    ("张艺谋", "《红高粱》是由导演张艺谋执导的电影。", 1.0),
    ("1949年", "中华人民共和国成立于一九四九年。", 1.0),
    ("1950年", "中华人民共和国成立于一九四九年。", 0.0),
    ("8", "太阳系有八大行星。", 1.0),
    ("9", "太阳系有八大行星。", 0.0),
]


@pytest.mark.parametrize(("reference", "reply", "expected"), QA_ZH)
def test_chinese_short_answers(tmp_path: Path, reference: str, reply: str, expected: float) -> None:
    response = _score(tmp_path, reference, reply, "auto")
    assert response["score"] == expected, response["analysis"]


# Chinese numerals are numbers only where they count: words holding a numeral character stay words.
NUMERALS = [
    ("一年有四个季节。", 4.0),
    ("两千零五年", 2005.0),
    ("零点五", 0.5),
    ("百分之五十", 50.0),
    ("还剩下一个。", 1.0),
    ("第一，星期三我们一起去四川，十分重要。", None),
    ("张三和李四一共来了。", None),
    ("一大早就出门了。", None),
]


@pytest.mark.parametrize(("reply", "value"), NUMERALS)
def test_which_chinese_numerals_are_numbers(reply: str, value: float | None) -> None:
    assert extract_number(reply)[0] == value
