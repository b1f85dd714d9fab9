"""Inputs that once ended in a Python traceback end in one line that says what is wrong, and a non-zero exit
(issue 29 item 4): a jsonl line nested hundreds of levels deep, a SOCKS proxy without its package, an API key
holding a character no HTTP header can carry, a base URL that is no URL."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

runner = CliRunner()

#: Nothing listens there: a command that sent a request would fail on it, not on what the test checks.
NOWHERE = "http://127.0.0.1:9/v1"


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env=env)
    output = result.output
    assert "Traceback" not in output, output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, output


def deep_line(levels: int) -> str:
    """A record whose ``meta`` nests ``levels`` levels (the line's object counting as one)."""
    inner = "[" * (levels - 2) + "]" * (levels - 2)
    return '{"prompt": "1+1", "answer": "2", "meta": {"k": ' + inner + "}}"


def command_line(command: str, path: Path, out: Path) -> list[str]:
    remote = ["--base-url", NOWHERE, "--model", "m"]
    return {
        "validate": ["validate", str(path)],
        "convert": ["convert", str(path), "-o", str(out / "o.jsonl")],
        "run": ["run", str(path), "-o", str(out / "o.jsonl"), *remote],
        "score": ["score", str(path), "-o", str(out / "o.jsonl")],
        "fix": ["fix", str(path), "-o", str(out / "o.jsonl")],
        "eval": ["eval", str(path), "-o", str(out / "eval"), *remote],
        "export": ["export", str(path), "-o", str(out / "o.xlsx")],
    }[command]


@pytest.mark.parametrize("command", ["validate", "convert", "run", "score", "fix", "eval", "export"])
@pytest.mark.parametrize("levels", [255, 256, 600, 1023, 1024, 1500])
def test_a_line_nested_too_deep_is_one_located_issue(tmp_path: Path, command: str, levels: int) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"prompt": "1+1", "answer": "2"}\n' + deep_line(levels) + "\n", encoding="utf-8")
    status, output = invoke(*command_line(command, path, tmp_path))
    assert status != 0
    assert "line 2" in output and "[nested_too_deep]" in output, output
    if command != "fix":  # fix writes its copy and validates it, as for any error it cannot repair
        assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "o.xlsx").exists()


