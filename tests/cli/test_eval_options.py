"""``formatkit eval`` takes every option of the commands it chains, each defined once (issue 18, item 7).

A server whose streaming path fails could not be used with ``eval`` (no ``--no-stream``); its progress showed
``41/? … eta ?``; it said "a judge is needed … left unscored" and then judged those records.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import typer
from fakeserver import FakeOpenAI, Fault, last_user
from typer.testing import CliRunner, Result

from formatkit.cli import app
from scoring import Dialect, EndpointOptions, evaluate

runner = CliRunner()


def _set(path: Path, n: int = 4) -> Path:
    lines = [json.dumps({"prompt": f"{i}+1=?", "answer": str(i + 1)}) for i in range(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _eval(server: FakeOpenAI, sets: list[Path], out: Path, *extra: str) -> Result:
    args = ["eval", *map(str, sets), "--base-url", server.base_url, "--model", "m", "-o", str(out)]
    return CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, [*args, "--backoff-base", "0.001", *extra])


def _params(command: str) -> dict[str, Any]:
    group: Any = typer.main.get_command(app)
    sub = group.commands[command]
    return {p.name: p for p in sub.params if p.name}


def _same(a: Any, b: Any) -> tuple[Any, ...]:
    def shape(p: Any) -> tuple[Any, ...]:
        fields = ("opts", "secondary_opts", "default", "help", "hidden", "min", "max", "metavar", "multiple")
        return tuple(repr(getattr(p, name, None)) for name in fields)

    return shape(a), shape(b)


@pytest.mark.parametrize(
    ("other", "names"),
    [
        ("run", None),  # every option of run but its own (-o, --limit and --mode: per set in eval, --dry-run)
        (
            "score",
            ["judge_base_url", "judge_model", "judge_api_key_env", "judge_scale", "judge_lang", "judge_template"],
        ),
        ("score", ["math_timeout"]),
        ("report", ["dimensions", "void_as_zero"]),
        ("score", ["void_as_zero"]),
        ("convert", ["max_issues", "show_all"]),
    ],
)
def test_eval_takes_the_options_of_the_commands_it_chains_as_they_define_them(
    other: str, names: list[str] | None
) -> None:
    evaluation, chained = _params("eval"), _params(other)
    if names is None:
        names = [n for n in chained if n not in ("source", "output", "limit", "dry_run", "mode")]
    missing = [n for n in names if n not in evaluation]
    assert not missing, f"eval lacks {other}'s {missing}"
    for name in names:
        ours, theirs = _same(evaluation[name], chained[name])
        assert ours == theirs, name


def test_no_stream_lets_eval_use_a_server_whose_streaming_path_fails(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.rules.append(lambda body: Fault("500", message="stream failed") if body.get("stream") else None)
    result = _eval(fake_openai, [_set(tmp_path / "s.jsonl")], tmp_path / "out", "--no-stream")
    assert result.exit_code == 0, result.output
    assert fake_openai.requests == 4 and not any(b.get("stream") for b in fake_openai.bodies)


@pytest.mark.parametrize(
    "message", ["Internal error", "litellm.APIConnectionError: OpenAIException - Connection error."]
)
def test_a_failing_streaming_path_is_never_blamed_on_the_network(
    fake_openai: FakeOpenAI, tmp_path: Path, message: str
) -> None:
    fake_openai.rules.append(lambda body: Fault("500", message=message) if body.get("stream") else None)
    result = _eval(fake_openai, [_set(tmp_path / "s.jsonl")], tmp_path / "out", "--max-retries", "0")
    assert "Traceback" not in result.output
    if result.exit_code == 0:  # the client fell back to plain requests by itself
        return
    assert result.exit_code == 1
    output = result.output
    assert "try --no-stream" in output, output
    # the network is named, if at all, only after the streaming path: "cannot reach" was the whole hint
    assert "cannot reach" not in output or output.index("--no-stream") < output.index("cannot reach"), output


def test_request_shaping_options_reach_the_server(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    extra = [
        "--param",
        "max_tokens=5",
        "--param",
        "temperature=0",
        "--rename-param",
        "max_tokens=max_completion_tokens",
    ]
    extra += ["--drop-param", "temperature", "--header", "x-team=eval", "--max-time", "30"]
    result = _eval(fake_openai, [_set(tmp_path / "s.jsonl", 2)], tmp_path / "out", *extra)
    assert result.exit_code == 0, result.output
    for body in fake_openai.bodies:
        assert body["max_completion_tokens"] == 5 and "max_tokens" not in body and "temperature" not in body
    assert all(h.get("x-team") == "eval" for h in fake_openai.headers)


@pytest.mark.parametrize("header", ["x-team=评测", "x-team=a\r\nx-evil: 1", "名字=a"])
def test_a_header_http_cannot_carry_is_bad_usage(fake_openai: FakeOpenAI, tmp_path: Path, header: str) -> None:
    """It was a UnicodeEncodeError traceback after the set was read (run and eval alike)."""
    for command in ("eval", "run"):
        result = _eval(fake_openai, [_set(tmp_path / "s.jsonl", 1)], tmp_path / "out", "--header", header)
        if command == "run":
            args = ["run", str(tmp_path / "s.jsonl"), "-o", str(tmp_path / "o.jsonl"), "--base-url"]
            result = runner.invoke(app, [*args, fake_openai.base_url, "--model", "m", "--header", header])
        assert result.exit_code == 2, result.output
        assert "--header" in result.stderr and "Traceback" not in result.output
    assert fake_openai.requests == 0


def test_retry_empty_asks_an_empty_reply_again(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    asked: Counter[str] = Counter()

    def reply(body: dict[str, Any]) -> str:
        prompt = last_user(body)
        asked[prompt] += 1
        return "" if asked[prompt] == 1 else str(int(prompt.split("+")[0]) + 1)

    fake_openai.responder = reply
    result = _eval(fake_openai, [_set(tmp_path / "s.jsonl", 3)], tmp_path / "out", "--retry-empty", "1")
    assert result.exit_code == 0, result.output
    assert fake_openai.requests == 6
    assert "100.0" in (tmp_path / "out" / "report.txt").read_text(encoding="utf-8")


def test_the_progress_knows_the_total(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    sets = [_set(tmp_path / "a.jsonl", 5), _set(tmp_path / "b.jsonl", 3)]
    result = _eval(fake_openai, sets, tmp_path / "out", "--limit", "4")
    assert result.exit_code == 0, result.output
    assert re.search(r"run: 7/7 records \(100\.0%\)", result.stderr), result.stderr  # was "7/? records ... eta ?"


def test_the_python_api_takes_the_same_settings(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = lambda body: "" if fake_openai.requests % 2 else "2"
    dimensions = {"s": "算术"}
    outcome = evaluate(
        [_set(tmp_path / "s.jsonl", 1)],
        tmp_path / "out",
        EndpointOptions(fake_openai.base_url, "m", dialect=Dialect(stream=False)),
        retry_empty=2,
        dimensions=dimensions,
        math_timeout=1.0,
    )
    assert outcome.ok and outcome.run is not None and outcome.run.empty_replies == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert report["datasets"]["s"]["dimension"] == "算术"


def _free_text(path: Path) -> Path:
    line = {"prompt": "介绍长江。", "answer": "长江是中国最长的河流，全长约六千三百公里，流经多个省份，最后注入东海。"}
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_a_judge_is_needed_is_said_only_without_a_judge(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = lambda body: (
        '{"analysis": "covers the key facts", "score": 2}' if "⟪" in last_user(body) else "长江是中国最长的河。"
    )
    sets = [_free_text(tmp_path / "长江.jsonl")]
    dims = tmp_path / "dims.json"
    dims.write_text(json.dumps({"长江": "知识"}, ensure_ascii=False), encoding="utf-8")
    judged = _eval(
        fake_openai,
        sets,
        tmp_path / "judged",
        *("--judge-base-url", fake_openai.base_url, "--judge-model", "j", "--judge-lang", "en"),
        *("--dimensions", str(dims)),
    )
    assert judged.exit_code == 0, judged.output
    assert "a judge is needed" not in judged.output  # was printed, then the record was judged
    assert "⟪CONVERSATION⟫" in last_user(fake_openai.bodies[-1])  # --judge-lang en: the English template
    report = json.loads((tmp_path / "judged" / "report.json").read_text(encoding="utf-8"))
    assert report["datasets"]["长江"]["dimension"] == "知识" and report["datasets"]["长江"]["score"] == 100.0
    alone = _eval(fake_openai, sets, tmp_path / "alone")
    assert "a judge is needed" in alone.output and "--judge-base-url" in alone.output
