"""The math metric for one response: extraction, choice references, proof items, blanks with partial credit.

One item is scored under one time limit (:mod:`budget`): extraction is bounded by construction (it reads
at most the reply's last 32,000 characters, each step linear), and the comparison checks the deadline
between steps and gives sympy only what is left. An item that runs out is ``settled: false`` with the
reason, so ``--judge-fallback`` can send it on.
"""

from __future__ import annotations

import math
import re
import time

from scoring._metrics.base import Item, ItemScore
from scoring._metrics.choice import choice_key, score_choice
from scoring._metrics.extract.math import boxed_contents, extract_math_answer
from scoring._metrics.extract.math_text import Blank, blanks, reply_text
from scoring._metrics.extract.numeric import extract_number, reference_number
from scoring._metrics.extract.zh_numbers import arabic_numerals
from scoring._metrics.math.budget import TimeLimit, budget
from scoring._metrics.math.equal import APPROX_PI, text_key
from scoring._metrics.math.partial import Credit, blank_credit, split_top_level
from scoring._metrics.math.sympy_guard import SympyGuard

__all__ = ["ITEM_LIMIT", "is_proof_item", "math_credit", "math_equal", "score_math"]

# Seconds one item may take (extraction, normalisation, comparison) when no sympy guard sets the limit.
ITEM_LIMIT = 2.0
_PROOF_TYPES = re.compile(r"proof|prove|draw|sketch|证明|作图|画图|绘图|作图题|证明题", re.IGNORECASE)
_COMMA = re.compile(r"\s*[,，、]\s*")
# A question that lets π be 3.14: "π取3.14", "use 3.14 for π", "(π ≈ 3.14)".
_PI_APPROX = re.compile(r"3\.14|π\s*(?:取|≈|约)|(?i:approximat\w*\s+(?:\\pi|π|pi))")
_TIME_LIMIT = "time limit: the item's extraction and comparison did not finish within {:g} s"


def is_proof_item(item: Item) -> bool:
    kind = item.meta.get("question_type")
    return isinstance(kind, str) and bool(_PROOF_TYPES.search(kind))


# A note that any fitting answer is accepted: "2 (满足 1<e≤√5 皆可)", "Q(−4,1)(答案不唯一)".
_ANY_FITTING = re.compile(r"\s*[（(][^()（）]{0,80}(?:皆可|即可|均可|不唯一)[^()（）]{0,20}[)）]\s*[。.]?\s*$")
# GAOKAO-Bench writes equivalent forms of one answer as "\\frac{3}{10} \\# \\# 0.3".
_SAME_ANSWER = re.compile(r"\s*\\?#\s*\\?#\s*")


def _reference_answer(reference: str) -> str:
    boxes = list(dict.fromkeys(boxed_contents(reference)))  # a box repeated is one answer
    if boxes:
        return ";".join(boxes)
    if "####" in reference:
        return reference.rsplit("####", 1)[1].strip()
    return reference.strip()


def _unbraced(text: str) -> str:
    s = text.replace("$", "").strip().replace("\\{", "{").replace("\\}", "}")
    return s[1:-1] if s.startswith("{") and s.endswith("}") and s.count("{") == 1 else text


def _expanded(pred: list[Blank], wanted: int) -> list[Blank]:
    """A list answered in one blank (``1, 2, 3`` or ``\\{1, 2, 3\\}``) against a reference with a blank each."""
    out = [Blank(piece, b.part) for b in pred for piece in split_top_level(_unbraced(b.text), _COMMA)]
    return out if len(out) >= wanted else pred


def _best_match(pred: list[Blank], ref: list[Blank], guard: SympyGuard | None) -> list[Credit]:
    """Each reference blank takes the reply blank that earns it most (each reply blank used once)."""
    remaining = list(pred)
    credits: list[Credit] = []
    for r in ref:
        best = Credit(0.0, True, "missing")
        best_k = -1
        for k, p in enumerate(remaining):
            c = blank_credit(p.text, r.text, guard)
            if c.score > best.score:
                best, best_k = c, k
            if best.score >= 1.0:
                break
        if best_k >= 0:
            remaining.pop(best_k)
        credits.append(best)
    return credits


