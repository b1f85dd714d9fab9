"""``formatkit eval``: the seed examples end to end against the local fake endpoint, resumable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fakeserver import FakeOpenAI, Fault
from typer.testing import CliRunner, Result

from formatkit.cli import app

SEED = Path(__file__).parents[2] / "fixtures" / "seed"
SETS = [str(SEED / n) for n in ("seed_excel_single_turn.xlsx", "seed_excel_multi_turn.xlsx",
                                 "seed_jsonl_single_turn.jsonl", "seed_jsonl_multi_turn.jsonl")]  # fmt: skip
runner = CliRunner()


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _eval(server: FakeOpenAI, out: Path, *extra: str) -> Result:
    args = ["eval", *SETS, "--base-url", server.base_url, "--model", "seed-model", "-o", str(out), *extra]
    return runner.invoke(app, args)


def test_the_seed_sets_go_through_every_stage_and_a_rerun_sends_nothing(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    out = tmp_path / "eval"
    result = _eval(fake_openai, out)
    assert result.exit_code == 0, result.output
    canonical, answered, scored = (_lines(out / n) for n in ("canonical.jsonl", "answered.jsonl", "scored.jsonl"))
    assert len(canonical) == len(answered) == len(scored) > 0
    assert [r["session_id"] for r in scored] == [r["session_id"] for r in canonical]
    responses = [resp for r in scored for resp in r["messages"][-1]["responses"]]
    assert all(r["model"] == "seed-model" and "metric" in r for r in responses)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert "seed-model" in report["models"]
    assert {r["meta"]["dataset"] for r in scored} == {Path(s).stem for s in SETS}
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "seed-model" in html and "<script src=" not in html  # offline: nothing fetched
    sent = fake_openai.requests
    assert sent > 0
    again = _eval(fake_openai, out)
    assert again.exit_code == 0, again.output
    assert fake_openai.requests == sent  # resumed: every record was already answered
    assert _lines(out / "scored.jsonl") == scored


def test_limit_runs_the_first_records_of_each_dataset(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    out = tmp_path / "smoke"
    result = _eval(fake_openai, out, "--limit", "1")
    assert result.exit_code == 0, result.output
    scored = _lines(out / "scored.jsonl")
    assert sorted(str(r["meta"]["dataset"]) for r in scored) == sorted(Path(s).stem for s in SETS)


def test_an_invalid_set_stops_before_anything_is_sent(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "hi"}\n', encoding="utf-8")  # no reference answer in infer-eval mode
    out = tmp_path / "eval"
    result = runner.invoke(app, ["eval", str(bad), "--base-url", fake_openai.base_url, "--model", "m", "-o", str(out)])
    assert result.exit_code == 1
    assert "missing_reference" in result.output
    assert fake_openai.requests == 0 and not (out / "answered.jsonl").exists()


def test_an_endpoint_that_cannot_serve_stops_with_the_cause(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.rules.append(lambda body: Fault("400", message="Invalid model name passed in model=nope"))
    result = _eval(fake_openai, tmp_path / "eval")
    assert result.exit_code == 1
    assert "Invalid model name" in result.output and "Traceback" not in result.output
    assert fake_openai.requests < 12


def test_an_empty_reply_is_not_a_finished_eval(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """A gateway that turns a backend error into "" answers every request; eval's exit 0 still means every
    record has content, as run's does (issue 18 item 5)."""
    fake_openai.responder = lambda body: ""
    result = _eval(fake_openai, tmp_path / "eval")
    assert result.exit_code == 1, result.output
    assert "empty (no content: nothing to score)" in result.output and "--retry-empty" in result.output
    assert "Traceback" not in result.output
