"""Scoring speed: records/s for choice, exact and math, against a baseline measured in the same run.

Run: python benchmarks/bench_scoring.py [--records 100000] [--math-records 5000]

The baseline is the cost of json-parsing the same records (orjson), the floor any scorer pays; each
metric is timed as parse + score, and printed with its ratio to the baseline. Choice is also compared with
a simple first-pattern extractor (the approach evalscope takes: the first of a few fixed "answer" patterns,
else the last option capital), written here in a few lines and timed on the same records in the same run.
The math mix holds a few pathological items (power towers, huge expressions, sympy-only comparisons) and
degenerate replies (a keyword repeated 2,000 times, 10,000 unclosed <think> tags, 100 KB of LaTeX) to show
that the per-item time limit holds the worst case; the rest of the mix is real material from
tests/corpora/math (GAOKAO and MathVista replies, MathReal references in answer sentences) beside generated
items.
Targets: choice ≥ 30,000 records/s, exact ≥ 20,000 records/s; math ≥ 2,000 records/s.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from scoring._metrics.math.sympy_guard import SympyGuard
from scoring._pipeline.score import Scorer

LETTERS = "ABCDEFGHIJ"
COT = (
    "Let's think step by step. The question asks about the property described in the stem. "
    "Option A is too broad, and option C confuses cause with effect. Considering the definitions, "
    "the remaining candidates differ in one detail, which the passage settles. "
)


def record(sid: int, question: str, reference: str, reply: str, dataset: str) -> dict[str, Any]:
    return {
        "session_id": sid,
        "messages": [
            {"role": "user", "content": question},
            {
                "role": "assistant",
                "reference_response": reference,
                "responses": [
                    {
                        "parameters": {},
                        "usage": {"prompt_tokens": 700, "completion_tokens": 180, "total_tokens": 880},
                        "content": reply,
                    }
                ],
            },
        ],
        "meta": {"dataset": dataset},
    }


def choice_records(n: int, rng: random.Random) -> list[bytes]:
    out = []
    for i in range(n):
        # every question differs (as in a real set), so no cache flatters the figures
        options = "\n".join(f"{c}) option {c} of item {i}" for c in LETTERS)
        question = f"Answer the following multiple choice question.\nWhich one holds ({i})?\nOptions:\n{options}"
        ref = rng.choice(LETTERS)
        pick = ref if rng.random() < 0.7 else rng.choice(LETTERS)
        style = i % 8
        if style == 0:
            reply = f"{COT * 3}\nANSWER: {pick}"
        elif style == 1:
            reply = f"{COT * 2}At first ANSWER: A, but rechecking, the answer is ({pick})."
        elif style == 2:
            reply = f"<think>{COT * 4}</think>\n**ANSWER: {pick}**"
        elif style == 3:
            reply = f"分析：{COT}\n答案：{pick}"
        elif style == 4:
            reply = pick
        elif style == 5:
            reply = f"{COT * 2}None of the values match exactly, but the closest option is ({pick}) option {pick}."
        elif style == 6:
            reply = f"[正确答案]{pick}<eoa>\n根据题意，{COT}"
        else:
            reply = f"{COT * 2}I am not sure."
        out.append(orjson.dumps(record(i, question, ref, reply, "mmlu_pro")))
    return out


def exact_records(n: int, rng: random.Random) -> list[bytes]:
    out = []
    for i in range(n):
        value = rng.randint(1, 5000)
        got = value if rng.random() < 0.7 else value + rng.randint(1, 9)
        style = i % 4
        if style == 0:
            half = value // 2
            reply = f"First {half} then {value - half}, so {half} + {value - half} = {got}.\n#### {got}"
        elif style == 1:
            reply = f"She has {got:,} apples in total. The answer is {got:,}."
        elif style == 2:
            reply = f"Cost: ${got}.00 after 3 steps of 12 each."
        else:
            reply = f"Step 1: 12 * 3 = 36. Step 2: 36 + 4 = 40. Therefore the answer is {got}"
        question = "Natalia sold clips to 48 of her friends in April, and then she sold half as many in May..."
        out.append(orjson.dumps(record(i, question, f"Solution steps\n#### {value}", reply, "gsm8k")))
    return out


MATH_ITEMS: list[tuple[str, str]] = [
    ("\\frac{3}{4}", "The sum is \\boxed{0.75}"),
    ("\\frac{\\sqrt{3}+3}{2}", "Thus \\boxed{\\frac{\\sqrt{3}}{2}+\\frac{3}{2}}"),
    ("5 or -75", "The answer is x = 5"),
    ("(1, 0), (9, 8), (-1, 9)", "所以交点为 (1, 0), (9, 8), (-1, 8)。"),
    ("(1) 3 (2) 5", "(1) \\boxed{3} (2) \\boxed{4}"),
    ("[0,1]", "综上，$0\\le x\\le 1$"),
    ("12平方厘米", "答案：12 cm^2"),
    ("x^2+2x+1", "Expanding, \\boxed{(x+1)^2}"),
    ("18+6\\sqrt{3}", "\\boxed{18-6\\sqrt{3}}"),
    ("50\\%", "The answer is 0.5"),
    ("y=2x+3", "\\boxed{2x - y + 3 = 0}"),
    ("(-\\infty,0)\\cup(2,+\\infty)", "Final answer: x<0 or x>2"),
    ("1.2\\times10^{3}", "\\boxed{1200}"),
    ("\\pi/6", "\\boxed{30^\\circ}"),
    ("isosceles", "It is an isosceles triangle. Final answer: isosceles"),
]
PATHOLOGICAL: list[tuple[str, str]] = [
    ("1", "\\boxed{9^{9^{9^{9}}}}"),
    ("1", "\\boxed{" + "x+" * 2000 + "1}"),
    ("120", "\\boxed{5!}"),
    ("10", "\\boxed{binomial(5,2)}"),
    ("0", "\\boxed{\\sin(x)^{10}\\cos(x)^{9} - \\tan(x)^{7}\\sin(x)^{3}}"),
    ("2", "\\boxed{2^{2^{2^{2^{2}}}}}"),
]


DEGENERATE: list[tuple[str, str]] = [
    ("5", "答案是" * 2000),
    ("5", "<think>" * 10_000),
    ("\\frac{1}{2}", "\\frac{1}{2}+" * 8500),
    ("\\frac{1}{2}", "\\boxed{" + "\\frac{1}{2}+" * 8500 + "}"),
    ("1", "The answer is 1. " * 5000),
    ("1", "\\boxed{" + "{" * 20_000 + "}" * 20_000 + "}"),
]
CORPORA = Path(__file__).resolve().parents[1] / "tests" / "corpora" / "math"


def real_items() -> list[tuple[str, str]]:
    """(reference, reply) pairs from the real corpora: published replies, and references in answer sentences."""
    items: list[tuple[str, str]] = []
    with (CORPORA / "gaokao_gpt4_fill_in.jsonl").open(encoding="utf-8") as f:
        items += [(row["reference"], row["reply"]) for row in map(json.loads, f)]
    with (CORPORA / "mathvista_free_form.jsonl").open(encoding="utf-8") as f:
        items += [(row["reference"], row["reply"]) for row in map(json.loads, f)]
    with (CORPORA / "mathreal_references.jsonl").open(encoding="utf-8") as f:
        for row in map(json.loads, f):
            items.append((row["answer_cn"], f"解：……\n答案：{row['answer_cn']}"))
            items.append((row["answer_en"], f"Let me work it out.\n\nFinal answer: {row['answer_en']}"))
    return items


def math_records(n: int, rng: random.Random) -> list[bytes]:
    out = []
    real = real_items()
    for i in range(n):
        ref, reply = MATH_ITEMS[i % len(MATH_ITEMS)]
        # vary the numbers a little so caching does not flatter the figures
        k = rng.randint(2, 999)
        if i % 3 == 0:
            ref, reply = f"\\frac{{{k}}}{{{k + 1}}}", f"So the result is \\boxed{{{k}/{k + 1}}}"
        elif i % 3 == 1:
            ref, reply = real[(i // 3) % len(real)]
            reply = reply.replace("<eoe>", "").replace("<eoa>", "")
            out.append(orjson.dumps(record(i, "Solve the problem.", ref, reply, "math")))
            continue
        out.append(orjson.dumps(record(i, "Solve the problem.", ref, f"{COT}\n{reply}", "math")))
    odd = PATHOLOGICAL + DEGENERATE
    for j, (ref, reply) in enumerate(odd):
        out.insert(j * max(1, n // len(odd)), orjson.dumps(record(n + j, "Q", ref, reply, "math")))
    return out


@functools.lru_cache(maxsize=64)
def _simple_patterns(letters: str) -> tuple[re.Pattern[str], ...]:
    one = f"([{letters}])"
    return tuple(
        re.compile(p)
        for p in (
            rf"[Aa]nswer:\s*{one}",
            rf"ANSWER:\s*{one}",
            rf"answer is \(?{one}\)?",
            rf"[Tt]he correct answer is:?\s*{one}",
            rf"[Tt]he answer is\s*{one}",
        )
    )


def simple_choice(reply: str, letters: str) -> str:
    """The simple extractor compared with: the first fixed pattern that matches, else the last option capital."""
    for pattern in _simple_patterns(letters):
        m = pattern.search(reply)
        if m is not None:
            return m.group(1)
    for char in reversed(reply):
        if char in letters:
            return char
    return ""


def simple_choice_rate(lines: list[bytes]) -> float:
    """Records/s for parse + simple_choice + compare, on the same records the choice metric scores."""

    def run() -> None:
        for line in lines:
            record = orjson.loads(line)
            target = record["messages"][-1]
            _ = simple_choice(target["responses"][0]["content"], LETTERS) == target["reference_response"]

    return len(lines) / min(timed(run) for _ in range(2))


def slowest(lines: list[bytes], guard: SympyGuard) -> tuple[float, str]:
    """The slowest record of a mix (warm worker) and the start of its reply."""
    scorer = Scorer(metric="math", guard=guard)
    worst, which = 0.0, ""
    for line in lines:
        rec = orjson.loads(line)
        took = timed(lambda: scorer.score_record(rec))  # noqa: B023
        if took > worst:
            worst, which = took, str(rec["messages"][-1]["responses"][0]["content"])[:40]
    return worst, which


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bench(name: str, lines: list[bytes], metric: str, guard: SympyGuard | None) -> tuple[float, float, Scorer]:
    def parse() -> None:
        for line in lines:
            orjson.loads(line)

    scorer = Scorer(metric=metric, guard=guard, use_sympy=guard is not None)

    def score() -> None:
        for line in lines:
            scorer.score_record(orjson.loads(line))

    base = timed(parse)
    total = timed(score)
    return len(lines) / base, len(lines) / total, scorer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--math-records", type=int, default=5_000)
    parser.add_argument("--math-timeout", type=float, default=2.0)
    args = parser.parse_args()
    rng = random.Random(20261122)
    guard = SympyGuard(timeout=args.math_timeout)
    guard.equal("x", "x")  # start the worker outside the timed region (one-off ~0.5 s)
    try:
        print(f"{'metric':<8} {'records':>8} {'baseline rec/s':>15} {'score rec/s':>12} {'ratio':>7}  target")
        for name, lines, metric, target in (
            ("choice", choice_records(args.records, rng), "choice", 30_000),
            ("exact", exact_records(args.records, rng), "exact", 20_000),
            ("math", math_records(args.math_records, rng), "math", 2_000),
        ):
            base, rate, scorer = bench(name, lines, metric, guard if metric == "math" else None)
            stats = next(iter(scorer.stats.values()))
            verdict = "ok" if rate >= target else "BELOW"
            print(
                f"{name:<8} {len(lines):>8} {base:>15,.0f} {rate:>12,.0f} {base / rate:>6.1f}x  "
                f">= {target:,} {verdict}  (score {stats.score})"
            )
            if name == "choice":
                simple = simple_choice_rate(lines)
                print(
                    f"{'':<8} simple first-pattern extractor (evalscope's approach) on the same records: "
                    f"{simple:,.0f} rec/s; formatkit runs at {rate / simple:.2f}x its speed"
                )
        print(f"sympy worker: {guard.calls} calls, {guard.timeouts} hard timeouts")
        mix = math_records(args.math_records, random.Random(7))
        cpu = time.process_time()
        scorer = Scorer(metric="math", guard=guard)
        for line in mix:
            scorer.score_record(orjson.loads(line))
        cpu = time.process_time() - cpu
        print(f"math on CPU time (other load on the machine excluded): {len(mix) / cpu:,.0f} records/s")
        took, which = slowest(mix[:2_000], guard)
        print(f"slowest math record in the mix (warm worker): {took:.3f} s ({which!r}…)")
        worst = 0.0
        for ref, reply in PATHOLOGICAL + DEGENERATE:
            line = orjson.dumps(record(0, "Q", ref, reply, "p"))
            fresh = Scorer(metric="math", guard=SympyGuard(timeout=args.math_timeout))
            try:
                worst = max(worst, timed(lambda: fresh.score_record(orjson.loads(line))))  # noqa: B023
            finally:
                if fresh.guard is not None:
                    fresh.guard.close()
        print(f"worst pathological item, cold worker included: {worst:.2f} s (limit {args.math_timeout} s + start-up)")
    finally:
        guard.close()


if __name__ == "__main__":
    main()
