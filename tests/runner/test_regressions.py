"""Tests that would have caught faults a review named (issue 9): a resume key blind to --model, a
backoff that does not grow, and the key scrub skipping keys shorter than 12 characters."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner

from formatkit.cli import app
from scoring._client.http import ChatClient
from scoring._client.pacing import backoff_delay, rate_limit_delay

SEED = Path(__file__).parents[2] / "fixtures" / "seed" / "seed_jsonl_single_turn.jsonl"


class _Top(random.Random):
    """An rng that always draws the top of the range: the backoff's ceiling, made visible."""

    def uniform(self, a: float, b: float) -> float:
        return b


@pytest.mark.parametrize("delay", [backoff_delay, rate_limit_delay])
def test_backoff_grows_with_each_attempt_until_its_cap(delay: Callable[..., float]) -> None:
    ceilings = [delay(attempt, base=0.5, cap=6.0, rng=_Top()) for attempt in range(6)]
    assert ceilings == [0.5, 1.0, 2.0, 4.0, 6.0, 6.0]


def _run(server: FakeOpenAI, out: Path, model: str) -> None:
    args = ["run", str(SEED), "-o", str(out), "--base-url", server.base_url, "--model", model]
    result = CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, args)
    assert result.exit_code == 0, result.output


def test_a_rerun_with_another_model_answers_again(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    out = tmp_path / "answered.jsonl"
    _run(fake_openai, out, "model-a")
    first = fake_openai.requests
    _run(fake_openai, out, "model-a")
    assert fake_openai.requests == first  # same model: everything resumed from the journal
    _run(fake_openai, out, "model-b")
    assert fake_openai.requests == 2 * first  # another model: nothing of model-a's may be reused
    models = {
        r["model"] for line in out.read_text().splitlines() for r in json.loads(line)["messages"][-1]["responses"]
    }
    assert models == {"model-b"}


@pytest.mark.parametrize("key", ["sk-1", "abc123", "sk-short9ab"])
def test_a_short_key_is_scrubbed_from_every_message(key: str) -> None:
    client = ChatClient("http://127.0.0.1:9/v1", "m", api_key=key)
    text = f"401 Incorrect API key provided: {key}. You can find your key at ..."
    assert key not in client.scrub(text)


@pytest.mark.parametrize("planted", ["answered.jsonl.journal", "answered.jsonl.journal.lock"])
def test_a_symlink_planted_beside_the_output_is_never_written_through(
    fake_openai: FakeOpenAI, tmp_path: Path, planted: str
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / planted).symlink_to(victim)
    out = tmp_path / "answered.jsonl"
    args = ["run", str(SEED), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "m"]
    result = CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, args)
    assert result.exit_code != 0
    assert "symbolic link" in str(result.exception) or "symbolic link" in result.output
    assert victim.read_text() == "precious\n"
    assert fake_openai.requests == 0  # refused before any request was sent
