"""CONTRIBUTING.md, "Add a judge kind": one entry of the metric table and one module are the whole change.

The recipe's worked example, a yes/no judge kind with its prompts written in its module, is taken from
CONTRIBUTING.md as it stands, registered as its entry in scoring/_metrics/registry.py would add it, judged
from the command line against the tests' fake OpenAI server, summed up and aggregated by what its entry
says, and unregistered again.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeOpenAI, last_user
from recipes import recipe_blocks
from typer.testing import CliRunner

from formatkit.cli import app
from scoring._judges.kinds import JudgeKind
from scoring._metrics.registry import METRICS, MetricSpec, register_metric, unregister_metric

ROOT = Path(__file__).parents[2]
RESPONSES = ROOT / "fixtures" / "responses"
runner = CliRunner()


@pytest.fixture
def yes_no(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MetricSpec]:
    """The recipe's module (as ``recipe_yes_no``) and its entry, registered for the test."""
    if "yes-no" in METRICS:  # the recipe was followed for real: test the table's own entry (put back after)
        real = METRICS["yes-no"]
        try:
            yield real
        finally:
            if real.name not in METRICS:
                register_metric(real)
        return
    blocks = recipe_blocks("Add a judge kind")
    (tmp_path / "recipe_yes_no.py").write_text(blocks["scoring/_judges/yes_no.py"], encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("recipe_yes_no")
    assert isinstance(module.YES_NO, JudgeKind)
    entry = blocks["scoring/_metrics/registry.py, in METRICS"].split("\n", 1)[1].strip().rstrip(",")
    spec = eval(entry, {"MetricSpec": MetricSpec})  # the entry as written in the recipe
    assert isinstance(spec, MetricSpec) and spec.implementation == "scoring._judges.yes_no:YES_NO"
    spec = register_metric(dataclasses.replace(spec, implementation=module.YES_NO))
    try:
        yield spec
    finally:
        unregister_metric(spec.name)
        sys.modules.pop("recipe_yes_no", None)


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


def test_an_unregistered_judge_kind_is_unknown_again(
    yes_no: MetricSpec, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    unregister_metric(yes_no.name)
    assert "yes-no" not in METRICS
    out = tmp_path / "judged.jsonl"
    result = runner.invoke(app, _score(fake_openai, out))
    assert result.exit_code == 2
    assert "unknown metric 'yes-no'" in result.output
    assert fake_openai.requests == 0
