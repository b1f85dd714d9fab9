"""``exact`` on real math replies with fraction and LaTeX references (tests/corpora/math): GPT-4's GAOKAO
fill-in-the-blank replies (``【答案】$\\frac{1}{2}$<eoa>``) and MathVista's free-form numeric replies,
against the published judgements. Issue 19: a marked LaTeX value is compared by value, never replaced by
"the last number in the reply"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from scoring import Item
from scoring._metrics.exact import score_exact

CORPORA = Path(__file__).resolve().parents[1] / "corpora" / "math"


def _load(name: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (CORPORA / name).read_bytes().splitlines() if line.strip()]


def test_gaokao_single_blank_replies_agree_with_the_judge() -> None:
    rows = [r for r in _load("gaokao_gpt4_fill_in.jsonl") if not any(c in r["reference"] for c in "、;；,，\n")]
    assert len(rows) == 160
    agree = wrong_ones = 0
    for row in rows:
        full = row["judge_points"] >= row["full_points"]
        ours = score_exact(row["reply"], Item("", row["reference"])).score == 1.0
        agree += ours == full
        wrong_ones += ours and not full
    # before issue 19: 115 of 160 (LaTeX answers after 【答案】 read as their last number, <eoa> kept);
    # the 4 credited against the judge are right in value (∛(15/120) = 1/2, λ = 1/2, 2√2, y = x + 1)
    assert agree >= 154
    assert wrong_ones <= 4


def test_mathvista_numeric_replies_agree_with_the_published_verdict() -> None:
    rows = [r for r in _load("mathvista_free_form.jsonl") if r["answer_type"] in ("integer", "float")]
    agree = sum((score_exact(r["reply"], Item("", r["reference"])).score == 1.0) == bool(r["true_false"]) for r in rows)
    assert agree >= 243 and len(rows) == 248
