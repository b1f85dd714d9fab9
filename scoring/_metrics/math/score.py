"""The math metric for one response: extraction, choice references, proof items, blanks with partial credit."""

from __future__ import annotations

import re

from scoring._metrics.base import Item, ItemScore
from scoring._metrics.choice import choice_key, score_choice
from scoring._metrics.extract.math import boxed_contents, extract_math_answer
from scoring._metrics.math.partial import Credit, blank_credit, split_blanks, split_top_level
from scoring._metrics.math.sympy_guard import SympyGuard

__all__ = ["is_proof_item", "math_credit", "math_equal", "score_math"]

_PROOF_TYPES = re.compile(r"proof|prove|draw|sketch|证明|作图|画图|绘图|作图题|证明题", re.IGNORECASE)
_COMMA = re.compile(r"\s*[,，]\s*")


def is_proof_item(item: Item) -> bool:
    kind = item.meta.get("question_type")
    return isinstance(kind, str) and bool(_PROOF_TYPES.search(kind))


def _reference_answer(reference: str) -> str:
    boxes = boxed_contents(reference)
    if boxes:
        return ";".join(boxes)
    if "####" in reference:
        return reference.rsplit("####", 1)[1].strip()
    return reference.strip()


def math_credit(pred: str, ref: str, guard: SympyGuard | None = None) -> tuple[float, bool, str]:
    """Score in [0, 1] (two decimals), settled flag and a note for an extracted answer against a reference."""
    ref_blanks = split_blanks(ref)
    if len(ref_blanks) == 1:
        credit = blank_credit(pred, ref_blanks[0], guard)
        return round(credit.score, 2), credit.settled, credit.how
    pred_blanks = split_blanks(pred)
    if len(pred_blanks) < len(ref_blanks):
        expanded = [part for blank in pred_blanks for part in split_top_level(blank, _COMMA)]
        if len(expanded) >= len(ref_blanks):
            pred_blanks = expanded
    credits: list[Credit] = []
    if len(pred_blanks) == len(ref_blanks):
        credits = [blank_credit(p, r, guard) for p, r in zip(pred_blanks, ref_blanks, strict=False)]
    else:
        remaining = list(pred_blanks)
        for r in ref_blanks:
            best = Credit(0.0, True, "missing")
            best_k = -1
            for k, p in enumerate(remaining):
                c = blank_credit(p, r, guard)
                if c.score > best.score:
                    best, best_k = c, k
            if best_k >= 0:
                remaining.pop(best_k)
            credits.append(best)
    score = sum(c.score for c in credits) / len(ref_blanks)
    notes = ", ".join(f"{c.score:.2g}" for c in credits)
    return round(score, 2), all(c.settled for c in credits), f"{len(ref_blanks)} blanks: {notes}"


def math_equal(pred: str, ref: str, guard: SympyGuard | None = None) -> float:
    """Credit in [0, 1] for an answer (already extracted) against a reference; 1.0 when equivalent.

    >>> math_equal("\\\\frac{1}{2}", "0.5")
    1.0
    >>> math_equal("5", "5 or -75")
    0.5
    """
    return math_credit(pred, ref, guard)[0]


def score_math(content: str, item: Item, guard: SympyGuard | None = None) -> ItemScore:
    """Score one reply with the math metric."""
    if is_proof_item(item):
        kind = item.meta.get("question_type")
        return ItemScore(1.0, f"math: {kind} item — full credit by rule (seed 003), not graded; flag: proof-or-drawing")
    if item.reference is None or not item.reference.strip():
        return ItemScore(None, "math: no reference answer")
    key = choice_key(item)
    if key is not None and key[0] == "letters":
        result = score_choice(content, item, key)
        return ItemScore(result.score, result.analysis.replace("choice:", "math (choice rule):", 1), result.extracted)
    ref = _reference_answer(item.reference)
    answer, how = extract_math_answer(content, len(split_blanks(ref)))
    if not answer:
        return ItemScore(0.0, f"math: no answer found ({how}); reference «{ref[:200]}»; score 0", None)
    score, settled, note = math_credit(answer, ref, guard)
    tail = "" if settled else "; not settled (time limit or unparseable): a math judge can review it"
    return ItemScore(
        score,
        f"math: extracted «{answer[:200]}» via {how}; reference «{ref[:200]}»; {note}; score {score:.2f}{tail}",
        answer[:200],
        settled,
        None if settled else "sympy could not decide (time limit, or it could not parse the answers)",
        guessed=how.startswith("last sentence"),
    )
