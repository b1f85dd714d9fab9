"""An eval folder holds one model's results: evaluating another model with the same ``-o`` is refused before
any request (it replaced the first model's results with only a journal note), unless ``--restart`` says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner

from formatkit.cli import app

SEED = Path(__file__).parents[2] / "fixtures" / "seed" / "seed_jsonl_single_turn.jsonl"
runner = CliRunner()


def _eval(server: FakeOpenAI, out: Path, model: str, *extra: str) -> tuple[int, str]:
    args = ["eval", str(SEED), "--base-url", server.base_url, "--model", model, "-o", str(out), *extra]
    result = runner.invoke(app, args)
    return result.exit_code, result.output


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_another_model_in_the_same_folder_is_refused_before_any_request(
    fake_openai: FakeOpenAI, tmp_path: Path, lang: str
) -> None:
    out = tmp_path / "eval"
    assert _eval(fake_openai, out, "m1")[0] == 0
    before = fake_openai.requests
    scored = (out / "scored.jsonl").read_bytes()
    code, output = _eval(fake_openai, out, "m2", "--lang", lang)
    assert code == 2, output
    assert fake_openai.requests == before  # nothing bought
    assert (out / "scored.jsonl").read_bytes() == scored  # m1's results stand
    assert "m1" in output and "m2" in output and ("替换" in output) == (lang == "zh")


def test_the_same_model_resumes_and_restart_replaces(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    out = tmp_path / "eval"
    assert _eval(fake_openai, out, "m1")[0] == 0
    assert _eval(fake_openai, out, "m1")[0] == 0  # a rerun of the same model resumes, as before
    code, output = _eval(fake_openai, out, "m2", "--restart")
    assert code == 0, output
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["model"] == "m2"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_results_files_among_the_sets_are_refused_before_any_request(
    fake_openai: FakeOpenAI, tmp_path: Path, lang: str
) -> None:
    """``eval fixtures/seed/*`` took the seed_output_* results files as sets: their replies (no model) showed
    as an "(unknown model)" column beside the model evaluated."""
    seeds = sorted(SEED.parent.iterdir())
    args = ["eval", *map(str, seeds), "--base-url", fake_openai.base_url, "--model", "m", "-o", str(tmp_path / "e")]
    result = runner.invoke(app, [*args, "--lang", lang])
    assert result.exit_code == 2, result.output
    assert fake_openai.requests == 0
    assert "seed_output_single_turn (2)" in result.output and "seed_output_multi_turn" in result.output
    assert "seed_jsonl_single_turn" not in result.output
    assert ("没有发送任何请求" in result.output) == (lang == "zh")


def test_a_set_answered_by_the_same_model_is_taken(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    first = tmp_path / "first"
    assert _eval(fake_openai, first, "m")[0] == 0
    answered = first / "answered.jsonl"  # every reply made by "m" (the fake server answers as the model asked)
    args = ["eval", str(answered), "--base-url", fake_openai.base_url, "--model", "m", "-o", str(tmp_path / "again")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
