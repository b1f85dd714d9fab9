"""Names from a file or a server never reach the terminal raw (issue #29 item 3).

Every printing command (``report`` as text and Markdown, ``score``, ``eval`` against the fake server, ``run``,
``merge``, ``export``) is run with model, dataset and dimension names that hold a terminal reset (ESC c), a
window title (OSC 0), a clipboard write (OSC 52), a bell, a line break followed by a forged ``FAKE: all
100.00`` line, a C1 control (U+009B, CSI) and a bidi override (U+202E). No control character reaches stdout
or stderr, no line is forged, and the names are still there to read, escaped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner, Result

from formatkit.cli import app

SEED = Path(__file__).parents[2] / "fixtures" / "seed"
HOSTILE = "\x1bc\x1b]0;owned\x07\x1b]52;c;ZWNobyBoaQ==\x07\x07\nFAKE: all 100.00\u009b\u202e"
MODEL, DATASET, DIMENSION = f"模型{HOSTILE}", f"数据集{HOSTILE}", f"维度{HOSTILE}"
#: What a terminal acts on: C0 controls but the line break, DEL and C1, line/paragraph separators, bidi controls.
_RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
runner = CliRunner()


def _clean(result: Result) -> str:
    """stdout and stderr, held to the promise: no raw control character, no forged line."""
    printed = result.stdout + result.stderr
    assert not _RAW.findall(printed), _RAW.findall(printed)
    assert not [line for line in printed.splitlines() if line.lstrip(" |-*`").startswith("FAKE")], printed
    return printed


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """The seed's scored output, its dataset, dimension and model named hostile."""
    lines = (SEED / "seed_output_single_turn.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    for record in records:
        record["meta"] = {"dataset": DATASET, "dimension": DIMENSION}
        for response in record["messages"][-1]["responses"]:
            response["model"] = MODEL
    return _write(tmp_path / "results.jsonl", records)


@pytest.mark.parametrize("fmt", ["text", "md"])
def test_report_escapes_every_name(results: Path, tmp_path: Path, fmt: str) -> None:
    mapping = tmp_path / "dimensions.json"
    mapping.write_text(json.dumps({DATASET: DIMENSION + "|二"}, ensure_ascii=False), encoding="utf-8")
    result = runner.invoke(app, ["report", str(results), "--format", fmt, "--dimensions", str(mapping)])
    assert result.exit_code == 0, result.output
    printed = _clean(result)
    assert "模型\\x1bc" in printed and "owned" in printed and "\\x9b\\u202e" in printed  # escaped, still readable
    if fmt == "md":  # a name's | or line break cannot break a table: every row has its columns
        rows = [line for line in printed.splitlines() if line.startswith("| 维度")]
        assert rows and all(line.count(" | ") == rows[0].count(" | ") for line in rows)


def test_report_escapes_the_run_records(results: Path) -> None:
    run = {"model": MODEL, "started": HOSTILE, "base_url": HOSTILE, "command": f"formatkit run {HOSTILE}"}
    Path(f"{results}.run.json").write_text(json.dumps(run), encoding="utf-8")
    for fmt in ("text", "md"):
        result = runner.invoke(app, ["report", str(results), "--format", fmt])
        assert result.exit_code == 0, result.output
        assert "formatkit run \\x1bc" in _clean(result)


def test_score_prints_its_summary_and_messages_escaped(results: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["score", str(results), "-o", str(tmp_path / "scored.jsonl")])
    assert result.exit_code == 0, result.output
    printed = _clean(result)
    assert "数据集\\x1bc" in printed and "维度\\x1bc" in printed
    scored = (tmp_path / "scored.jsonl").read_text(encoding="utf-8")
    assert json.dumps(DATASET, ensure_ascii=False) in scored  # the data keeps the name exactly


def test_score_json_and_the_report_files_keep_the_names_exact(results: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["score", str(results), "-o", str(tmp_path / "scored.jsonl"), "--json"])
    assert DATASET in json.loads(result.stdout)["datasets"]
    book = tmp_path / "report.xlsx"
    assert runner.invoke(app, ["report", str(results), "--format", "xlsx", "-o", str(book)]).exit_code == 0
    cells = [c for row in openpyxl.load_workbook(book).worksheets[0].iter_rows(values_only=True) for c in row]
    # written (openpyxl refuses raw control characters) in Excel's escape, which Excel reads back as the name
    assert any(isinstance(c, str) and c.startswith("模型_x001B_c_x001B_]0;owned_x0007_") for c in cells)


def test_export_prints_escaped(results: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", str(results), "-o", str(tmp_path / "out.xlsx")])
    assert result.exit_code == 0, result.output
    _clean(result)


def test_eval_run_and_merge_against_the_fake_server(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    dataset = _write(
        tmp_path / "set.jsonl",
        [{"prompt": f"{i}+1", "answer": str(i + 1), "meta": {"dataset": DATASET}} for i in range(4)],
    )
    mapping = tmp_path / "dimensions.json"
    mapping.write_text(json.dumps({DATASET: DIMENSION, "set": DIMENSION}), encoding="utf-8")
    endpoint = ["--base-url", fake_openai.base_url, "--model", MODEL]
    out = str(tmp_path / "eval")
    evaluated = runner.invoke(app, ["eval", str(dataset), "-o", out, "--dimensions", str(mapping), *endpoint])
    assert evaluated.exit_code == 0, evaluated.output
    assert "模型\\x1bc" in _clean(evaluated)
    parts = []
    for k in (1, 2):
        part = tmp_path / f"part{k}.jsonl"
        ran = runner.invoke(app, ["run", str(dataset), "-o", str(part), "--shard", f"{k}/2", *endpoint])
        assert ran.exit_code == 0, ran.output
        _clean(ran)
        parts.append(str(part))
    merged = runner.invoke(app, ["merge", *parts, "-o", str(tmp_path / "all.jsonl")])
    assert merged.exit_code == 0, merged.output
    _clean(merged)
    refused = runner.invoke(app, ["merge", parts[0], "-o", str(tmp_path / "half.jsonl")])
    assert refused.exit_code == 1, refused.output
    _clean(refused)
    report = runner.invoke(app, ["report", str(tmp_path / "all.jsonl")])  # the run records of a merge, reported
    assert report.exit_code == 0, report.output
    _clean(report)


def test_ordinary_chinese_names_print_as_they_are(tmp_path: Path) -> None:
    lines = (SEED / "seed_output_single_turn.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    for record in records:
        record["meta"] = {"dataset": "数学 基础", "dimension": "推理"}
    result = runner.invoke(app, ["report", str(_write(tmp_path / "r.jsonl", records)), "--format", "md"])
    assert "数学 基础" in result.stdout and "推理" in result.stdout and "\\x" not in result.stdout
