"""Issue 28 (items 1 and 2): ``math`` on GSM8K-style solutions and Chinese numerals, on published replies with
their publishers' labels (tests/corpora/math/README.md, tests/corpora/qa_zh/README.md), against the peers'
verdicts recorded beside each reply. Errors are counted both ways: right answers marked wrong, wrong ones
credited."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from scoring import Item
from scoring._metrics.exact import score_exact
from scoring._metrics.math import SympyGuard, score_math

CORPORA = Path(__file__).resolve().parents[1] / "corpora"
PEERS = ("math_verify", "lm_eval_strict", "lm_eval_flexible", "evalscope")


def _load(name: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (CORPORA / name).read_bytes().splitlines() if line.strip()]


def _errors(rows: list[dict[str, Any]], verdict: list[bool]) -> tuple[int, int]:
    missed = sum(1 for r, v in zip(rows, verdict, strict=True) if r["truth"] and not v)
    credited = sum(1 for r, v in zip(rows, verdict, strict=True) if not r["truth"] and v)
    return missed, credited


@pytest.mark.parametrize(
    ("name", "rows_right", "math_before"),
    [("math/gsm8k_openai_solutions.jsonl", (300, 104), 102), ("qa_zh/chinese_llama_reasoning.jsonl", (121, 46), 15)],
)
def test_math_makes_no_more_errors_than_any_peer_or_auto(
    name: str, rows_right: tuple[int, int], math_before: int, guard: SympyGuard
) -> None:
    rows = _load(name)
    assert (len(rows), sum(r["truth"] for r in rows)) == rows_right
    ours = [score_math(r["reply"], Item(r["question"], r["reference"]), guard).score == 1.0 for r in rows]
    exact = [score_exact(r["reply"], Item(r["question"], r["reference"])).score == 1.0 for r in rows]
    assert _errors(rows, ours) == (0, 0)  # before issue 28: math_before right answers marked wrong
    assert sum(_errors(rows, [bool(r["before"]["math"]) for r in rows])) == math_before
    assert _errors(rows, exact) == (0, 0)  # what auto picks for numeric references
    for peer in PEERS:
        assert sum(_errors(rows, ours)) <= sum(_errors(rows, [bool(r["peers"][peer]) for r in rows])), peer
