# ruff: noqa: E501  (conversations are test data, kept one per line)
"""The peers read what formatkit writes (#32 item 3): each written file loaded by the tool's own loader,
where its package installs here. CI installs inspect-ai and evalscope in a venv of their own and runs
``pytest -m peers`` with FORMATKIT_REQUIRE_PEERS=1, so a loader missing there fails instead of skipping.
promptfoo (npm's package) runs the test file it is given where its command is found ($FORMATKIT_PROMPTFOO
or the PATH; CI installs it with npm). OpenCompass is not among them: its package did not install here
within 20 minutes."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

pytestmark = pytest.mark.peers

SET = [
    {
        "system": "请完成下面的计算题",
        "prompt": "1+1等于几？",
        "answer": "2",
        "session_id": 7,
        "meta": {"subject": "math"},
    },
    {"prompt": "Which is a prime?", "answer": "B", "session_id": 8, "meta": {"choices": ["4", "5"]}},
]
CONVERSATION = {
    "messages": [{"role": "user", "content": "3+1"}, {"role": "assistant", "content": "4"}, {"role": "user", "content": "再加1"}],
    "answer": "5",
}  # fmt: skip


def _need(name: str) -> ModuleType:
    """The peer's module; skipped when it is not installed, unless CI requires the peers."""
    try:
        return importlib.import_module(name)
    except ImportError:
        if os.environ.get("FORMATKIT_REQUIRE_PEERS") == "1":
            raise
        pytest.skip(f"{name} is not installed (pip install it, or run in CI)")


def _written(tmp_path: Path, lines: list[dict[str, Any]], shape: str, output: Path) -> Path:
    source = tmp_path / "set.jsonl"
    source.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    output.parent.mkdir(parents=True, exist_ok=True)
    result = CliRunner().invoke(app, ["convert", str(source), "--to", shape, "-o", str(output)])
    assert result.exit_code == 0, result.output
    return output


def test_inspect_ai_reads_the_samples_formatkit_writes(tmp_path: Path) -> None:
    dataset = _need("inspect_ai.dataset")
    written = _written(tmp_path, SET, "inspect", tmp_path / "samples.jsonl")
    samples = list(dataset.json_dataset(str(written)))
    assert [s.id for s in samples] == [7, 8]
    first, second = samples
    assert [(m.role, m.text) for m in first.input] == [("system", "请完成下面的计算题"), ("user", "1+1等于几？")]
    assert first.target == "2" and first.metadata == {"subject": "math"}
    assert second.input == "Which is a prime?" and second.choices == ["4", "5"] and second.target == "B"


def test_inspect_ai_reads_a_conversation_as_its_messages(tmp_path: Path) -> None:
    dataset = _need("inspect_ai.dataset")
    written = _written(tmp_path, [CONVERSATION], "inspect", tmp_path / "samples.jsonl")
    (sample,) = list(dataset.json_dataset(str(written)))
    assert [(m.role, m.text) for m in sample.input] == [("user", "3+1"), ("assistant", "4"), ("user", "再加1")]
    assert sample.target == "5"


def _evalscope_dataset(name: str, folder: Path, subset: str) -> list[Any]:
    """The samples EvalScope's own adapter loads from ``folder`` (its custom-set configuration)."""
    registry = _need("evalscope.api.registry")
    config = _need("evalscope.config")
    task = config.TaskConfig(
        model="none", datasets=[name], dataset_args={name: {"local_path": str(folder), "subset_list": [subset]}}
    )
    adapter = registry.get_benchmark(name, task)
    return list(adapter.load_dataset()[subset])


def test_evalscope_general_qa_reads_what_formatkit_writes(tmp_path: Path) -> None:
    _written(tmp_path, SET, "evalscope-qa", tmp_path / "qa" / "example.jsonl")
    samples = _evalscope_dataset("general_qa", tmp_path / "qa", "example")
    assert [[(m.role, m.text) for m in s.input] for s in samples] == [
        [("system", "请完成下面的计算题"), ("user", "1+1等于几？")],
        [("user", "Which is a prime?")],
    ]
    assert [s.target for s in samples] == ["2", "B"]


def test_evalscope_general_qa_reads_a_conversation(tmp_path: Path) -> None:
    _written(tmp_path, [CONVERSATION], "evalscope-qa", tmp_path / "qa" / "talk.jsonl")
    (sample,) = _evalscope_dataset("general_qa", tmp_path / "qa", "talk")
    assert [(m.role, m.text) for m in sample.input] == [("user", "3+1"), ("assistant", "4"), ("user", "再加1")]
    assert sample.target == "5"


def test_evalscope_general_mcq_reads_what_formatkit_writes(tmp_path: Path) -> None:
    _written(tmp_path, SET[1:], "evalscope-mcq", tmp_path / "mcq" / "example_val.jsonl")
    (sample,) = _evalscope_dataset("general_mcq", tmp_path / "mcq", "example")
    assert sample.choices is not None
    assert list(sample.choices) == ["4", "5"]
    assert sample.target == "B" and sample.metadata == {"id": 8}


def _promptfoo() -> str:
    """promptfoo's command (npm's package): $FORMATKIT_PROMPTFOO or on the PATH."""
    found = os.environ.get("FORMATKIT_PROMPTFOO") or shutil.which("promptfoo")
    if found is None:  # CI installs it where npm is (and says so when it is not)
        pytest.skip("promptfoo is not installed (npm install promptfoo)")
    return found


def test_promptfoo_runs_the_tests_formatkit_writes(tmp_path: Path) -> None:
    """promptfoo's own eval reads the test file: its echo provider answers each rendered prompt, and the
    results show each test's vars, its equals assertion on the reference and the metadata."""
    command = _promptfoo()
    _written(tmp_path, SET, "promptfoo", tmp_path / "tests.jsonl")
    (tmp_path / "promptfooconfig.yaml").write_text(
        'prompts:\n  - "{{system}} {{query}}"\nproviders:\n  - echo\ntests: file://tests.jsonl\n', encoding="utf-8"
    )
    quiet = {"PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_UPDATE": "1", "PROMPTFOO_CACHE_ENABLED": "false"}
    environment = {**os.environ, **quiet, "PROMPTFOO_CONFIG_DIR": str(tmp_path / ".promptfoo")}
    subprocess.run(
        [command, "eval", "-c", "promptfooconfig.yaml", "-o", "out.json", "--no-progress-bar"],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    results = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["results"]["results"]
    seen = sorted(results, key=lambda r: r["testCase"]["metadata"]["id"])
    assert [r["vars"] for r in seen] == [
        {"query": "1+1等于几？", "system": "请完成下面的计算题"},
        {"query": "Which is a prime?"},
    ]
    assert [r["testCase"]["assert"] for r in seen] == [
        [{"type": "equals", "value": "2"}],
        [{"type": "equals", "value": "B"}],
    ]
    assert [r["testCase"]["metadata"] for r in seen] == [{"id": 7, "subject": "math"}, {"id": 8, "choices": ["4", "5"]}]
    assert seen[0]["response"]["output"] == "请完成下面的计算题 1+1等于几？"
