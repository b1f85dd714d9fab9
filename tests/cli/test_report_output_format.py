"""``report -o OUT`` writes what OUT's extension names when ``--format`` is left out, and refuses a format the
extension contradicts (a text report saved as ``compare.xlsx`` was a file Excel refuses to open)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

RESPONSES = Path(__file__).parents[2] / "fixtures" / "responses"
runner = CliRunner()


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("scored") / "gsm8k.scored.jsonl"
    result = runner.invoke(app, ["score", str(RESPONSES / "gsm8k.jsonl"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_the_extension_names_the_format(scored: Path, tmp_path: Path) -> None:
    for name in ("compare.xlsx", "compare.json", "compare.html", "compare.md", "compare.txt"):
        out = tmp_path / name
        result = runner.invoke(app, ["report", str(scored), "-o", str(out)])
        assert result.exit_code == 0, result.output
        data = out.read_bytes()
        if name.endswith(".xlsx"):
            assert zipfile.is_zipfile(out)
        elif name.endswith(".json"):
            assert "overall" in json.loads(data)
        elif name.endswith(".html"):
            assert data.lstrip().lower().startswith(b"<!doctype html")
        elif name.endswith(".md"):
            assert b"|" in data and not data.lstrip().startswith(b"<")
        else:
            assert not zipfile.is_zipfile(out) and not data.lstrip().startswith((b"{", b"<"))


def test_an_unknown_extension_is_the_text_report(scored: Path, tmp_path: Path) -> None:
    out = tmp_path / "compare.out"
    result = runner.invoke(app, ["report", str(scored), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert not out.read_bytes().lstrip().startswith((b"{", b"<", b"PK"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_format_the_extension_contradicts_is_bad_usage(scored: Path, tmp_path: Path, lang: str) -> None:
    out = tmp_path / "compare.xlsx"
    result = runner.invoke(app, ["report", str(scored), "--format", "text", "-o", str(out), "--lang", lang])
    assert result.exit_code == 2
    assert "--format text" in result.output and not out.exists()
    assert ("扩展名" in result.output) == (lang == "zh")


def test_an_explicit_format_that_agrees_is_taken(scored: Path, tmp_path: Path) -> None:
    out = tmp_path / "compare.json"
    result = runner.invoke(app, ["report", str(scored), "--format", "json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "overall" in json.loads(out.read_text(encoding="utf-8"))


def _dimensions(tmp_path: Path, mapping: dict[str, str]) -> Path:
    path = tmp_path / "dims.json"
    path.write_text(json.dumps(mapping, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_misspelled_dataset_in_dimensions_is_bad_usage(scored: Path, tmp_path: Path, lang: str) -> None:
    """``gsm8kk`` for ``gsm8k``: the dataset would have been a dimension of its own, moving the overall."""
    dims = _dimensions(tmp_path, {"gsm8kk": "推理", "mmlu": "知识"})
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["report", str(scored), "--dimensions", str(dims), "-o", str(out), "--lang", lang])
    assert result.exit_code == 2, result.output
    assert '"gsm8kk" → "gsm8k"' in result.output and not out.exists()


def test_entries_for_other_datasets_and_datasets_left_alone_are_said(scored: Path, tmp_path: Path) -> None:
    dims = _dimensions(tmp_path, {"mmlu_pro": "知识"})
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["report", str(scored), "--dimensions", str(dims), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "mmlu_pro" in result.output
    assert "does not name" not in result.output  # gsm8k's records name their dimension themselves
    assert list(json.loads(out.read_text(encoding="utf-8"))["dimensions"]) == ["推理数学"]


def test_a_dataset_left_to_stand_alone_is_said(tmp_path: Path) -> None:
    source = tmp_path / "plain.scored.jsonl"
    scored_text = (RESPONSES / "gsm8k.jsonl").read_text(encoding="utf-8").replace('"dimension"', '"dimension_"')
    (tmp_path / "plain.jsonl").write_text(scored_text, encoding="utf-8")
    assert runner.invoke(app, ["score", str(tmp_path / "plain.jsonl"), "-o", str(source)]).exit_code == 0
    dims = _dimensions(tmp_path, {"mmlu_pro": "知识"})
    result = runner.invoke(app, ["report", str(source), "--dimensions", str(dims), "-o", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    assert "does not name gsm8k" in result.output


def test_a_map_naming_every_dataset_says_nothing(scored: Path, tmp_path: Path) -> None:
    dims = _dimensions(tmp_path, {"gsm8k": "推理"})
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["report", str(scored), "--dimensions", str(dims), "-o", str(out)])
    assert result.exit_code == 0 and "note" not in result.output, result.output
    assert list(json.loads(out.read_text(encoding="utf-8"))["dimensions"]) == ["推理"]
