"""The upload page of ``formatkit serve`` in a real headless chromium (Debian's, driven by Playwright), against a
real uvicorn on a loopback port, with the token asked for: a broken sheet from fixtures/invalid is picked,
its issues appear grouped by code at their sheet/row/column, in Chinese (the browser's language) and in
English after the switch, each with the message ``formatkit validate --json`` gives; the preview marks the
offending cell; the repaired copy downloads and validates with the library; an upload's filename and cell
text stay text (no markup of theirs runs); the page is usable 390 px wide; the upload folder is empty after.

Skipped where chromium or Playwright is not installed; CI sets FORMATKIT_REQUIRE_BROWSER=1 so that a missing
one fails instead."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium import find_chromium
from typer.testing import CliRunner
from uvicorn_process import Running, running

import formatkit
from formatkit.cli import app as cli
from formatkit.serve import Settings, create_app

pytestmark = pytest.mark.browser

HERE = Path(__file__).parent
FIXTURES = Path(__file__).parents[2] / "fixtures"
#: Broken at one cell (row 3, column E: parameters that are no dictionary), and fix repairs it.
BROKEN = FIXTURES / "invalid" / "excel" / "invalid_parameters.xlsx"
DATES = FIXTURES / "invalid" / "excel" / "date_cell.xlsx"
TOKEN = "page-test-token"


def _need() -> tuple[str, Any]:
    required = bool(os.environ.get("FORMATKIT_REQUIRE_BROWSER"))
    executable = find_chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if required:
            pytest.fail("FORMATKIT_REQUIRE_BROWSER is set but Playwright is not installed (pip install playwright)")
        pytest.skip("Playwright is not installed (pip install playwright)")
    if executable is None:
        if required:
            pytest.fail("FORMATKIT_REQUIRE_BROWSER is set but no chromium was found")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    return executable, sync_playwright


@pytest.fixture(scope="module")
def uploads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("uploads")


@pytest.fixture(scope="module")
def server(uploads: Path) -> Iterator[Running]:
    _need()
    env = {
        **os.environ,
        "PYTHONPATH": str(HERE),
        "FORMATKIT_SERVE_TOKEN_ENV": "PAGE_TEST_TOKEN",
        "PAGE_TEST_TOKEN": TOKEN,
        "FORMATKIT_SERVE_UPLOAD_DIR": str(uploads),
    }
    command = [sys.executable, "-m", "uvicorn", "--factory", "served_app:make_app", "--host", "127.0.0.1"]
    with running([*command, "--port", "0"], env, cwd=str(HERE)) as served:
        yield served
    assert TOKEN not in served.text()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable, sync_playwright = _need()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


def open_page(browser: Any, server: Running, *, locale: str, width: int = 1280, token: bool = True) -> Any:
    context = browser.new_context(locale=locale, viewport={"width": width, "height": 900}, accept_downloads=True)
    if token:  # as if the token had been typed in this tab before
        context.add_init_script(f"sessionStorage.setItem('formatkit.token', {json.dumps(TOKEN)})")
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-state=idle]")
    return page


def pick(page: Any, *files: Path | dict[str, Any]) -> None:
    page.set_input_files("#files", [str(f) if isinstance(f, Path) else f for f in files])
    page.wait_for_selector("body[data-state=done]", timeout=60_000)  # the report, every preview and repair


def expected(path: Path, lang: str) -> dict[str, Any]:
    """What ``formatkit validate --json --lang LANG`` prints for the file."""
    here = Path.cwd()
    os.chdir(path.parent)
    try:
        result = CliRunner().invoke(cli, ["validate", "--json", "--lang", lang, path.name])
    finally:
        os.chdir(here)
    assert result.exit_code == 1, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def shown_issues(page: Any) -> list[dict[str, Any]]:
    return list(
        page.eval_on_selector_all(
            "article.file .group li.issue",
            """items => items.map(li => ({
                code: li.closest('.group').dataset.code,
                row: li.dataset.row ? Number(li.dataset.row) : null,
                column: li.dataset.column || null,
                place: (li.querySelector('.place') || {}).textContent || '',
                message: li.querySelector('.message').textContent }))""",
        )
    )


def test_a_broken_sheet_shows_its_issues_at_their_cells_in_chinese_then_english(browser: Any, server: Running) -> None:
    page = open_page(browser, server, locale="zh-CN")
    assert page.title() == "formatkit：上传前检查评测集"  # the browser's language, by default
    pick(page, BROKEN)
    for lang, place in (
        ("zh", "工作表 Sheet1 · 第 3 行 · 列 E (parameters)"),
        ("en", "sheet Sheet1 · row 3 · column E (parameters)"),
    ):
        if lang == "en":
            page.click("button[data-lang=en]")
            page.wait_for_selector("body[data-state=done]")
            page.wait_for_selector("html[lang=en]")
        document = expected(BROKEN, lang)
        [report] = document["files"]
        shown = shown_issues(page)
        assert [(i["code"], i["row"], i["column"], i["message"]) for i in shown] == [
            (i["code"], i["row"], i["column"], i["message"]) for i in report["issues"]
        ]
        assert shown[0]["place"] == place
        card = page.locator("article.file")
        assert card.get_attribute("data-file") == BROKEN.name
        assert card.get_attribute("data-valid") == "false"
        verdict = card.locator(".verdict").inner_text()
        assert verdict == ("不能上传：1 个错误，0 条警告" if lang == "zh" else "Not ready: 1 error(s), 0 warning(s)")
        # the preview: the sheet as read, the offending cell marked with its message, the others not
        cell = page.locator('td[data-cell="E3"]')
        assert cell.inner_text() == "temperature=0.7"
        assert "bad" in (cell.get_attribute("class") or "")
        assert report["issues"][0]["message"] in (cell.get_attribute("title") or "")
        assert page.locator("table.grid td.bad").count() == 1
        cell.click()  # a phone has no pointer to hover with: a touch says the cell's problem under the table
        assert page.locator(".cell-note").inner_text() == f"E3: invalid_parameters: {report['issues'][0]['message']}"
        assert page.locator('tr[data-row="3"]').get_attribute("class") == "row bad"
    page.context.close()


def test_the_repaired_copy_downloads_and_validates(browser: Any, server: Running, tmp_path: Path) -> None:
    page = open_page(browser, server, locale="en-US")
    pick(page, BROKEN)
    button = page.locator("button.download")
    button.wait_for()
    assert "passes the check" in page.locator(".fix").inner_text()
    with page.expect_download() as waiting:
        button.click()
    download = waiting.value
    assert download.suggested_filename == "invalid_parameters.fixed.xlsx"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert not formatkit.validate_file(BROKEN).valid
    report = formatkit.validate_file(saved)
    assert report.valid, [(i.code, i.row, i.column) for i in report.issues]
    assert len(list(formatkit.iter_dicts(saved))) == report.records == 2
    page.context.close()


def test_a_valid_file_says_ready_and_offers_no_download(browser: Any, server: Running) -> None:
    page = open_page(browser, server, locale="en-US")
    pick(page, FIXTURES / "valid" / "excel_single_turn.xlsx", FIXTURES / "valid" / "single_turn_minimal.jsonl")
    cards = page.locator("article.file")
    assert cards.count() == 2
    assert [cards.nth(i).get_attribute("data-valid") for i in range(2)] == ["true", "true"]
    assert page.locator("button.download").count() == 0
    assert page.locator("#status").inner_text() == "2 file(s) checked: 2 ready to upload, 0 with errors to correct."
    assert page.locator('table.grid[data-kind="lines"]').count() == 1  # the jsonl file's lines
    page.context.close()


def test_markup_in_a_filename_or_a_cell_stays_text(browser: Any, server: Running, tmp_path: Path) -> None:
    from openpyxl import load_workbook

    book = load_workbook(DATES)
    hostile = '<img src=x onerror="window.pwned=1">'
    book.active["C2"] = hostile
    path = tmp_path / "book.xlsx"
    book.save(path)
    name = "<img src=x onerror=window.pwned=2>.xlsx"  # a browser sends a double quote as %22
    page = open_page(browser, server, locale="en-US")
    dialogs: list[str] = []

    def dialog_opened(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dialog_opened)
    pick(page, {"name": name, "mimeType": "application/octet-stream", "buffer": path.read_bytes()})
    assert page.locator("article.file h2").inner_text() == name
    assert page.locator('td[data-cell="C2"]').inner_text() == hostile
    assert page.evaluate("window.pwned") is None
    assert page.locator("img").count() == 0
    assert not dialogs
    page.context.close()


def test_the_page_asks_for_the_token_when_the_server_wants_one(browser: Any, server: Running) -> None:
    page = open_page(browser, server, locale="en-US", token=False)
    page.set_input_files("#files", str(BROKEN))
    page.wait_for_selector("body[data-state=error]")
    assert page.locator("#token-box.shown").count() == 1
    assert "401" in page.locator("#status").inner_text()
    page.fill("#token", TOKEN)
    page.click("#token-save")
    page.wait_for_selector("body[data-state=done]", timeout=60_000)
    assert page.locator("article.file").get_attribute("data-valid") == "false"
    page.context.close()


def test_more_files_than_the_platform_takes_are_refused_before_sending(browser: Any, server: Running) -> None:
    page = open_page(browser, server, locale="zh-CN")
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if "/v1/" in request.url else None)
    page.set_input_files("#files", [str(BROKEN)] * 11)
    assert page.locator("#status").inner_text() == "一次最多 10 个文件，现在选了 11 个。请少选一些。"
    assert not sent
    page.context.close()


def test_the_page_is_usable_390_px_wide(browser: Any, server: Running) -> None:
    page = open_page(browser, server, locale="zh-CN", width=390)
    pick(page, BROKEN)
    # nothing makes the page itself scroll sideways: the preview table scrolls in its own box
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for selector in ("label.pick", "button[data-lang=en]", "button.download", "article.file .verdict", "#mode"):
        box = page.locator(selector).bounding_box()
        assert box is not None, selector
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (selector, box)
        assert box["height"] >= 20, (selector, box)  # big enough to read and to touch
    grid = page.locator(".scroll").bounding_box()
    assert grid is not None and grid["x"] + grid["width"] <= 390
    page.context.close()


def test_the_upload_folder_is_empty_after_the_page_is_done(browser: Any, server: Running, uploads: Path) -> None:
    page = open_page(browser, server, locale="en-US")
    pick(page, BROKEN, DATES)
    page.context.close()
    assert list(uploads.iterdir()) == []


def test_both_languages_have_every_string(browser: Any, server: Running) -> None:
    page = open_page(browser, server, locale="en-US")
    strings = page.evaluate("window.formatkitPage.strings")
    assert sorted(strings) == ["en", "zh"]
    assert sorted(strings["en"]) == sorted(strings["zh"])
    for key, english in strings["en"].items():
        chinese = strings["zh"][key]
        assert chinese != english or key.startswith("mode."), key  # every string said in Chinese
        fields = sorted(set(re.findall(r"\{(\w+)\}", english)))
        assert fields == sorted(set(re.findall(r"\{(\w+)\}", chinese))), key
    page.context.close()


def test_the_page_works_on_formatkit_serve_itself(browser: Any, tmp_path: Path) -> None:
    """``formatkit serve`` as shipped (no test factory): the page checks, previews with the offending cell
    marked, and repairs."""
    command = [str(Path(sys.executable).parent / "formatkit"), "serve", "--port", "0", "--lang", "zh"]
    with running(command, {**os.environ, "LANG": "C.UTF-8"}, cwd=str(tmp_path)) as served:
        page = open_page(browser, served, locale="en-US", token=False)
        pick(page, BROKEN)
        assert page.locator("article.file").get_attribute("data-valid") == "false"
        assert page.locator("article.file .group").get_attribute("data-code") == "invalid_parameters"
        assert page.locator("button.download").count() == 1
        assert any(getattr(r, "path", None) == "/v1/preview" for r in create_app(Settings()).routes)
        assert page.locator('td[data-cell="E3"].bad').count() == 1
        assert "No preview" not in page.locator("article.file").inner_text()
        page.context.close()
