"""The exact metric (docs/pages/scoring.md, "exact"): normalisation, several accepted answers, numbers."""

from __future__ import annotations

from typing import Any

import pytest
from table_cases import case_maker

from scoring import Item
from scoring._metrics.exact import score_exact
from scoring._metrics.extract.numeric import extract_number, reference_number
from scoring._metrics.normalize import normalize_text

case = case_maker()


NORMALIZE = [
    case("norm-case", "Paris", "paris"),
    case("norm-articles", "The Eiffel Tower", "eiffel tower"),
    case("norm-article-a-an", "a cat and an owl", "cat and owl"),
    case("norm-punct-ascii", "Hello, world!", "hello world"),
    case("norm-punct-cjk", "北京。", "北京"),
    case("norm-punct-cjk-quotes", "「北京」", "北京"),
    case("norm-fullwidth", "ＡＢＣ１２３", "abc123"),
    case("norm-whitespace", "  New   York \n", "new york"),
    case("norm-keeps-inner-words", "theatre", "theatre"),
    case("norm-article-only-kept", "A", "a"),
    case("norm-article-only-kept", "An.", "an"),
    case("norm-article-only-kept", "the", "the"),
]


@pytest.mark.parametrize(("text", "expected"), NORMALIZE)
def test_normalize_text(text: str, expected: str) -> None:
    assert normalize_text(text) == expected


NUMBERS = [
    case("num-gsm8k-marker", "so 3 + 4 = 7\n#### 7", 7),
    case("num-thousands", "The farm has 1,000 sheep.", 1000),
    case("num-dollar", "She pays $18.", 18),
    case("num-decimal-zero", "The answer is 16.0", 16),
    case("num-answer-marker-beats-last", "The answer is 12. Check: 12 - 9 = 3.", 12),
    case("num-last-number", "First 3, then 9 more, 12 in all", 12),
    case("num-zh-marker", "一共42个。答案：42", 42),
    case("num-negative", "The answer is -5", -5),
    case("num-fraction", "Answer: 3/4", 0.75),
    case("num-boxed", "\\boxed{25}", 25),
    case("num-none", "I cannot determine this.", None),
    case("num-thousands-space", "The answer is 1 000.", 1000),
    case("num-thousands-thin-space", "The answer is 1\u2009000\u2009000", 1000000),
    case("num-thousands-nbsp", "Total: 12\u00a0500 yuan", 12500),
    case("num-after-chinese", "共计1 200元", 1200),
    case("num-after-chinese", "第3题的答案是5", 5),
    case("num-not-in-a-word", "H2O has 3 atoms", 3),
    case("num-scientific", "The answer is 1E+21", 1e21),
    case("num-think-dropped", "<think>The answer is 17</think>The answer is 18", 18),
    case("num-think-unclosed", "<think>The answer is 17, let me check", None),
]


@pytest.mark.parametrize(("reply", "expected"), NUMBERS)
def test_extract_number(reply: str, expected: float | None) -> None:
    value, _ = extract_number(reply)
    assert (None if value is None else float(value)) == expected


REFS = [
    case("ref-gsm8k", "Step 1...\n#### 1,000", 1000),
    case("ref-plain", "42", 42),
    case("ref-dollar", "$18", 18),
    case("ref-decimal", "1000.0", 1000),
    case("ref-text", "Paris", None),
    case("ref-thousands-space", "1 000", 1000),
    case("ref-excel-scientific", "1E+21", 1e21),
]


@pytest.mark.parametrize(("reference", "expected"), REFS)
def test_reference_number(reference: str, expected: float | None) -> None:
    value = reference_number(reference)
    assert (None if value is None else float(value)) == expected


