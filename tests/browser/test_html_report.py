"""The HTML report in a real headless chromium (Debian's ``chromium``), with no network: it renders, the
charts draw, and the per-sample filters work. Skipped where chromium is not installed; CI installs it and
sets FORMATKIT_REQUIRE_BROWSER=1 so that a missing browser fails instead."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from chromium import Browser, find_chromium
from two_models import build
from typer.testing import CliRunner

from formatkit.cli import app

pytestmark = pytest.mark.browser
CHROMIUM = find_chromium()


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    if CHROMIUM is None:
        if os.environ.get("FORMATKIT_REQUIRE_BROWSER"):  # CI installed chromium: its absence is a failure
            pytest.fail("FORMATKIT_REQUIRE_BROWSER is set but no chromium was found")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    directory = tmp_path_factory.mktemp("html")
    a, b = build(directory)
    out = directory / "report.html"
    result = CliRunner().invoke(app, ["report", str(a), str(b), "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    with Browser(CHROMIUM) as browser:
        browser.open(out)
        yield browser


def _shown(browser: Browser) -> int:
    return int(browser.evaluate("document.querySelectorAll('#samples .sample:not([hidden])').length"))


def _filter(browser: Browser, element: str, value: str, event: str = "change") -> None:
    script = (
        f"(function(){{var e=document.getElementById({element!r}); e.value={value!r};"
        f"e.dispatchEvent(new Event({event!r}));}})()"
    )
    browser.evaluate(script)


def test_page_renders_with_charts_and_tables(page: Browser) -> None:
    assert page.evaluate("document.title") == "Evaluation report"
    assert page.evaluate("document.querySelectorAll('svg rect').length") > 20
    assert page.evaluate("document.querySelectorAll('svg polygon').length") >= 2  # the radar, one per model
    assert page.evaluate("document.querySelectorAll('line.ci').length") > 10  # interval whiskers drawn
    cards = page.evaluate("Array.from(document.querySelectorAll('#overall .card')).map(c => c.innerText)")
    assert len(cards) == 2 and "model-a" in cards[0] and "interval" in cards[0]
    assert page.evaluate("window.pwned === undefined")  # an escaped <script> in a reply never ran
    width = page.evaluate("document.querySelector('svg').getBoundingClientRect().width")
    assert width > 300


@pytest.mark.parametrize(
    ("element", "value", "event", "expected"),
    [
        pytest.param("f-model", "model-b", "change", 72, id="model"),
        pytest.param("f-dataset", "writing", "change", 10, id="dataset"),
        pytest.param("f-outcome", "unscorable", "change", None, id="outcome"),
        pytest.param("f-text", "I am not sure", "input", None, id="text-search"),
    ],
)
def test_filters_narrow_the_samples(page: Browser, element: str, value: str, event: str, expected: int | None) -> None:
    total = _shown(page)
    assert total == 2 * 72
    _filter(page, element, value, event)
    try:
        shown = _shown(page)
        assert 0 < shown < total
        if expected is not None:
            assert shown == expected
        assert page.evaluate("document.getElementById('f-count').textContent") == f"{shown} shown"
        if element == "f-text":
            texts = page.evaluate(
                "Array.from(document.querySelectorAll('#samples .sample:not([hidden])')).map(s => s.textContent)"
            )
            assert all("I am not sure" in t for t in texts)
    finally:
        _filter(page, element, "", event)
    assert _shown(page) == total