def test_the_deepest_line_a_record_may_be_is_converted(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(deep_line(254) + "\n", encoding="utf-8")
    status, output = invoke("convert", str(path), "-o", str(tmp_path / "o.jsonl"))
    assert status == 0, output
    assert "[" * (254 - 2) + "]" * (254 - 2) in (tmp_path / "o.jsonl").read_text(encoding="utf-8")


# --- the endpoint: what no request can be built from is one line, exit 2, before anything is sent -----------

RESPONSES = Path(__file__).parents[2] / "fixtures" / "responses" / "gsm8k.jsonl"


def endpoint_command(command: str, tmp_path: Path, base_url: str = NOWHERE) -> list[str]:
    """``command`` asking the endpoint at ``base_url`` (``score``: its judge) for a one-record set."""
    source = tmp_path / "set.jsonl"
    source.write_text('{"prompt": "1+1等于几？", "answer": "2"}\n', encoding="utf-8")
    if command == "score":
        judge = ["--judge-base-url", base_url, "--judge-model", "j", "--metric", "judge"]
        return ["score", str(RESPONSES), "-o", str(tmp_path / "scored.jsonl"), *judge]
    if command == "eval-judge":
        judge = ["--judge-base-url", base_url, "--judge-model", "j"]
        return ["eval", str(source), "-o", str(tmp_path / "eval"), "--base-url", NOWHERE, "--model", "m", *judge]
    out = ["-o", str(tmp_path / ("eval" if command == "eval" else "out.jsonl"))]
    return [command, str(source), *out, "--base-url", base_url, "--model", "m"]


ENDPOINT_COMMANDS = ["run", "eval", "score", "eval-judge"]


@pytest.mark.parametrize("command", ENDPOINT_COMMANDS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_socks_proxy_without_its_package_says_what_to_do(tmp_path: Path, command: str, lang: str) -> None:
    try:
        import socksio  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("httpx's SOCKS support is installed here: the proxy would be used")
    env = {"ALL_PROXY": "socks5://user:secret@127.0.0.1:1080", "OPENAI_API_KEY": "sk-test"}
    status, output = invoke(*endpoint_command(command, tmp_path), "--lang", lang, env=env)
    assert status == 2, output
    assert "ALL_PROXY=socks5://127.0.0.1:1080" in output and "pip install 'httpx[socks]'" in output
    assert ("没有安装 httpx 的 SOCKS 支持" if lang == "zh" else "SOCKS support is not installed") in output
    assert "secret" not in output
    assert len([line for line in output.splitlines() if "ALL_PROXY" in line]) == 1
    # nothing was sent, so nothing is left behind: no output, no (empty) journal, no lock (eval's first step,
    # the checked canonical set, is done before any endpoint is needed, and kept for the rerun)
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.name != "set.jsonl")
    assert left == (["eval", "eval/canonical.jsonl"] if command.startswith("eval") else []), left


@pytest.mark.parametrize("command", ENDPOINT_COMMANDS)
@pytest.mark.parametrize(
    ("char", "name"), [("\u200b", "zero width space (U+200B)"), ("…", "horizontal ellipsis (U+2026)")]
)
def test_an_api_key_no_header_can_carry_is_refused_before_any_request(
    tmp_path: Path, command: str, char: str, name: str
) -> None:
    key = "sk-hidden" + char + "value"
    status, output = invoke(*endpoint_command(command, tmp_path), env={"OPENAI_API_KEY": key})
    assert status == 2, output
    assert f"$OPENAI_API_KEY: the API key holds {name} at character 10 of 15" in output
    assert "hidden" not in output  # the key itself is never printed
    assert not (tmp_path / "out.jsonl").exists() and not (tmp_path / "scored.jsonl").exists()


@pytest.mark.parametrize("command", ENDPOINT_COMMANDS)
@pytest.mark.parametrize("url", ["http://[::1/v1", "http://127.0.0.1:99999/v1", "http:///v1"])
def test_a_base_url_that_is_no_url_is_one_line(tmp_path: Path, command: str, url: str) -> None:
    status, output = invoke(*endpoint_command(command, tmp_path, base_url=url), env={"OPENAI_API_KEY": "sk-test"})
    assert status == 2, output
    option = "--judge-base-url" if command in ("score", "eval-judge") else "--base-url"
    assert f"{option} {url!r}" in output
    assert len(output.strip().splitlines()) == 1, output


def test_the_proxy_message_is_pinned_in_both_languages() -> None:
    from formatkit.cli._failures import failure_of, say
    from scoring.errors import ProxyUnsupportedError

    exc = ProxyUnsupportedError("ALL_PROXY", "socks5://127.0.0.1:1080")
    assert [failure_of(command, exc).key for command in ("run", "eval", "score")] == ["proxy_unsupported"] * 3  # type: ignore[union-attr]
    assert say("proxy_unsupported", "en", exc) == (
        "formatkit: error: ALL_PROXY=socks5://127.0.0.1:1080 names a SOCKS proxy, but httpx's SOCKS support is not "
        "installed: install it (pip install 'httpx[socks]'), or unset ALL_PROXY; nothing was sent"
    )
    assert say("proxy_unsupported", "zh", exc) == (
        "formatkit：错误：ALL_PROXY=socks5://127.0.0.1:1080 指向 SOCKS 代理，但没有安装 httpx 的 SOCKS 支持：请安装"
        "（pip install 'httpx[socks]'），或取消设置 ALL_PROXY；没有发送任何请求"
    )


def test_a_judge_that_never_answers_says_no_verdict_was_bought(tmp_path: Path) -> None:
    # the journal opens once the client stands; nothing was bought, so no file is named as keeping verdicts
    out = tmp_path / "scored.jsonl"
    judge = ["--judge-base-url", NOWHERE, "--judge-model", "j", "--metric", "judge", "--max-retries", "0"]
    status, output = invoke("score", str(RESPONSES), "-o", str(out), *judge, env={"OPENAI_API_KEY": ""})
    assert status == 1, output
    assert "no verdict was bought" in output and "are kept in" not in output
