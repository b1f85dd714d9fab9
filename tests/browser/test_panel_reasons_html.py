"""A panel's reasons in the HTML report's cards, in a real headless chromium (#40 item 4): a judged answer's
card, its "judge's verdicts" opened, shows each judge of the panel with its verdict and rationale. Skipped
where chromium is not installed (CI sets FORMATKIT_REQUIRE_BROWSER=1 so that a missing browser fails)."""

from __future__ import annotations

from pathlib import Path

import pytest
from chromium import Browser
from fakeserver import FakeOpenAI
from panel_eval import REASONS, judged_by_a_panel
from test_html_report import _need_chromium, _wait_ready
from typer.testing import CliRunner

from formatkit.cli import app

pytestmark = pytest.mark.browser


def test_each_judges_reasons_show_in_the_card(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    executable = _need_chromium()
    scored = judged_by_a_panel(fake_openai, tmp_path) / "scored.jsonl"
    out = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(scored), "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    with Browser(executable, width=1400) as browser:
        browser.open(out)
        _wait_ready(browser)
        browser.evaluate("document.querySelectorAll('#samples details').forEach(d => d.open = true)")
        texts = browser.evaluate("Array.from(document.querySelectorAll('#samples .answer')).map(a => a.innerText)")
    judged = [t for t in texts if "judge-b" in t]
    assert len(judged) == 2
    for text in judged:
        assert "judge-a: 2" in text and REASONS["judge-a"] in text
        assert "judge-b: 1" in text and REASONS["judge-b"] in text
