"""The math metric on real material (tests/corpora/math, sources in its README): identity on real
references in both languages, partial credit per blank, mutations scoring less, and agreement with a
peer's equivalence tables, a judge's marks and a published extraction. Floors are the figures measured
when the corpora were added, less a little slack; a drop below one is a regression."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from fuzz import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import Item
from scoring._metrics.extract.math_text import blanks
from scoring._metrics.math import SympyGuard, answers_equal, score_math

CORPORA = Path(__file__).resolve().parents[1] / "corpora" / "math"


@cache
def load(name: str) -> tuple[dict[str, Any], ...]:
    with (CORPORA / name).open(encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f)


def references(lang: str) -> list[str]:
    return [row[f"answer_{lang}"] for row in load("mathreal_references.jsonl")]


WRAPPERS: dict[str, Callable[[str], str]] = {
    "verbatim": lambda r: r,
    "final-answer": lambda r: f"Final answer: {r}",
    "zh-keyword": lambda r: f"答案：{r}",
    "boxed": lambda r: f"\\boxed{{{r}}}",
    "sentence-en": lambda r: f"So the answer is {r}.",
    "sentence-zh": lambda r: f"所以答案是{r}。",
}


@pytest.mark.parametrize("lang", ["cn", "en"])
@pytest.mark.parametrize("wrapper", list(WRAPPERS))
def test_a_reply_that_is_the_reference_scores_one(lang: str, wrapper: str) -> None:
    wrap = WRAPPERS[wrapper]
    refs = references(lang)
    misses = [ref for ref in refs if score_math(wrap(ref), Item("Q", ref)).score != 1.0]
    assert len(misses) <= 0.01 * len(refs), misses[:5]


# Replies around the final answer: reasoning first, a keyword, markup, punctuation (hypothesis composes them).
PREAMBLES = [
    "",
    "Let me work through it step by step.\n\n",
    "解：由题意可知，先求出各量。\n",
    "<think>draft: 42</think>",
]
KEYWORDS = ["Final answer: ", "The answer is ", "答案：", "【答案】", "**Final Answer**\n", "最终答案是"]
ENDINGS = ["", ".", "。", "\n", ". I hope it is correct.", "。\n\n以上。"]


@cache
def _clean_references() -> tuple[str, ...]:
    """References whose plain wrappers all score 1.0 (the few that do not are listed by the test above)."""
    refs = references("cn") + references("en")
    return tuple(r for r in refs if all(score_math(w(r), Item("Q", r)).score == 1.0 for w in WRAPPERS.values()))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    preamble=st.sampled_from(PREAMBLES),
    keyword=st.sampled_from(KEYWORDS),
    ending=st.sampled_from(ENDINGS),
)
def test_wrapped_references_score_one(data: st.DataObject, preamble: str, keyword: str, ending: str) -> None:
    ref = data.draw(st.sampled_from(_clean_references()))
    reply = f"{preamble}{keyword}{ref}{ending}"
    result = score_math(reply, Item("Q", ref))
    assert result.score == 1.0, (reply, result.analysis)


def _distinct_blanks(ref: str) -> list[str] | None:
    texts = [b.text for b in blanks(ref)]
    return texts if len(texts) >= 2 and len(set(texts)) == len(texts) else None


def test_a_reply_answering_some_blanks_gets_their_share() -> None:
    checked = right = 0
    misses: list[tuple[str, str, float | None]] = []
    for lang in ("cn", "en"):
        for ref in references(lang):
            texts = _distinct_blanks(ref)
            if texts is None:
                continue
            for given_ in (1, len(texts) - 1):
                reply = "答案：" + ";".join(texts[:given_])
                score = score_math(reply, Item("Q", ref)).score
                checked += 1
                if score is not None and abs(score - round(given_ / len(texts), 2)) <= 0.011:
                    right += 1
                else:
                    misses.append((ref, reply, score))
    assert checked > 800
    assert right >= 0.90 * checked, misses[:5]


def _mutations(ref: str) -> Iterator[tuple[str, str]]:
    digits = list(re.finditer(r"\d", ref))
    if digits:
        i = digits[-1].start()
        yield "digit", ref[:i] + str((int(ref[i]) + 1) % 10) + ref[i + 1 :]
    for old, new in (("cm", "m"), ("dm", "cm"), ("<", ">"), ("≤", "≥"), ("+", "-")):
        if old in ref:
            yield f"{old}->{new}", ref.replace(old, new)


def test_a_changed_number_unit_relation_or_sign_scores_less() -> None:
    checked: dict[str, int] = {}
    caught: dict[str, int] = {}
    for lang in ("cn", "en"):
        for ref in references(lang):
            for kind, mutated in _mutations(ref):
                checked[kind] = checked.get(kind, 0) + 1
                if (score_math(mutated, Item("Q", ref)).score or 0.0) < 1.0:
                    caught[kind] = caught.get(kind, 0) + 1
    for kind in ("digit", "cm->m", "dm->cm", "<->>", "≤->≥"):
        assert caught.get(kind, 0) >= 0.99 * checked[kind], kind
    # "+" inside a named quantity (f(x_1+4x_2) 的最小值为 -4) names the value; the value is what is compared.
    assert caught["+->-"] >= 0.9 * checked["+->-"]


def test_agreement_with_math_verify_tables(guard: SympyGuard) -> None:
    cases = load("math_verify_cases.jsonl")
    agree = sum((score_math(c["pred"], Item("", c["gold"]), guard).score == 1.0) == bool(c["expected"]) for c in cases)
    assert agree >= 0.92 * len(cases)


def test_agreement_with_the_gaokao_judge(guard: SympyGuard) -> None:
    rows = load("gaokao_gpt4_fill_in.jsonl")
    agree = 0
    for row in rows:
        reply = row["reply"].replace("<eoe>", "").replace("<eoa>", "")
        ours = score_math(reply, Item("", row["reference"]), guard).score == 1.0
        agree += ours == (row["judge_points"] >= row["full_points"])
    assert agree >= 0.94 * len(rows)


def test_extraction_agrees_with_the_published_extraction() -> None:
    rows = load("mathvista_free_form.jsonl")
    agree = 0
    for row in rows:
        ours = score_math(row["reply"], Item("", row["reference"])).extracted or ""
        theirs = row["gpt4_extraction"]
        if theirs in (None, "", "N/A"):
            agree += not re.search(r"\d", ours)
        else:
            agree += bool(ours) and answers_equal(ours, str(theirs)).equal
    assert agree >= 0.78 * len(rows)
