"""CONTRIBUTING.md, "Add a judge kind": one entry of the metric table and one module are the whole change.

A toy judge kind (a yes/no verdict, its prompts written in its module) is registered as its entry in
scoring/_metrics/registry.py would add it, judged from the command line against the tests' fake OpenAI
server, summed up and aggregated by what its entry says, and unregistered again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeOpenAI, last_user
from typer.testing import CliRunner

from formatkit.cli import app
from scoring._judges.call import Ask, CallFailed, add_usage, failure_text
from scoring._judges.kinds import Case, JudgeKind, Stage
from scoring._judges.result import Judged, not_judged
from scoring._judges.scale import Scale
from scoring._metrics.registry import METRICS, MetricSpec, register_metric, unregister_metric

RESPONSES = Path(__file__).parents[2] / "fixtures" / "responses"
runner = CliRunner()

# --- what the kind's module (scoring/_judges/yes_no.py) would hold ----------------------------------------

VERDICT = Stage(
    "yes_no",
    required=frozenset({"question", "response"}),
    texts={
        "en": "Question: {{question}}\nAnswer: {{response}}\nIs the answer right? Reply YES or NO.",
        "zh": "问题：{{question}}\n回答：{{response}}\n回答正确吗？只回复 YES 或 NO。",
    },
)


async def judge_yes_no(ask: Ask, case: Case) -> Judged:
    content = case.response.get("content")
    if not isinstance(content, str):
        return not_judged("the response has no content")
    template, lang = case.prompts.get(VERDICT.name, case.record)
    prompt, _ = template.prompt({"question": case.record["messages"][-2]["content"], "response": content})
    judged = Judged(score=None, analysis="", status="scored", template=template.source, lang=lang)
    try:
        reply = await ask(prompt)
    except CallFailed as exc:
        judged.status, judged.analysis = "request_failed", failure_text(exc)
        return judged
    add_usage(judged.usage, reply.usage)
    judged.details["reply"] = reply.content
    word = reply.content.strip().upper()
    if word not in ("YES", "NO"):
        judged.status, judged.analysis = "unparseable", f"judge reply has no verdict: {reply.content!r}"
        return judged
    judged.score, judged.answer, judged.analysis = (1.0 if word == "YES" else 0.0), word, f"the judge said {word}"
    return judged


def count_yes(records: list[dict[str, Any]], results: list[Judged], scale: Scale) -> dict[str, Any]:
    return {"yes": sum(j.answer == "YES" for j in results)}


def say_yes(summary: Mapping[str, Any]) -> str:
    return f"; {summary.get('yes', 0)} yes"


YES_NO = JudgeKind(stages=(VERDICT,), judge=judge_yes_no, summarise=count_yes, headline=say_yes)

# --- its entry in the metric table ---------------------------------------------------------------------------

TOY = MetricSpec("yes-no", "judge", "a toy judge: the judge says YES or NO", implementation=YES_NO)


@pytest.fixture
def yes_no() -> Iterator[MetricSpec]:
    register_metric(TOY)
    try:
        yield TOY
    finally:
        unregister_metric(TOY.name)


def _score(server: FakeOpenAI, out: Path, *more: str) -> list[str]:
    source = str(RESPONSES / "gsm8k.jsonl")
    judge = ["--judge-base-url", server.base_url, "--judge-model", "toy-judge"]
    return ["score", source, "-o", str(out), "--metric", "yes-no", *judge, *more]


def _responses(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [r for line in lines for r in json.loads(line)["messages"][-1]["responses"]]


def test_a_registered_judge_kind_judges_from_the_command_line(
    yes_no: MetricSpec, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.responder = lambda body: "YES" if "7" in last_user(body) else "NO"
    out = tmp_path / "judged.jsonl"
    result = runner.invoke(app, [*_score(fake_openai, out), "--json"])
    assert result.exit_code == 0, result.output
    responses = _responses(out)
    assert fake_openai.requests == len(responses) > 1
    assert all(r["judge"]["metric"] == "yes-no" for r in responses)
    # the prompt in each record's language, from the texts the kind's stage gives
    assert {r["judge"]["template"] for r in responses} == {f"builtin:yes_no_{r['judge']['lang']}" for r in responses}
    assert all(r["metric"] == "yes-no" and r["answer"] in ("YES", "NO") for r in responses)
    yes = sum(r["score"] == 1.0 for r in responses)
    assert 0 < yes < len(responses)  # the responder said YES to some and NO to the others
    asked = ("Is the answer right? Reply YES or NO.", "回答正确吗？只回复 YES 或 NO。")
    assert all(any(text in last_user(body) for text in asked) for body in fake_openai.bodies)
    summary = json.loads(result.stdout)
    assert summary["datasets"]["gsm8k"]["metric"] == "yes-no"
    assert summary["datasets"]["gsm8k"]["score"] == round(100 * yes / len(responses), 2)
    assert summary["judge"]["metric"] == "yes-no" and summary["judge"]["yes"] == yes  # its own summary key


def test_the_text_report_says_what_the_kind_headline_says(
    yes_no: MetricSpec, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.responder = lambda body: "YES"
    out = tmp_path / "judged.jsonl"
    result = runner.invoke(app, _score(fake_openai, out))
    assert result.exit_code == 0, result.output
    n = len(_responses(out))
    assert f"Judge toy-judge (yes-no): {n} of {n} response(s) scored; {n} yes" in result.output


def test_a_void_verdict_counts_as_its_lowest_score(yes_no: MetricSpec, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = lambda body: "maybe"
    out = tmp_path / "judged.jsonl"
    result = runner.invoke(app, [*_score(fake_openai, out), "--json"])
    assert result.exit_code == 1  # no response could be scored
    assert json.loads(result.stdout)["datasets"]["gsm8k"]["score"] is None
    result = runner.invoke(app, [*_score(fake_openai, out), "--json", "--void-as-zero"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["datasets"]["gsm8k"]["void"] == len(_responses(out))
    assert summary["datasets"]["gsm8k"]["score"] == 0.0  # not a comparison: the lowest score is 0, not -1


def test_against_is_refused_for_a_kind_that_compares_with_nothing(
    yes_no: MetricSpec, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    out = tmp_path / "judged.jsonl"
    result = runner.invoke(app, [*_score(fake_openai, out), "--against", str(RESPONSES / "gsm8k.jsonl")])
    assert result.exit_code == 2
    assert "--against only applies to --metric pairwise" in result.output
    assert fake_openai.requests == 0


def test_an_unregistered_judge_kind_is_unknown_again(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    register_metric(TOY)
    unregister_metric(TOY.name)
    assert "yes-no" not in METRICS
    out = tmp_path / "judged.jsonl"
    result = runner.invoke(app, _score(fake_openai, out))
    assert result.exit_code == 2
    assert "unknown metric 'yes-no'" in result.output
    assert fake_openai.requests == 0