def _credits(pred: list[Blank], ref: list[Blank], guard: SympyGuard | None) -> list[Credit]:
    if all(b.part is not None for b in pred) and all(b.part is not None for b in ref):
        # Numbered parts answer numbered parts: "(2) 125.6cm^2" earns part (2)'s blanks only.
        credits: list[Credit] = []
        for number in dict.fromkeys(b.part for b in ref):
            ref_part = [b for b in ref if b.part == number]
            pred_part = [b for b in pred if b.part == number]
            if len(pred_part) == 1 < len(ref_part):
                pred_part = _expanded(pred_part, len(ref_part))
            if len(pred_part) == len(ref_part):
                credits.extend(blank_credit(p.text, r.text, guard) for p, r in zip(pred_part, ref_part, strict=True))
            else:
                credits.extend(_best_match(pred_part, ref_part, guard))
        return credits
    if len(pred) == 1 < len(ref):
        listed = _expanded(pred, len(ref))
        if listed is not pred:
            return _best_match(listed, ref, guard)  # a list's elements answer the blanks in any order
    if len(pred) == len(ref):
        return [blank_credit(p.text, r.text, guard) for p, r in zip(pred, ref, strict=True)]
    return _best_match(pred, ref, guard)


def math_credit(pred: str, ref: str, guard: SympyGuard | None = None) -> tuple[float, bool, str]:
    """Score in [0, 1] (two decimals), settled flag and a note for an extracted answer against a reference."""
    forms = [f for f in _SAME_ANSWER.split(ref) if f.strip()] if "#" in ref else []
    if len(forms) > 1:
        # Equivalent forms of one answer: the best of them.
        return max((_credit(pred, form, guard) for form in forms), key=lambda c: c[0])
    return _credit(pred, ref, guard)


def _noted(found: list[Blank]) -> list[Blank]:
    """Blanks without their "(… 即可)" notes (any fitting answer is accepted; the value is compared)."""
    return [Blank(_ANY_FITTING.sub("", b.text) or b.text, b.part) for b in found]


def _credit(pred: str, ref: str, guard: SympyGuard | None) -> tuple[float, bool, str]:
    if text_key(pred) == text_key(ref) and text_key(ref):
        return 1.0, True, "same text"
    ref_blanks = _noted(blanks(ref))
    if len(ref_blanks) == 1:
        credit = blank_credit(_ANY_FITTING.sub("", pred) or pred, ref_blanks[0].text, guard)
        return round(credit.score, 2), credit.settled, credit.how
    credits = _credits(_noted(blanks(pred)), ref_blanks, guard)
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
        if not result.extracted:
            fallback = _choice_from_answer(content, key[1], key[2])
            if fallback is not None:
                return fallback
        return ItemScore(result.score, result.analysis.replace("choice:", "math (choice rule):", 1), result.extracted)
    limit = guard.timeout if guard is not None else ITEM_LIMIT
    started = time.monotonic()
    token = APPROX_PI.set(bool(_PI_APPROX.search(item.question)))
    try:
        with budget(limit):
            return _score(content or "", item, guard, limit, started)
    finally:
        APPROX_PI.reset(token)


_LETTER = re.compile(r"(?<![A-Za-z])([A-J])(?![A-Za-z])")


def _choice_from_answer(content: str, valid: str, expected: str) -> ItemScore | None:
    """Seed 003's choice rule on the math answer (``【答案】B``): right when it names the reference's
    letters and no other; None when the answer names no option letter."""
    answer, how = extract_math_answer(content, 1)
    letters = "".join(sorted({m.group(1) for m in _LETTER.finditer(answer[:200]) if m.group(1) in valid}))
    if not letters:
        return None
    score = 1.0 if letters == "".join(sorted(expected)) else 0.0
    return ItemScore(
        score,
        f"math (choice rule): extracted «{answer[:200]}» via {how}: option(s) {letters}; reference {expected}; "
        f"{'right' if score else 'wrong'}",
        letters,
    )


