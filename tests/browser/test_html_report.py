"""The HTML report in a real headless chromium (Debian's ``chromium``), with no network: it renders, the
charts draw (radar axes named apart, with a legend), the leaderboard marks the best model, and the
question browser's filters compare the models (per-model outcome, "A right, B wrong", disagreement,
dataset, text), disagreements first, a page of cards at a time. A large report's packed data unpacks.
Skipped where chromium is not installed; CI installs it and sets FORMATKIT_REQUIRE_BROWSER=1 so that a
missing browser fails instead."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium import Browser, find_chromium
from two_models import build
from typer.testing import CliRunner

from formatkit.cli import app
from scoring._pipeline.report_file import collect_results

pytestmark = pytest.mark.browser
CHROMIUM = find_chromium()


def _need_chromium() -> str:
    if CHROMIUM is None:
        if os.environ.get("FORMATKIT_REQUIRE_BROWSER"):  # CI installed chromium: its absence is a failure
            pytest.fail("FORMATKIT_REQUIRE_BROWSER is set but no chromium was found")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    return CHROMIUM


def _wait_ready(browser: Browser) -> None:
    deadline = time.monotonic() + 30
    while not browser.evaluate("!!(window.formatkitReport && window.formatkitReport.ready)"):
        if time.monotonic() > deadline:
            raise AssertionError(f"the browser never got ready: {browser.evaluate(_COUNT)!r}")
        time.sleep(0.05)


_COUNT = "document.getElementById('f-count').textContent"


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build(tmp_path_factory.mktemp("two"))


@pytest.fixture(scope="module")
def expected(pair: tuple[Path, Path]) -> dict[str, Any]:
    """What the filters should find, from the library's own grouping of the same files."""
    collector = collect_results(list(pair), samples=True).samples
    assert collector is not None
    outcomes = [{m: a.outcome for m, a in q.answers.items()} for q in collector.questions]
    return {
        "total": len(outcomes),
        "a_right_b_wrong": sum(o.get(0) == "right" and o.get(1) == "wrong" for o in outcomes),
        "b_right_a_wrong": sum(o.get(1) == "right" and o.get(0) == "wrong" for o in outcomes),
        "disagree": sum(len(set(o.values())) > 1 for o in outcomes),
        "b_unscorable": sum(o.get(1) == "unscorable" for o in outcomes),
    }


