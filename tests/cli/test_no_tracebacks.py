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
    assert "line 2" in output and "nested_too_deep" in output, output
    if command != "fix":  # fix writes its copy and validates it, as for any error it cannot repair
        assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "o.xlsx").exists()


def test_the_deepest_line_a_record_may_be_is_converted(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(deep_line(254) + "\n", encoding="utf-8")
    status, output = invoke("convert", str(path), "-o", str(tmp_path / "o.jsonl"))
    assert status == 0, output
    assert "[" * (254 - 2) + "]" * (254 - 2) in (tmp_path / "o.jsonl").read_text(encoding="utf-8")
