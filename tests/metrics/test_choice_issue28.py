"""Issue 28's choice cases through the command line (``formatkit score``, ``--metric choice`` and ``auto``):
an exam reply's answer field after its explanation, options glued together by PDF extraction, a negated marker
that reads on, a hedged pair against one letter, and an option text opening with the article "A"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

runner = CliRunner()

EXAM = "下列叙述正确的是（）\nA．甲\nB．乙\nC．丙\nD．丁\n"
GAOKAO_REPLY = "【解析】选项A是正确的，选项C也是正确的，选项B错误。<eoe>\n【答案】AC<eoa>"
# GAOKAO-Bench, Biology 2019 (the question as its PDF extraction left it: C glued to B, D to C)
GLUED = (
    "据此判断下列说法错误的是（）\nA．甲组叶细胞吸收了甲糖溶液中的水使甲糖溶液浓度升高\n"
    "B．若测得乙糖溶液浓度不变，则乙组叶细胞的净吸水量为零\n"
    "C．若测得乙糖溶液浓度降低，则乙组叶肉细胞可能发生了质壁分离D．若测得乙糖溶液浓度升高，则叶细胞的净吸水量乙组大于甲组\n"
)
NEXT_LINE = "则 ( )\nA. $a=e, b=-1$\nB. $a=e, b=1$\nC. $a=e^{-1}, b=1$\nD.\n\n$a=e^{-1}, b=-1$\n"
MAMMAL = "Which is a mammal?\nA. A lizard\nB. A whale\nC. A shark\nD. A frog"
OPTIONS = "Which holds?\nA. x\nB. y\nC. z\nD. w"
SHOWN_TO_C = "哪个？\nA. 甲\nB. 乙\nC. 丙"

# (name, question, reference, reply, score under --metric choice, the extracted letters)
CASES = [
    ("answer field wins over option verdicts", EXAM, "AC", GAOKAO_REPLY, 1.0, "AC"),
    ("answer field naming no option", EXAM, "A", "【解析】选项A是正确的。<eoe>\n【答案】: 无正确答案 <eoa>", 0.0, None),
    ("answer field copying the option list", EXAM, "A", "【解析】…<eoe>\n【答案】A. ①② B. ①③ C. ②④ <eoa>", 0.0, None),
    ("glued options", GLUED, "D", "【解析】……<eoe>\n【答案】D<eoa>", 1.0, "D"),
    ("option text on the next line", NEXT_LINE, "D", "【解析】……<eoe>\n【答案】: D <eoa>", 1.0, "D"),
    ("negated marker reads on", OPTIONS, "C", "The answer is not A. Looking again, B fails too, so it is C.", 1.0, "C"),
    ("negated marker in Chinese", OPTIONS, "C", "答案不是A，而是C。", 1.0, "C"),
    ("negated marker alone", OPTIONS, "A", "The answer is not A.", 0.0, None),
    ("hedged pair against one letter", OPTIONS, "A", "答案是 A 和 B", 0.0, "AB"),
    ("article opening the option text", MAMMAL, "B", "The answer is B, A whale.", 1.0, "B"),
    ("article after a bare letter", MAMMAL, "B", "B, A whale", 1.0, "B"),
    ("two letters still two", MAMMAL, "B", "The answer is B and A.", 0.0, "AB"),
]


def _write(path: Path, rows: list[tuple[str, str, str]]) -> None:
    records = [
        {
            "session_id": i,
            "messages": [
                {"role": "user", "content": question},
                {"role": "assistant", "reference_response": reference, "responses": [{"content": reply}]},
            ],
            "meta": {"dataset": "exam"},
        }
        for i, (question, reference, reply) in enumerate(rows)
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def _score(tmp_path: Path, rows: list[tuple[str, str, str]], metric: str) -> list[dict[str, Any]]:
    source, out = tmp_path / "exam.jsonl", tmp_path / "scored.jsonl"
    _write(source, rows)
    result = runner.invoke(app, ["score", str(source), "-o", str(out), "--metric", metric, "--json"])
    assert result.exit_code == 0, result.output
    lines = out.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["messages"][-1]["responses"][0] for line in lines]


@pytest.mark.parametrize("metric", ["choice", "auto"])
def test_issue_28_choice_cases_from_the_command_line(tmp_path: Path, metric: str) -> None:
    scored = _score(tmp_path, [(q, ref, reply) for _, q, ref, reply, _, _ in CASES], metric)
    for (name, *_, score, extracted), response in zip(CASES, scored, strict=True):
        assert response["metric"] == "choice", name
        assert (response["score"], response.get("answer")) == (score, extracted), (name, response["analysis"])


def test_auto_gives_no_half_credit_to_a_pair_when_the_reference_is_past_the_shown_options(tmp_path: Path) -> None:
    """A reference letter beyond the options read is still a choice item: unscorable with the reason, not
    a short answer that math credits 0.5 for "C 和 D" against "D"."""
    rows = [(SHOWN_TO_C, "D", "答案是 C 和 D"), ("Solve.", "\\frac{3}{4}", "\\boxed{0.75}")]
    first, second = _score(tmp_path, rows, "auto")
    assert (first["metric"], first["score"]) == ("choice", None)
    assert "outside the item's options (A–C)" in first["analysis"]
    assert (second["metric"], second["score"]) == ("math", 1.0)
