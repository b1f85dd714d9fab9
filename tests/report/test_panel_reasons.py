"""A panel's reasons in every report (#40 item 4): each judge's verdict and rationale in the HTML cards' data
and the workbook's Questions sheet, and the text report's runs line naming every judge of the panel.

``eval`` with two judges that disagree, each giving its own reasons, against the tests' local
OpenAI-compatible server; then ``report`` of the output in text, HTML and xlsx.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from fakeserver import FakeOpenAI
from panel_eval import REASONS, judged_by_a_panel
from typer.testing import CliRunner

from formatkit.cli import app


@pytest.fixture
def panel_eval(fake_openai: FakeOpenAI, tmp_path: Path) -> Path:
    return judged_by_a_panel(fake_openai, tmp_path)


def _report(scored: Path, fmt: str, out: Path) -> None:
    result = CliRunner().invoke(app, ["report", str(scored), "--format", fmt, "-o", str(out)])
    assert result.exit_code == 0, result.output


def test_the_runs_line_names_every_judge_of_the_panel(panel_eval: Path) -> None:
    text = (panel_eval / "report.txt").read_text(encoding="utf-8")
    (line,) = [line for line in text.splitlines() if "; judge" in line]
    assert "; judge panel judge-a, judge-b (" in line


def test_the_runs_line_in_chinese_too(panel_eval: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    result = CliRunner().invoke(app, ["report", str(panel_eval / "scored.jsonl"), "-o", str(out), "--lang", "zh"])
    assert result.exit_code == 0, result.output
    assert "；裁判组 judge-a, judge-b（" in out.read_text(encoding="utf-8")


def _page_data(html: str) -> dict[str, Any]:
    script = r'<script type="application/json" id="report-data" data-encoding="([^"]+)">(.*?)</script>'
    match = re.search(script, html, re.S)
    assert match is not None, "the page's data script"
    encoding, text = match.groups()
    if encoding == "json":
        return dict(json.loads(text))
    return dict(json.loads(gzip.decompress(base64.b64decode(text))))


def test_every_judges_verdict_and_reasons_are_in_the_html_cards(panel_eval: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    _report(panel_eval / "scored.jsonl", "html", out)
    data = _page_data(out.read_text(encoding="utf-8"))
    strings = data["strings"]
    verdicts = [
        strings[r["v"]] for q in data["questions"] for a in q["a"] if a for r in a["r"] if "v" in r and r.get("m")
    ]
    judged = [v for v in verdicts if "judge-b" in v]
    assert len(judged) == 2  # both questions went to the panel
    for shown in judged:
        assert f"judge-a: 2\n  {REASONS['judge-a']}" in shown
        assert f"judge-b: 1\n  {REASONS['judge-b']}" in shown


def test_every_judges_verdict_and_reasons_are_in_the_workbook(panel_eval: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.xlsx"
    _report(panel_eval / "scored.jsonl", "xlsx", out)
    sheet = openpyxl.load_workbook(out)["Questions"]
    head = [c.value for c in sheet[1]]
    column = head.index("m rationale")
    cells = [str(row[column].value) for row in sheet.iter_rows(min_row=2) if row[column].value]
    judged = [c for c in cells if "judge-a" in c]
    assert len(judged) == 2
    assert all(REASONS["judge-a"] in c and REASONS["judge-b"] in c for c in judged)
    assert all("judge-a: 2" in c and "judge-b: 1" in c for c in judged)
