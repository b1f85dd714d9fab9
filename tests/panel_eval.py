"""An ``eval`` judged by a panel of two judges that disagree, each with reasons of its own (#40 item 4), for
the report tests and the browser's: built against the tests' local OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from fakeserver import FakeOpenAI, last_user
from typer.testing import CliRunner

from formatkit.cli import app

QUESTIONS = [
    {"prompt": "介绍长江。", "answer": "长江是中国最长的河流，全长约六千三百公里，流经多个省份，最后注入东海。"},
    {"prompt": "番茄炒蛋放糖吗？", "answer": "可以放少许糖"},
]
REASONS = {"judge-a": "甲：要点齐全，给 2 分", "judge-b": "乙：漏了长度，给 1 分"}


def _reply(body: dict[str, Any]) -> str:
    if body["model"] == "m":
        return {"介绍长江。": "长江是中国最长的河。"}.get(last_user(body), "可以，加一点点糖能提鲜。")
    score = 2 if body["model"] == "judge-a" else 1
    return orjson.dumps({"analysis": REASONS[body["model"]], "score": score}).decode()


def judged_by_a_panel(fake_openai: FakeOpenAI, tmp_path: Path) -> Path:
    """The eval's output folder (``scored.jsonl``, ``report.txt``, ``run.json``)."""
    fake_openai.responder = _reply
    src = tmp_path / "综合.jsonl"
    src.write_bytes(b"".join(orjson.dumps(q) + b"\n" for q in QUESTIONS))
    out = tmp_path / "eval"
    args = ["eval", str(src), "--base-url", fake_openai.base_url, "--model", "m", "-o", str(out)]
    args += ["--judge-base-url", fake_openai.base_url, "--judge-model", "judge-a", "--judge-model", "judge-b"]
    result = CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, args)
    assert result.exit_code == 0, result.output
    return out
