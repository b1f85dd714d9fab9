"""Bad -o paths are bad usage: exit 2, one line that says what to do, no traceback, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from formatkit import convert
from formatkit._core.errors import OutputError
from formatkit.cli import app

FIXTURES = Path(__file__).parents[2] / "fixtures"
SEED = FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl"
SCORED = FIXTURES / "responses" / "gsm8k.jsonl"


@pytest.mark.parametrize(
    "command",
    [
        ["convert", str(SEED), "-o", "{dir}"],
        ["score", str(SCORED), "-o", "{dir}"],
        ["report", str(SCORED), "-o", "{dir}"],
        ["export", str(SCORED), "-o", "{dir}"],
    ],
    ids=["convert", "score", "report", "export"],
)
def test_output_that_is_a_directory_is_bad_usage(tmp_path: Path, command: list[str]) -> None:
    args = [a.replace("{dir}", str(tmp_path)) for a in command]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind


@pytest.mark.parametrize("name", ["set.xlsx", "SET.XLS", "set.csv"])
def test_convert_refuses_a_spreadsheet_output_name(tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    result = CliRunner().invoke(app, ["convert", str(SEED), "-o", str(out)])
    assert result.exit_code == 2
    assert "formatkit export" in result.output
    assert not out.exists()
    with pytest.raises(OutputError):
        convert([SEED], out)
