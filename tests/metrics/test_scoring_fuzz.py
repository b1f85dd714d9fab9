"""Scorers never raise: any reply, any reference gives a score in range (or None with a reason)."""

from __future__ import annotations

from fuzz import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import Item
from scoring._metrics.choice import score_choice
from scoring._metrics.exact import score_exact
from scoring._metrics.extract.choice import extract_choice
from scoring._metrics.extract.math import extract_math_answer
from scoring._metrics.math import math_equal, score_math

TOKENS = [*"0123456789+-*/^()[]{}=<>.,;:! xyzABCJ√π∞−，。；（）或%°\n"]
TOKENS += ["\\frac", "\\sqrt", "\\boxed{", " or ", "答案是"]
ALPHABET = st.sampled_from(TOKENS)
TEXT = st.lists(ALPHABET, max_size=80).map("".join)
ANY = st.text(max_size=200)


@settings(max_examples=examples(300), deadline=None)
@given(TEXT, TEXT)
def test_math_equal_is_total(answer: str, reference: str) -> None:
    assert 0.0 <= math_equal(answer, reference) <= 1.0


@settings(max_examples=examples(200), deadline=None)
@given(ANY, ANY)
def test_every_metric_is_total_on_any_text(reply: str, reference: str) -> None:
    item = Item("Q\nA) 1\nB) 2", reference)
    for result in (score_choice(reply, item), score_exact(reply, item), score_math(reply, item)):
        assert result.analysis
        assert result.score is None or 0.0 <= result.score <= 1.0
    extract_choice(reply)
    extract_math_answer(reply)


def test_deep_nesting_is_not_a_crash() -> None:
    assert math_equal("(" * 400 + "1" + ")" * 400, "2") == 0.0
    assert math_equal("\\frac{" * 150 + "1" + "}{2}" * 150, "1") == 0.0
    assert math_equal("x" * 5000, "1") == 0.0
