"""#39 (decided): a batch reply that names another model than its request (or, where the set does not say
what was asked, than the batch's other replies) is read in under the model it names, with a warning at its
line (``batch_other_model``); a dated snapshot of the requested model (``qwen-2026`` for ``qwen``) is the
same model. Through the CLI: ``convert --from openai-batch``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from formatkit.cli import app

SET = [{"prompt": f"{i}+1", "answer": str(i + 1), "session_id": i} for i in range(3)]


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def _replies(tmp_path: Path, source: Path, models: list[str]) -> Path:
    assert (
        _cli(
            "convert", str(source), "--to", "openai-batch", "--model", "qwen", "-o", str(tmp_path / "b.jsonl")
        ).exit_code
        == 0
    )
    requests = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text().splitlines()]
    replies = [
        {
            "custom_id": request["custom_id"],
            "response": {"status_code": 200, "body": {"model": model, "choices": [{"message": {"content": "2"}}]}},
        }
        for request, model in zip(requests, models, strict=True)
    ]
    return _write(tmp_path / "results.jsonl", replies)


def _models(path: Path) -> list[str]:
    return [json.loads(line)["messages"][-1]["responses"][0]["model"] for line in path.read_text().splitlines()]


def test_a_reply_naming_another_model_than_the_batchs_others_is_a_warning_at_its_line(tmp_path: Path) -> None:
    source = _write(tmp_path / "set.jsonl", SET)
    results = _replies(tmp_path, source, ["qwen-2026", "qwen-2026", "llama-3"])
    out = tmp_path / "a.jsonl"
    said = _cli("convert", str(results), "--from", "openai-batch", "--set", str(source), "-o", str(out))
    assert said.exit_code == 0, said.output  # a warning: the replies are what came back
    assert "batch_other_model" in said.output and "line 3, response.body.model" in said.output
    assert 'names model "llama-3", but the reply on line 1 named "qwen-2026"' in said.output
    assert _models(out) == ["qwen-2026", "qwen-2026", "llama-3"]  # recorded under the model that answered
    zh = _cli("convert", str(results), "--from", "openai-batch", "--set", str(source), "-o", str(out), "--lang", "zh")
    assert "该回复写的模型是“llama-3”" in zh.output


def test_one_model_throughout_says_nothing(tmp_path: Path) -> None:
    source = _write(tmp_path / "set.jsonl", SET)
    results = _replies(tmp_path, source, ["qwen-2026"] * 3)
    said = _cli(
        "convert", str(results), "--from", "openai-batch", "--set", str(source), "-o", str(tmp_path / "a.jsonl")
    )
    assert said.exit_code == 0 and "batch_other_model" not in said.output


def test_a_reply_against_the_model_its_set_says_was_asked(tmp_path: Path) -> None:
    # a set that carries each request's model (meta.model): a snapshot of it is fine, another model is not
    source = _write(tmp_path / "set.jsonl", [{**record, "meta": {"model": "qwen"}} for record in SET])
    results = _replies(tmp_path, source, ["qwen-2026", "llama-3", "llama-3"])
    said = _cli(
        "convert", str(results), "--from", "openai-batch", "--set", str(source), "-o", str(tmp_path / "a.jsonl")
    )
    assert said.exit_code == 0, said.output
    assert said.output.count('names model "llama-3", but the request asked for "qwen"') == 2
    assert "line 2, response.body.model" in said.output and "line 1, response.body.model" not in said.output
