"""#39: ``--lang zh`` (or a Chinese locale) says the missing-path line and click's usage errors in Chinese, the
option's or argument's name and the value kept as typed; English stays click's wording."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

EN = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}
ZH = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}

CASES = [
    (["validate", "x.jsonl", "--bogus"],
     "Error: No such option: --bogus",
     "错误：没有这个选项：--bogus"),
    (["validate", "x.jsonl", "--mod", "scored"],
     "No such option: --mod. Did you mean --mode?",
     "没有这个选项：--mod。是否想用 --mode？"),
    (["eval"],
     "Error: Missing argument 'SET...'.",
     "错误：缺少参数 'SET...'。"),
    (["run", "in.jsonl", "--base-url", "http://h/v1", "--model", "m"],
     "Missing option '-o' / '--output'.",
     "缺少选项 '-o' / '--output'。"),
    (["validate", "x.jsonl", "--mode", "bad"],
     "Invalid value for '--mode': 'bad' is not one of 'infer-eval', 'infer-only', 'scored'.",
     "'--mode' 的值无效：'bad' 不是 'infer-eval', 'infer-only', 'scored' 之一。"),
    (["eval", "x.jsonl", "--limit", "0"],
     "Invalid value for '--limit': 0 is not in the range x>=1.",
     "'--limit' 的值无效：0 不在范围 x>=1 内。"),
    (["eval", "x.jsonl", "--limit", "abc"],
     "Invalid value for '--limit': 'abc' is not a valid integer.",
     "'--limit' 的值无效：'abc' 不是有效的整数。"),
    (["valdate", "x.jsonl"],
     "No such command 'valdate'. Did you mean 'validate'?",
     "没有这个命令 'valdate'。是否想用 'validate'？"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "english", "chinese"), CASES)
def test_usage_errors_in_both_languages(args: list[str], english: str, chinese: str) -> None:
    en = CliRunner(env=EN).invoke(app, args)
    assert en.exit_code == 2 and english in en.stderr, en.stderr
    assert "Usage: formatkit" in en.stderr and "--help' for help." in en.stderr
    for env, extra in ((EN, ["--lang", "zh"]), (EN, ["--lang=zh"]), (ZH, [])):
        zh = CliRunner(env=env).invoke(app, [*args, *extra])
        assert zh.exit_code == 2 and chinese in zh.stderr, zh.stderr
        assert "用法：formatkit" in zh.stderr and "查看帮助" in zh.stderr
        assert "Error" not in zh.stderr and "Traceback" not in zh.stderr
    # --lang en wins over a Chinese locale
    back = CliRunner(env=ZH).invoke(app, [*args, "--lang", "en"])
    assert back.exit_code == 2 and english in back.stderr, back.stderr


@pytest.mark.parametrize("command", ["validate", "convert", "report", "eval"])
def test_a_missing_path_is_said_in_the_language_asked(command: str, tmp_path: object) -> None:
    args = [command, "no-such.jsonl"]
    if command == "convert":
        args += ["-o", "out.jsonl"]
    if command == "eval":
        args += ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    en = CliRunner(env=EN).invoke(app, args)
    assert en.exit_code == 2 and "formatkit: error: no-such.jsonl: no such file" in en.stderr, en.stderr
    for env, extra in ((EN, ["--lang", "zh"]), (ZH, [])):
        zh = CliRunner(env=env).invoke(app, [*args, *extra])
        assert zh.exit_code == 2 and "formatkit：错误：no-such.jsonl：没有这个文件" in zh.stderr, zh.stderr


def test_the_fast_path_says_a_missing_path_in_chinese_too(tmp_path: object) -> None:
    # validate and convert run without typer when they can (formatkit.cli._fast): the same line in the process
    import os
    import subprocess
    import sys

    env = {**os.environ, **ZH}
    env.pop("_FORMATKIT_TYPER_ONLY", None)
    done = subprocess.run(
        [sys.executable, "-m", "formatkit.cli", "validate", "no-such.jsonl"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 2 and "formatkit：错误：no-such.jsonl：没有这个文件" in done.stderr, done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "formatkit.cli", "validate", "x.jsonl", "--mode", "bad", "--lang", "zh"],
        env={**env, **EN},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "'bad' 不是 'infer-eval'" in done.stderr, done.stderr