SCORES = [
    case("exact-same", "Paris", "Paris", {}, 1.0),
    case("exact-normalised", "the paris.", "Paris", {}, 1.0),
    case("exact-marker", "I believe the answer is: Paris", "Paris", {}, 1.0),
    case("exact-last-line", "Let me recall.\nParis", "Paris", {}, 1.0),
    case("exact-wrong", "London", "Paris", {}, 0.0),
    case("exact-not-substring", "Paris, Texas is not it; it is Lyon", "Paris", {}, 0.0),
    case("exact-json-list", "NYC", '["New York City", "NYC"]', {}, 1.0),
    case("exact-aliases", "Big Apple", "New York City", {"aliases": ["NYC", "Big Apple"]}, 1.0),
    case("exact-zh", "北京。", "北京", {}, 1.0),
    case("exact-fullwidth", "ＰＡＲＩＳ", "Paris", {}, 1.0),
    case("exact-numeric-gsm8k", "so 1,000 in all", "#### 1000", {}, 1.0),
    case("exact-numeric-decimal", "1000.0", "1000", {}, 1.0),
    case("exact-numeric-dollar", "$18", "18", {}, 1.0),
    case("exact-numeric-wrong", "17", "18", {}, 0.0),
    case("exact-numeric-none", "no idea", "18", {}, 0.0),
    case("exact-empty-reply", "", "Paris", {}, 0.0),
    case("exact-numeric-thousands-space", "The answer is 1 000.", "#### 1000", {}, 1.0),
    case("exact-numeric-excel-display", "123456789012", "1.23457E+11", {}, 1.0),
    case("exact-numeric-excel-display", "123456000000", "1.23457E+11", {}, 0.0),
    case("exact-numeric-excel-big", "1000000000000000000000", "1E+21", {}, 1.0),
    case("exact-numeric-exact-when-few-digits", "1250", "1.2e3", {}, 0.0),
    case("exact-numeric-json-list", "It is 12.", '["12", "twelve"]', {}, 1.0),
    case("exact-numeric-mind-change", "The answer is 12.\nWait, I double counted. The answer is 10.", "10", {}, 1.0),
    case("exact-numeric-yuan", "答案是 18 元", "18", {}, 1.0),
    case("exact-numeric-percent-sign", "The answer is 18%", "18", {}, 1.0),
    case("exact-text-marker-bold", "Final answer: **Paris**", "Paris", {}, 1.0),
    case("exact-text-fullwidth-marker", "答案：巴黎", "巴黎", {}, 1.0),
    case("exact-text-cjk-brackets", "「北京」", "北京", {}, 1.0),
    case("exact-text-not-a-substring", "北京市", "北京", {}, 0.0),
    case("exact-latex-after-marker", "答案是 \\frac{1}{2}", "1/2", {}, 1.0),
    case("exact-math-reference-by-value", "The answer is 0.5.", "\\frac{1}{2}", {}, 1.0),
    case("exact-range-is-not-an-expression", "-10", "1990-2000", {}, 0.0),
    case("exact-date-is-not-an-expression", "The treaty was signed in 1862.", "1879-03-14", {}, 0.0),
    case("exact-date-contained", "He was born on 1879-03-14.", "1879-03-14", {}, 1.0),
    case("exact-contained-zh", "中国的首都是北京。", "北京", {}, 1.0),
    case("exact-contained-negated", "中国的首都不是北京。", "北京", {}, 0.0),
]


@pytest.mark.parametrize(("reply", "reference", "meta", "expected"), SCORES)
def test_score_exact(reply: str, reference: str, meta: dict[str, Any], expected: float) -> None:
    assert score_exact(reply, Item("Q", reference, meta)).score == expected


def test_no_reference_is_unscorable() -> None:
    assert score_exact("x", Item("Q", None)).score is None


# Issue 11: ordinary inputs that scored 0 — an answer that is only an article-like word, a short answer after
# a marker with more sentences after it, and currency or counting words around a number.
ORDINARY = [
    case("article-only-a", "A", "A", 1.0, "a"),
    case("article-only-an", "an", "an", 1.0, "an"),
    case("article-only-the", "The", "the", 1.0, "the"),
    case("article-only-after-marker", "The answer is: A", "A", 1.0, "a"),
    case("article-only-differs", "a", "the", 0.0, "a"),
    case("marker-en", "The answer is Paris.", "Paris", 1.0, "paris"),
    case("marker-en-then-more", "The answer is Paris. It is the capital.", "Paris", 1.0, "paris"),
    case("marker-zh-colon", "答案：北京", "北京", 1.0, "北京"),
    case("marker-zh-shi", "答案是北京。", "北京", 1.0, "北京"),
    case("marker-zh-then-more", "答案：北京。因为它是首都", "北京", 1.0, "北京"),
    case("marker-decimal-kept", "The answer is 3.5.", "3.5", 1.0, "3.5"),
    case("currency-yen-reply", "¥18", "18", 1.0, "18"),
    case("currency-yuan-reply", "共计18元", "18", 1.0, "18"),
    case("currency-both", "共计18元", "¥18", 1.0, "18"),
    case("currency-yuan-reference", "一共要付18元", "18元", 1.0, "18"),
    case("currency-dollars-reference", "The answer is 18 dollars.", "18 dollars", 1.0, "18"),
    case("count-word-reference", "所以有3个", "3个", 1.0, "3"),
    case("currency-wrong-number", "共计19元", "18元", 0.0, "19"),
    case("measure-not-stripped", "18厘米", "18米", 0.0, "18厘米"),
    case("no-number-found", "I do not know.", "18", 0.0, None),
]


@pytest.mark.parametrize(("reply", "reference", "expected", "extracted"), ORDINARY)
def test_ordinary_inputs(reply: str, reference: str, expected: float, extracted: str | None) -> None:
    result = score_exact(reply, Item("Q", reference))
    assert (result.score, result.extracted) == (expected, extracted)


REFERENCE_WORDS = [
    case("ref-yuan", "18元", 18),
    case("ref-gongji", "共计18元", 18),
    case("ref-yen", "¥18", 18),
    case("ref-dollars", "18 dollars", 18),
    case("ref-count", "3个", 3),
    case("ref-measure-is-text", "18米", None),
    case("ref-words-only", "元", None),
]


@pytest.mark.parametrize(("reference", "expected"), REFERENCE_WORDS)
def test_reference_number_with_currency_and_counting_words(reference: str, expected: float | None) -> None:
    assert reference_number(reference) == expected
