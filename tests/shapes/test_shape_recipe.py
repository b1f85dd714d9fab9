# ruff: noqa: E501  (samples are test data, kept one per line)
"""CONTRIBUTING.md, "Add a peer's shape": one entry of the table of shapes is the whole change.

The recipe's worked example (OpenAI Evals' samples), its module and its entry taken from CONTRIBUTING.md as
written, is registered for the test's duration (unless the table holds it already: the recipe followed for
real), written and read back from the command line, its own mistakes reported at their line; a shape that
goes one way is offered only that way, and a name the table lacks is bad usage.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from recipes import recipe_blocks
from typer.testing import CliRunner

from formatkit import SHAPES, write_shape
from formatkit._rules.shapes import ShapeSpec, register_shape, shape_names, unregister_shape
from formatkit.cli import app

NAME = "openai-evals"
runner = CliRunner()


@pytest.fixture
def evals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ShapeSpec]:
    """The recipe's module (as ``recipe_openai_evals``) and its entry, registered for the test."""
    if NAME in SHAPES:  # the recipe was followed for real: test the table's own entry
        yield SHAPES[NAME]
        return
    blocks = recipe_blocks("Add a peer's shape")
    (tmp_path / "recipe_openai_evals.py").write_text(blocks["formatkit/_rules/shapes/openai_evals.py"], "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("recipe_openai_evals")
    entry = blocks["formatkit/_rules/shapes/__init__.py, in SHAPES"].split("\n", 1)[1].strip().rstrip(",")
    spec = eval(entry, {"ShapeSpec": ShapeSpec})  # the entry as written in the recipe
    assert isinstance(spec, ShapeSpec) and spec.reader == "formatkit._rules.shapes.openai_evals:read_line"
    spec = register_shape(dataclasses.replace(spec, reader=module.read_line, writer=module.write_record))
    try:
        yield spec
    finally:
        unregister_shape(spec.name)
        sys.modules.pop("recipe_openai_evals", None)


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


SET = [
    {"system": "请完成下面的计算题", "prompt": "1+1等于几？", "answer": "2", "meta": {"subject": "math"}},
    {"prompt": "Capital of France?", "answer": "Paris", "parameters": {"temperature": 0.5}},
]


def test_the_worked_example_is_written_and_read_back_from_the_command_line(evals: ShapeSpec, tmp_path: Path) -> None:
    assert evals.directions == ("read", "write") and NAME in shape_names("write")
    source = _write(tmp_path / "set.jsonl", SET)
    written = runner.invoke(app, ["convert", str(source), "--to", NAME, "-o", str(tmp_path / "samples.jsonl")])
    assert written.exit_code == 0, written.output
    assert f"wrote 2 records as {NAME}" in written.output
    assert f"The {NAME} shape cannot hold parameters: 1 record(s)" in written.output
    assert f"The {NAME} shape cannot hold meta.subject: 1 record(s)" in written.output
    assert _read(tmp_path / "samples.jsonl") == [
        {"input": [{"role": "system", "content": "请完成下面的计算题"}, {"role": "user", "content": "1+1等于几？"}], "ideal": "2"},
        {"input": [{"role": "user", "content": "Capital of France?"}], "ideal": "Paris"},
    ]  # fmt: skip
    checked = runner.invoke(app, ["validate", "--from", NAME, str(tmp_path / "samples.jsonl")])
    assert checked.exit_code == 0, checked.output
    back = runner.invoke(app, ["convert", "--from", NAME, str(tmp_path / "samples.jsonl"), "-o", str(tmp_path / "b")])
    assert back.exit_code == 0, back.output
    records = _read(tmp_path / "b")
    assert [r["messages"][-1]["reference_response"] for r in records] == ["2", "Paris"]
    assert records[0]["messages"][0] == {"role": "system", "content": "请完成下面的计算题"}
    # the Python API reads the same table
    report = write_shape([source], tmp_path / "api.jsonl", NAME)
    assert report.valid and _read(tmp_path / "api.jsonl") == _read(tmp_path / "samples.jsonl")


def test_its_own_mistakes_are_reported_at_their_line_and_field(evals: ShapeSpec, tmp_path: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    samples.write_text('{"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}\n{"ideal": "3"}\n', "utf-8")
    result = runner.invoke(app, ["validate", "--lang", "en", "--from", NAME, str(samples)])
    assert result.exit_code == 1
    assert "line 2" in result.output and "[missing_field]" in result.output and "input" in result.output


def test_a_shape_that_goes_one_way_is_offered_that_way_only(evals: ShapeSpec, tmp_path: Path) -> None:
    one_way = register_shape(dataclasses.replace(evals, name="evals-read-only", writer=None))
    try:
        assert one_way.directions == ("read",)
        assert "evals-read-only" in shape_names("read") and "evals-read-only" not in shape_names("write")
        source = _write(tmp_path / "set.jsonl", SET)
        refused = runner.invoke(app, ["convert", str(source), "--to", "evals-read-only", "-o", str(tmp_path / "o")])
        assert refused.exit_code == 2 and "--to 'evals-read-only' is not one of" in refused.output
        assert not (tmp_path / "o").exists()
        with pytest.raises(ValueError, match="unknown shape 'evals-read-only'"):
            write_shape([source], tmp_path / "o", "evals-read-only")
        samples = _write(tmp_path / "samples.jsonl", [{"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}])
        assert runner.invoke(app, ["validate", "--from", "evals-read-only", str(samples)]).exit_code == 0
    finally:
        unregister_shape("evals-read-only")
    with pytest.raises(ValueError, match="the name is taken"):
        register_shape(evals)


def test_a_name_the_table_lacks_is_bad_usage(tmp_path: Path) -> None:
    source = _write(tmp_path / "set.jsonl", SET)
    for args in (["convert", str(source), "--to", "nope", "-o", str(tmp_path / "o")], ["validate", "--from", "nope"]):
        result = runner.invoke(app, [*args, str(source)] if args[0] == "validate" else args)
        assert result.exit_code == 2
        assert "'nope' is not one of " + ", ".join(shape_names("write" if "--to" in args else "read")) in result.output


def test_the_command_line_help_lists_every_entry_of_the_table() -> None:
    result = runner.invoke(app, ["convert", "--help"], terminal_width=400)
    assert result.exit_code == 0
    for name, spec in SHAPES.items():
        assert any(line.split() == [name, *spec.summary.split()] for line in result.output.splitlines()), name
    assert "--to KIND" in result.output and ", ".join(shape_names("write")) in " ".join(result.output.split())
