"""The new doors, tried as an attacker would (issue #39 item 2): each gives a located error or a bounded clean
outcome, never a traceback, and nothing is sent (no key) where the input is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner, Result

from formatkit.cli import app
from scoring import EndpointOptions, run_file
from scoring._client.http import ChatClient
from scoring.errors import EndpointSetupError

SEED = Path(__file__).parents[2] / "fixtures" / "seed" / "seed_jsonl_single_turn.jsonl"


def invoke(*args: str, key: str = "") -> Result:
    return CliRunner(env={"OPENAI_API_KEY": key}).invoke(app, list(args))


def estimate(server: FakeOpenAI, tmp_path: Path, *extra: str) -> Result:
    return invoke("run", str(SEED), "-o", str(tmp_path / "o.jsonl"), "--base-url", server.base_url, "--model", "m",
                  "--estimate", "--json", *extra)  # fmt: skip


@pytest.mark.parametrize("count", [-5, 10**18, True, 2.5, "12", 0])
def test_a_tokenize_count_that_is_no_count_is_not_taken(fake_openai: FakeOpenAI, tmp_path: Path, count: Any) -> None:
    fake_openai.tokenize = True
    fake_openai.tokenize_count = count
    result = estimate(fake_openai, tmp_path)
    assert result.exit_code == 0, result.output
    counted = json.loads(result.stdout)
    assert counted["prompt_tokens_method"] == "ratio"  # counted another way, and said why
    assert any("is no token count" in note for note in counted["notes"])
    assert 0 < counted["prompt_tokens"] < 10**6
    assert fake_openai.requests == 0


@pytest.mark.parametrize("option", ["--prices", "--tokenizer"])
def test_a_device_given_as_a_file_is_refused_before_it_is_read(
    fake_openai: FakeOpenAI, tmp_path: Path, option: str
) -> None:
    result = estimate(fake_openai, tmp_path, option, "/dev/zero")
    assert "Traceback" not in result.output
    assert "/dev/zero" in result.output and "not a regular file" in result.output
    if option == "--prices":
        assert result.exit_code != 0
    else:  # the tokenizer is a better count when it works: without it, the ratio, said
        assert result.exit_code == 0 and json.loads(result.stdout)["prompt_tokens_method"] == "ratio"


@pytest.mark.parametrize("price", ["1e308", "-1", "1e10"])
def test_a_price_that_is_no_price_is_refused(fake_openai: FakeOpenAI, tmp_path: Path, price: str) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(f'{{"prompt": {price}, "output": 1, "currency": "CNY"}}')
    result = estimate(fake_openai, tmp_path, "--prices", str(prices), "--param", "max_tokens=100")
    assert result.exit_code != 0
    assert str(prices) in result.output and "inf" not in result.output and "Traceback" not in result.output


def test_a_tokenizer_that_panics_while_counting_is_a_note(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    # a pre-tokenizer pattern that backtracks past the regex engine's retry limit: the Rust code panics
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Split(tokenizers.Regex("(a|aa)+$"), behavior="isolated")
    path = tmp_path / "tokenizer.json"
    path.write_text(tokenizer.to_str())
    source = tmp_path / "set.jsonl"
    source.write_text(json.dumps({"prompt": "a" * 60 + "!", "answer": "x"}) + "\n")
    result = invoke("run", str(source), "-o", str(tmp_path / "o.jsonl"), "--base-url", fake_openai.base_url,
                    "--model", "m", "--estimate", "--json", "--tokenizer", str(path))  # fmt: skip
    assert result.exit_code == 0, result.output
    counted = json.loads(result.stdout)
    assert counted["prompt_tokens_method"] == "ratio"
    assert any("PanicException" in note for note in counted["notes"])


@pytest.mark.parametrize(
    "url", ["http://local\nhost:{port}/v1", "http://localhost:{port}/v1\r\nX-Evil: 1", "http://local\thost:{port}/v1"]
)
def test_a_base_url_holding_a_control_character_is_refused_before_any_key_is_sent(
    fake_openai: FakeOpenAI, tmp_path: Path, url: str
) -> None:
    given = url.format(port=fake_openai.port)
    with pytest.raises(EndpointSetupError, match="base URL holds no"):
        ChatClient(given, "m", api_key="sk-secret-0123456789")
    result = invoke("run", str(SEED), "-o", str(tmp_path / "o.jsonl"), "--base-url", fake_openai.base_url,
                    "--base-url", given, "--model", "m", key="sk-secret-0123456789")  # fmt: skip
    assert result.exit_code == 2
    assert "base URL holds no" in result.output and "sk-secret" not in result.output
    with pytest.raises(EndpointSetupError):
        run_file(SEED, tmp_path / "p.jsonl", EndpointOptions(given, "m", api_key="sk-secret-0123456789"))
    assert fake_openai.requests == 0 and fake_openai.auth_headers == []


def test_a_huge_model_name_is_refused_before_anything_is_sent(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    result = invoke("run", str(SEED), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "m" * 100_000)
    assert result.exit_code == 2
    assert "model name is 100000 characters long" in result.output and len(result.output) < 2000
    assert fake_openai.requests == 0 and not out.exists()