@pytest.fixture(scope="module")
def page(pair: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    executable = _need_chromium()
    out = tmp_path_factory.mktemp("html") / "report.html"
    result = CliRunner().invoke(app, ["report", *map(str, pair), "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    with Browser(executable, width=1400) as browser:
        browser.open(out)
        _wait_ready(browser)
        yield browser


def _cards(browser: Browser) -> list[dict[str, Any]]:
    script = """Array.from(document.querySelectorAll('#samples .question')).map(function (q) {
      return {dataset: q.getAttribute('data-dataset'), disagree: q.classList.contains('disagree'),
              answers: Array.from(q.querySelectorAll('.answer')).map(function (a) {
                return {model: a.getAttribute('data-model'), cls: a.className, text: a.textContent}; }),
              text: q.textContent};
    })"""
    return list(page_value(browser, script))


def page_value(browser: Browser, script: str) -> Any:
    return browser.evaluate(script)


def _set(browser: Browser, element: str, value: str, event: str = "change") -> None:
    script = (
        f"(function(){{var e=document.getElementById({element!r}); e.value={value!r};"
        f"e.dispatchEvent(new Event({event!r}));}})()"
    )
    browser.evaluate(script)


def _reset(browser: Browser) -> None:
    for element in ("f-dataset", "f-agree", "f-preset", "f-model-0", "f-model-1"):
        _set(browser, element, "")
    _set(browser, "f-order", "gap")
    browser.evaluate("document.getElementById('f-text').value = ''; window.formatkitReport.apply()")


def _shown(browser: Browser) -> int:
    return int(browser.evaluate("window.formatkitReport.shown()"))


def test_page_renders_with_charts_legend_and_leaderboard(page: Browser) -> None:
    assert page.evaluate("document.title") == "Evaluation report"
    assert page.evaluate("document.querySelectorAll('svg rect').length") > 20
    assert page.evaluate("document.querySelectorAll('#radar svg polygon[fill-opacity]').length") == 2
    assert page.evaluate("document.querySelectorAll('line.ci').length") > 10  # interval whiskers drawn
    labels = page.evaluate("Array.from(document.querySelectorAll('.radar-label')).map(t => t.firstChild.textContent)")
    assert len(labels) == len(set(labels)) >= 3 and labels[0].startswith("1 ")
    assert page.evaluate("document.querySelectorAll('#radar table.legend tbody tr').length") == len(labels)
    ticks = page.evaluate("Array.from(document.querySelectorAll('#distribution text.axis')).map(t => t.textContent)")
    assert "0 %" in ticks and "1.0" in ticks  # the histogram's y and x axes have values
    best = page.evaluate("document.querySelectorAll('#leaderboard td.best').length")
    assert best >= 5  # model-a is best on most rows
    delta = page.evaluate("document.querySelector('#leaderboard tr.overall').lastElementChild.textContent")
    title = page.evaluate("document.querySelector('#leaderboard tr.overall').lastElementChild.title")
    assert delta.startswith("-") and delta[-1] in "*≈"  # model-b − model-a overall, with the paired verdict
    assert title.startswith("paired on") and ("significant" in title) == delta.endswith("*")
    cards = page.evaluate("Array.from(document.querySelectorAll('#overall .card')).map(c => c.innerText)")
    assert len(cards) == 2 and "model-a" in cards[0] and "interval" in cards[0]
    assert page.evaluate("window.pwned === undefined")  # an escaped <script> in a reply never ran
    width = page.evaluate("document.querySelector('svg').getBoundingClientRect().width")
    assert width > 300


def test_every_question_shows_each_model_side_by_side_disagreements_first(
    page: Browser, expected: dict[str, Any]
) -> None:
    _reset(page)
    assert _shown(page) == expected["total"]
    assert page.evaluate(_COUNT) == f"{expected['total']} of {expected['total']} questions"
    cards = _cards(page)
    assert len(cards) == min(40, expected["total"])  # drawn a page at a time
    assert all([a["model"] for a in c["answers"]] == ["model-a", "model-b"] for c in cards)
    flags = [c["disagree"] for c in cards]
    assert flags == sorted(flags, reverse=True) and flags[0]  # disagreements come first
    page.evaluate("document.getElementById('more').click()")
    assert len(_cards(page)) == min(80, expected["total"])
    needle = "<script>window.pwned=1</script>"
    pres = page.evaluate("Array.from(document.querySelectorAll('#samples pre')).map(p => p.textContent)")
    assert any(needle in text for text in pres)  # shown as text
    assert page.evaluate("window.pwned === undefined")


@pytest.mark.parametrize(
    ("settings", "key", "check"),
    [
        pytest.param({"f-preset": "0:right,1:wrong"}, "a_right_b_wrong", ("right", "wrong"), id="a-right-b-wrong"),
        pytest.param(
            {"f-model-0": "wrong", "f-model-1": "right"}, "b_right_a_wrong", ("wrong", "right"), id="b-right-a-wrong"
        ),
        pytest.param({"f-agree": "disagree"}, "disagree", None, id="models-disagree"),
        pytest.param({"f-model-1": "unscorable"}, "b_unscorable", None, id="one-model-outcome"),
    ],
)
def test_comparison_filters(
    page: Browser,
    expected: dict[str, Any],
    settings: dict[str, str],
    key: str,
    check: tuple[str, str] | None,
) -> None:
    _reset(page)
    for element, value in settings.items():
        _set(page, element, value)
    try:
        shown = _shown(page)
        assert 0 < shown < expected["total"]
        assert shown == expected[key]
        assert page.evaluate(_COUNT) == f"{shown} of {expected['total']} questions"
        cards = _cards(page)
        assert len(cards) == min(40, shown)
        if check is not None:
            assert all(
                c["answers"][0]["cls"] == f"answer {check[0]}" and c["answers"][1]["cls"] == f"answer {check[1]}"
                for c in cards
            )
        if key == "disagree":
            assert all(c["disagree"] for c in cards)
    finally:
        _reset(page)
    assert _shown(page) == expected["total"]


def test_dataset_and_text_filters(page: Browser, expected: dict[str, Any]) -> None:
    _reset(page)
    _set(page, "f-dataset", "writing")
    assert _shown(page) == 5 and all(c["dataset"] == "writing" for c in _cards(page))
    _reset(page)
    _set(page, "f-text", "I am not sure", "input")
    deadline = time.monotonic() + 60  # a safety limit only: the loop ends as soon as the search has run
    while _shown(page) == expected["total"] and time.monotonic() < deadline:  # the search waits for typing to stop
        time.sleep(0.05)
    cards = _cards(page)
    assert 0 < _shown(page) < expected["total"]
    assert all("I am not sure" in c["text"] for c in cards)
    _reset(page)


def test_a_large_report_travels_packed_and_unpacks(tmp_path: Path) -> None:
    executable = _need_chromium()
    records = []
    for model in ("big-a", "big-b"):
        for i in range(300):
            score = float((i + (model == "big-b")) % 2)
            records.append(
                {
                    "session_id": i,
                    "messages": [
                        {"role": "user", "content": f"第 {i} 题：请回答。"},
                        {
                            "role": "assistant",
                            "reference_response": "A",
                            "responses": [
                                {
                                    "parameters": {},
                                    "model": model,
                                    "content": f"{model} 的第 {i} 个回答：" + "推理过程" * 250 + f" {i * 7919 % 1000}",
                                    "score": score,
                                    "metric": "choice",
                                    "answer": "A" if score else "B",
                                }
                            ],
                        },
                    ],
                    "meta": {"dataset": "big"},
                }
            )
    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "big.html"
    assert CliRunner().invoke(app, ["report", str(path), "--format", "html", "-o", str(out)]).exit_code == 0
    assert 'data-encoding="gzip+base64"' in out.read_text(encoding="utf-8")
    with Browser(executable, width=390) as browser:
        browser.open(out)
        _wait_ready(browser)
        assert browser.evaluate(_COUNT) == "300 of 300 questions"
        cards = _cards(browser)
        assert len(cards) == 40 and all(c["disagree"] for c in cards)  # every question: one right, one wrong
        assert "推理过程" in cards[0]["answers"][0]["text"]
