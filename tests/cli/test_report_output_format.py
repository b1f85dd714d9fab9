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