def _score(content: str, item: Item, guard: SympyGuard | None, limit: float, started: float) -> ItemScore:
    ref = _reference_answer(item.reference or "")
    body, _ = reply_text(content)
    if body.strip() and text_key(body) == text_key(ref):
        return ItemScore(1.0, f"math: the reply is the reference «{ref[:200]}»; score 1.00", ref[:200])
    answer, how = extract_math_answer(content, len(blanks(ref)))
    if not answer:
        return ItemScore(0.0, f"math: no answer found ({how}); reference «{ref[:200]}»; score 0", None)
    head = f"math: extracted «{answer[:200]}» via {how}; reference «{ref[:200]}»"
    timeouts = guard.timeouts if guard is not None else 0
    try:
        if time.monotonic() - started > limit:
            raise TimeLimit
        score, settled, note = math_credit(answer, ref, guard)
    except TimeLimit:
        reason = _TIME_LIMIT.format(limit)
        return ItemScore(
            None, f"{head}; not settled ({reason}): a math judge can review it", answer[:200], False, reason
        )
    if not settled and guard is not None and guard.timeouts > timeouts:
        # sympy ran out of time: nothing was decided, so the item is unscored (null), never 0
        reason = f"time limit: sympy did not finish within {guard.timeout:g} s"
        return ItemScore(
            None, f"{head}; not settled ({reason}): a math judge can review it", answer[:200], False, reason
        )
    if score < 1.0:
        spelled = _in_digits(answer, ref, guard)
        if spelled is not None:
            return ItemScore(
                spelled.score,
                f"{head}; {spelled.analysis}",
                spelled.extracted,
                spelled.settled,
                spelled.unsettled_reason,
                guessed=how.startswith("last sentence"),
            )
    if not settled and score < 1.0:
        by_value = _by_value(answer, ref)
        if by_value is not None:
            return ItemScore(
                by_value.score,
                f"{head}; {by_value.analysis}",
                by_value.extracted,
                by_value.settled,
                by_value.unsettled_reason,
                guessed=how.startswith("last sentence"),
            )
    tail = "" if settled else "; not settled (sympy could not parse them): a math judge can review it"
    return ItemScore(
        score,
        f"{head}; {note}; score {score:.2f}{tail}",
        answer[:200],
        settled,
        None if settled else "sympy could not parse the answers",
        guessed=how.startswith("last sentence"),
    )


def _in_digits(answer: str, ref: str, guard: SympyGuard | None) -> ItemScore | None:
    """An answer in Chinese numerals (``三分之一``, ``百分之五十``, ``一年有四个季节``) that was not right as
    written: compared again with its numerals in digits, then (a numeric reference) by the number it
    states last. None when the answer has no Chinese numeral or is still not right."""
    digits = arabic_numerals(answer)
    if digits == answer:
        return None
    score, settled, note = math_credit(digits, ref, guard)
    if score >= 1.0:
        return ItemScore(score, f"read in digits «{digits[:200]}»: {note}; score 1.00", digits[:200], settled)
    expected = reference_number(ref)
    value, how = extract_number(answer)
    if expected is None or value is None or not math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-9):
        return None
    return ItemScore(1.0, f"read in digits «{digits[:200]}»: its value {value:g} ({how}); score 1.00", f"{value:g}")


def _by_value(answer: str, ref: str) -> ItemScore | None:
    """An answer sympy cannot parse (``A: 540``, ``540 meters a week``) against a numeric reference: the
    number it states, compared by value. None when either has no number to compare."""
    expected = reference_number(ref)
    if expected is None:
        return None
    value, how = extract_number(answer)
    if value is None:
        return None
    shown = f"{value:g}" if abs(value) < 1e15 else repr(value)
    if math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-9):
        return ItemScore(
            1.0, f"sympy could not parse it; its value {shown} ({how}) is the reference's; score 1.00", shown
        )
    return ItemScore(
        0.0,
        f"sympy could not parse it; its value {shown} ({how}) is not the reference's; score 0.00; "
        "not settled: a math judge can review it",
        answer[:200],
        False,
        "sympy could not parse the answer; its value differs",
    )
