"""Serving-engine parameters in a set (issue 21, item 3): ``top_k``, ``min_p``, ``repetition_penalty`` and
``chat_template_kwargs`` are accepted with a warning (not OpenAI parameters; seed 001's list ends in 等),
checked for type and range like every known key, and sent exactly as written; a misspelt key stays an error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner

from formatkit import validate_file
from formatkit._api.validate import iter_dicts
from formatkit.cli import app

QWEN3 = {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "min_p": 0, "chat_template_kwargs": {"enable_thinking": False}}


def write(path: Path, *parameters: Any) -> Path:
    lines = [orjson.dumps({"prompt": f"q{i}", "answer": str(i), "parameters": p}) for i, p in enumerate(parameters)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def codes(path: Path) -> list[tuple[str, str | None]]:
    return [(i.code, i.field) for i in validate_file(path).issues]


def test_engine_keys_are_a_warning_and_kept_exactly(tmp_path: Path) -> None:
    src = write(tmp_path / "qwen3.jsonl", QWEN3, {"repetition_penalty": 1.05, "top_k": -1})
    report = validate_file(src)
    assert report.valid
    assert [(i.code, i.line, i.field) for i in report.issues] == [
        ("engine_parameter", 1, "parameters"),
        ("engine_parameter", 2, "parameters"),
    ]
    assert '"top_k", "min_p", "chat_template_kwargs"' in report.issues[0].message
    records = list(iter_dicts(src))
    assert records[0]["messages"][-1]["responses"] == [{"parameters": QWEN3}]
    assert records[1]["messages"][-1]["responses"] == [{"parameters": {"repetition_penalty": 1.05, "top_k": -1}}]


def test_the_warning_is_given_again_for_every_file(tmp_path: Path) -> None:
    """The clean-parameters cache must not remember a dict that draws a warning (it would silence it)."""
    for name in ("a.jsonl", "b.jsonl"):
        assert codes(write(tmp_path / name, QWEN3, QWEN3)) == [("engine_parameter", "parameters")] * 2


def test_engine_keys_in_excel(tmp_path: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["query", "reference_response", "parameters"])
    for i in range(3):
        sheet.append([f"q{i}", str(i), "{'top_k': 20, 'chat_template_kwargs': {'enable_thinking': False}}"])
    book.save(tmp_path / "set.xlsx")
    report = validate_file(tmp_path / "set.xlsx")
    assert report.valid and [(i.code, i.row) for i in report.issues] == [("engine_parameter", r) for r in (2, 3, 4)]
    record = next(iter_dicts(tmp_path / "set.xlsx"))
    assert record["messages"][-1]["responses"][0]["parameters"] == {
        "top_k": 20,
        "chat_template_kwargs": {"enable_thinking": False},
    }


@pytest.mark.parametrize(
    ("parameters", "code", "field"),
    [
        ({"top_k": 0}, "parameter_out_of_range", "parameters.top_k"),
        ({"top_k": -2}, "parameter_out_of_range", "parameters.top_k"),
        ({"top_k": 2.5}, "invalid_parameter_type", "parameters.top_k"),
        ({"min_p": 1.5}, "parameter_out_of_range", "parameters.min_p"),
        ({"repetition_penalty": 0}, "parameter_out_of_range", "parameters.repetition_penalty"),
        ({"chat_template_kwargs": "thinking=off"}, "invalid_parameter_type", "parameters.chat_template_kwargs"),
    ],
)
def test_engine_keys_are_checked_like_every_known_key(
    tmp_path: Path, parameters: dict[str, Any], code: str, field: str
) -> None:
    assert codes(write(tmp_path / "set.jsonl", parameters)) == [(code, field)]


@pytest.mark.parametrize(
    ("key", "meant"),
    [("temprature", "temperature"), ("topk", "top_k"), ("top-k", "top_k"), ("min-p", "min_p"), ("Top_K", "top_k")],
)
def test_a_misspelt_key_stays_an_error_with_did_you_mean(tmp_path: Path, key: str, meant: str) -> None:
    [issue] = validate_file(write(tmp_path / "set.jsonl", {key: 1})).issues
    assert issue.code == "unknown_parameter" and issue.severity == "error"
    assert f'Did you mean "{meant}"?' in issue.message


def test_enable_thinking_at_the_top_level_says_where_it_goes(tmp_path: Path) -> None:
    [issue] = validate_file(write(tmp_path / "set.jsonl", {"enable_thinking": False})).issues
    assert issue.code == "unknown_parameter"
    assert '{"chat_template_kwargs": {"enable_thinking": false}}' in issue.message


def test_the_runner_sends_engine_keys_as_written(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write(tmp_path / "set.jsonl", QWEN3)
    out = tmp_path / "out.jsonl"
    args = ["run", str(src), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "fake-model"]
    result = CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, [*args, "--param", "top_k=50", "--timeout", "2"])
    assert result.exit_code == 0, result.output
    [body] = fake_openai.bodies
    assert {k: body[k] for k in QWEN3} == QWEN3  # the set's values win over --param, nested object intact
