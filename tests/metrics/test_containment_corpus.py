"""Containment on real Chinese short-answer replies (tests/corpora/qa_zh): LawBench's consultation category
(2-4) and charge prediction (3-3), 52 models. Scored through the exact metric, checked against the
adjudicated truth (does the reply commit to the reference as its answer?)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from scoring import Item
from scoring._metrics.exact import score_exact

CORPUS = Path(__file__).resolve().parents[1] / "corpora" / "qa_zh" / "lawbench_short_answers.jsonl"


def _cases() -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in CORPUS.read_bytes().splitlines() if line.strip()]


def _score(case: dict[str, Any]) -> tuple[float | None, str | None]:
    result = score_exact(case["reply"], Item(case["question"], case["reference"]))
    return result.score, result.matched_by


def test_the_corpus_is_what_its_readme_says() -> None:
    cases = _cases()
    assert len(cases) == 209
    assert Counter((case["truth"], case["naive"]) for case in cases) == {(1, 1): 87, (0, 1): 42, (0, 0): 80}
    assert Counter(case["task"] for case in cases) == {"2-4": 132, "3-3": 77}


def test_containment_credits_no_reply_that_does_not_commit_to_the_reference() -> None:
    accepted = [case["id"] for case in _cases() if _score(case)[0] == 1.0 and not case["truth"]]
    assert accepted == []


def test_containment_credits_the_replies_that_commit_to_the_reference() -> None:
    cases = _cases()
    right = [case for case in cases if case["truth"]]
    scored = [_score(case) for case in right]
    # 78 before issue 38; 3 more once the reply's first sentence that states its answer is read (#38)
    assert sum(score == 1.0 for score, _ in scored) == 81
    # 15 match after normalisation once end tokens (<eoa>) are dropped; the rest need containment
    assert sum(how == "containment" for _, how in scored) == 66
    # answers stated early and followed by advice or sentencing remarks, or between misspelt end tags: the
    # rule reads the marked answer, a labelled answer line and the final sentence only
    missed = sorted(case["id"] for case, (score, _) in zip(right, scored, strict=True) if score != 1.0)
    assert len(missed) == 6, missed


def test_a_naive_substring_rule_would_credit_42_replies_that_do_not_commit() -> None:
    """What a post-processor that looks for the reference anywhere in the reply would accept wrongly."""
    wrong = [case for case in _cases() if case["naive"] and not case["truth"]]
    assert len(wrong) == 42
    assert all(_score(case)[0] == 0.0 for case in wrong)
