"""#39 (decided): a judge listed twice in a panel is refused, naming both entries, before any request (it
would count its verdict twice); a panel file's ``api_key_env`` that is not set is a warning naming the
judge, as ``--api-key-env`` is for ``run``. Through the CLI."""

from __future__ import annotations

from pathlib import Path

import orjson
from fakeserver import FakeOpenAI
from typer.testing import CliRunner, Result

from formatkit.cli import app

ANSWER = {"role": "assistant", "reference_response": "r", "responses": [{"content": "r"}]}
RECORDS = [{"session_id": i, "messages": [{"role": "user", "content": f"q{i}"}, ANSWER]} for i in range(2)]


def _score(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in RECORDS))
    command = ["score", str(src), "-o", str(tmp_path / "out.jsonl"), "--metric", "judge", *args]
    return CliRunner(env={"OPENAI_API_KEY": "sk-test", **(env or {})}).invoke(app, command)


def _panel(tmp_path: Path, *lines: dict[str, str]) -> Path:
    path = tmp_path / "panel.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def test_a_judge_listed_twice_in_a_panel_file_is_refused_naming_both(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    url = fake_openai.base_url
    panel = _panel(tmp_path, {"model": "a", "base_url": url}, {"model": "b", "base_url": url}, {"model": "a"})
    result = _score(tmp_path, "--judge-panel", str(panel), "--judge-base-url", url + "/")  # the default: same
    assert result.exit_code == 2, result.output
    assert f"panel.jsonl: judge 3 is judge 1 again (a at {url}/)" in result.stderr
    assert fake_openai.requests == 0 and not (tmp_path / "out.jsonl").exists()
    zh = _score(tmp_path, "--judge-panel", str(panel), "--judge-base-url", url, "--lang", "zh")
    assert zh.exit_code == 2 and "第 3 个评审就是第 1 个评审" in zh.stderr


def test_the_same_model_at_two_endpoints_is_two_judges(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    url = fake_openai.base_url
    panel = _panel(
        tmp_path, {"model": "a", "base_url": url}, {"model": "a", "base_url": url.replace("127.0.0.1", "localhost")}
    )
    result = _score(tmp_path, "--judge-panel", str(panel))
    assert "again" not in result.stderr and result.exit_code in (0, 1), result.output


def test_a_judge_model_given_twice_is_refused(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    url = fake_openai.base_url
    result = _score(tmp_path, "--judge-base-url", url, "--judge-model", "a", "--judge-model", "b", "--judge-model", "a")
    assert result.exit_code == 2, result.output
    assert "--judge-model a is given twice (judge 1 and judge 3" in result.stderr
    assert fake_openai.requests == 0


def test_an_unset_api_key_env_in_a_panel_file_is_said_naming_the_judge(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    url = fake_openai.base_url
    panel = _panel(
        tmp_path,
        {"model": "a", "base_url": url, "api_key_env": "FK_TEST_SET_KEY"},
        {"model": "b", "base_url": url, "api_key_env": "FK_TEST_UNSET_KEY"},
    )
    result = _score(tmp_path, "--judge-panel", str(panel), env={"FK_TEST_SET_KEY": "sk-a", "FK_TEST_UNSET_KEY": ""})
    assert result.exit_code in (0, 1), result.output  # a warning: the run goes on
    assert (
        "formatkit score: warning: "
        + str(panel)
        + ": judge 2 (b): api_key_env FK_TEST_UNSET_KEY is not set (or empty); "
        "its requests are sent without an API key"
    ) in result.stderr
    assert "FK_TEST_SET_KEY" not in result.stderr and fake_openai.requests > 0
