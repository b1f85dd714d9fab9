"""Issue #38, through the command line: free answers scored as a careful grader would (``formatkit score …
--metric auto/exact/choice/prefix``). Each case is a made-up reply of the shape found in real replies
(tests/corpora/free/README.md): a marker that names its options, yes/no with negations, answers made of
symbols, a hedge before one option, a short answer stated in the reply's answer sentence, dates."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

runner = CliRunner()

YES_NO = "Would a baby gray whale fit in a tractor-trailer?"
OPTIONS = "Which is a pet?\n(A) lion\n(B) shark\n(C) cat\n(D) wolf\n(E) eagle"


def _score(tmp_path: Path, cases: list[tuple[str, str, str]], metric: str) -> list[dict[str, Any]]:
    rows = [
        {
            "session_id": i,
            "meta": {"dataset": f"set{i}"},  # one dataset per record: auto picks per reference, not per set
            "messages": [
                {"role": "user", "content": question},
                {"role": "assistant", "reference_response": reference, "responses": [{"content": reply}]},
            ],
        }
        for i, (question, reference, reply) in enumerate(cases)
    ]
    source = tmp_path / "set.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(source), "-o", str(out), "--metric", metric])
    assert result.exit_code == 0, result.output
    return [json.loads(line)["messages"][-1]["responses"][0] for line in out.read_text("utf-8").splitlines()]


def _check(tmp_path: Path, metric: str, cases: Sequence[tuple[str, str, str, float | None]]) -> None:
    scored = _score(tmp_path, [(q, r, a) for q, r, a, _ in cases], metric)
    got = [(r, a, s["score"]) for (_, r, a, _), s in zip(cases, scored, strict=True)]
    assert got == [(r, a, want) for _, r, a, want in cases], [s["analysis"] for s in scored]


ZERO_SHOT_NO = "A baby gray whale is about 15 feet long.\nTherefore, the answer (Yes or No) is No."
MARKER_CASES = [
    (YES_NO, "No", ZERO_SHOT_NO, 1.0),
    (YES_NO, "Yes", ZERO_SHOT_NO, 0.0),
    (YES_NO, "No", "Therefore, the answer (Yes or No) is No, it could not fit.", 1.0),
    (YES_NO, "Yes", "It is big.\nTherefore, the answer (Yes or No) is Yes.", 1.0),
    (YES_NO, "No", "Therefore, the answer (Yes or No) is: not yes.", 1.0),
    (YES_NO, "no", "No, it is not.", 1.0),
    (YES_NO, "yes", "No, it is not.", 0.0),
    ("鲸鱼能装进卡车吗？", "否", "答案（是或否）是：否。", 1.0),
    ("鲸鱼能装进卡车吗？", "是", "答案（是或否）是：否。", 0.0),
    ("鲸鱼能装进卡车吗？", "否", "不是。", 1.0),
    ("这个推理正确吗？", "否", "这个推理是错误的。虽然凶手不一定是背包旅客，但这不能推出结论。", 1.0),
    ("这个推理正确吗？", "是", "这个推理是错误的。虽然凶手不一定是背包旅客，但这不能推出结论。", 0.0),
    ("能用它给安卓手机充电吗？", "否", "不可以。它只能用于苹果设备。", 1.0),
    ("能用它给安卓手机充电吗？", "否", "可以考虑使用转接头。", 0.0),
    (OPTIONS, "C", "Therefore, among A through E, the answer is C.", 1.0),
    (OPTIONS, "C", "Therefore, the answer (A–E) is C.", 1.0),
    (OPTIONS, "A", "Therefore, the answer (A–E) is C.", 0.0),
    (OPTIONS, "E", "Therefore, the answer (A-E) is (E).", 1.0),
]


@pytest.mark.parametrize("metric", ["auto", "exact", "choice"])
def test_a_marker_naming_its_options_is_read_as_the_marker(tmp_path: Path, metric: str) -> None:
    _check(tmp_path, metric, MARKER_CASES)


HEDGE_CASES = [
    (OPTIONS, "E", "The answer is probably E", 1.0),
    (OPTIONS, "C", "It is most likely (C) pet.", 1.0),
    (OPTIONS, "A", "It is most likely (C) pet.", 0.0),
    (OPTIONS, "A", "The answer is A or D.", 0.0),
    (OPTIONS, "D", "The answer is A or D.", 0.0),
    (OPTIONS, "D", "The answer is probably A or D.", 0.0),
]


@pytest.mark.parametrize("metric", ["auto", "choice"])
def test_a_hedge_before_one_option_is_the_commitment_two_options_are_none(tmp_path: Path, metric: str) -> None:
    _check(tmp_path, metric, HEDGE_CASES)


SYMBOL_CASES = [
    ("Complete the rest of the sequence: [ { (", ") } ]", "So the answer is ) } ].", 1.0),
    ("Complete the rest of the sequence: [ { (", ") } ]", ") } ]", 1.0),
    ("Complete the rest of the sequence: [ { (", ") } ]", ")}]", 1.0),
    ("Complete the rest of the sequence: [ { (", ") } ]", "So the answer is } ) ].", 0.0),
    ("Complete the rest of the sequence: [ { (", ") } ]", "So the answer is .", 0.0),
    ("Complete the rest of the sequence: [ { (", ") } ]", "I cannot tell.", 0.0),
]


@pytest.mark.parametrize("metric", ["auto", "exact"])
def test_an_answer_made_of_symbols_keeps_its_symbols(tmp_path: Path, metric: str) -> None:
    _check(tmp_path, metric, SYMBOL_CASES)


def test_prefix_compares_symbols_and_never_calls_them_unscorable(tmp_path: Path) -> None:
    q = "Complete the rest of the sequence: [ { ("
    _check(
        tmp_path,
        "prefix",
        [(q, ") } ]", ") } ] is the rest.", 1.0), (q, ") } ]", ") ] }", 0.0), (q, ") } ]", "It is ) } ]", 0.0)],
    )


BILL = "Who is on the $500 bill?"
POEM = "《静夜思》的作者是谁？"
PHOTO = "植物在光合作用中释放什么气体？"
CAPITAL = "What is the capital of France?"
STATED_CASES = [
    (
        BILL,
        "William McKinley",
        "The $500 bill features the portrait of William McKinley, the 25th president of the United States. "
        "It was discontinued in 1969.",
        1.0,
    ),
    (POEM, "李白", "《静夜思》是唐代诗人李白的作品。这首诗表达了思乡之情。", 1.0),
    (POEM, "杜甫", "《静夜思》是唐代诗人李白的作品。这首诗表达了思乡之情。", 0.0),
    (PHOTO, "氧气", "植物在光合作用中吸收二氧化碳，释放氧气。这一过程需要光。", 1.0),
    (CAPITAL, "Paris", "It is not Paris but Lyon.", 0.0),
    (CAPITAL, "Lyon", "It is not Paris but Lyon.", 1.0),
    (CAPITAL, "Paris", "It could be Paris or Lyon. Both are large cities.", 0.0),
    (CAPITAL, "Paris", "The capital is Lyon. Paris is a big city too.", 0.0),
    (CAPITAL, "Paris", "Paris, Texas is not it; it is Lyon.", 0.0),
    (CAPITAL, "Paris", "Paris is the most visited city, but the capital of France is Lyon.", 0.0),
    (CAPITAL, "Paris", "The capital is Lyon, although Paris is bigger.", 0.0),
    (CAPITAL, "Paris", "The capital of France is Paris. It lies on the Seine.", 1.0),
    (CAPITAL, "Paris", "Paris has many museums, and Lyon is the capital. Both are in France.", 0.0),
    (CAPITAL, "Paris", "Many cities, such as Paris, Lyon, and Nice, are large. I do not know which.", 0.0),
    (
        "Who wrote the lyrics?",
        '["Bobby Scott", "Bob Russell"]',
        "The lyrics were written by Bobby Scott and Bob Russell.",
        1.0,
    ),
    (
        "Who wrote the lyrics?",
        '["Bobby Scott", "Bob Russell"]',
        "The lyrics were written by Bobby Scott and Hal David.",
        0.0,
    ),
    ("Which river is east of the Jordan River?", "Jordan", "The land east of the Jordan River is the West Bank.", 0.0),
    (
        "When was the 50th star added?",
        "1960",
        "The 50th star was added on July 4, 1960, when Hawaii became the 50th state.",
        1.0,
    ),
    (
        "When was the 50th star added?",
        "1959",
        "The 50th star was added on July 4, 1960, when Hawaii became the 50th state.",
        0.0,
    ),
]


@pytest.mark.parametrize("metric", ["auto", "exact"])
def test_a_short_answer_stated_in_the_answer_sentence_is_credited(tmp_path: Path, metric: str) -> None:
    _check(tmp_path, metric, STATED_CASES)


WHEN = "When did the Beatles first appear on The Ed Sullivan Show?"
DATE_CASES = [
    (WHEN, "February 9, 1964", "It happened on 1964-02-09.", 1.0),
    (WHEN, "1964-02-09", "The Beatles appeared on February 9, 1964.", 1.0),
    (WHEN, "1964年2月9日", "时间是1964-02-09。", 1.0),
    (WHEN, "1964-02-09", "1964年2月9日", 1.0),
    (WHEN, "9 February 1964", "They first appeared on Feb. 9, 1964, before 73 million viewers.", 1.0),
    (WHEN, "February 9, 1964", "It was on February 10, 1964.", 0.0),
    (WHEN, "February 9, 1964", "It was not on February 9, 1964 but a week later.", 0.0),
    (WHEN, "1964-02-09", "It was 1964-02-09 or 1964-02-16.", 0.0),
]


@pytest.mark.parametrize("metric", ["auto", "exact"])
def test_dates_compare_as_dates(tmp_path: Path, metric: str) -> None:
    _check(tmp_path, metric, DATE_CASES)
