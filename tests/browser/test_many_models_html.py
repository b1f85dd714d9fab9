"""The many-model views of the HTML report (#31) in headless chromium: the ranking and the corrected
pairs as tables, each answer's rationale in view beside it, the diff of two answers (by character for
Chinese, as scoring/_report/figures/diff.py tokenises), and a 3,000-question × 4-model page of 1 KB replies that
stays under 8 MB and filters (counted in bytes and DOM nodes, never in time)."""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import Browser, find_chromium
from typer.testing import CliRunner

from formatkit.cli import app
from scoring._report.figures.diff import diff_text, tokens

pytestmark = pytest.mark.browser
CHROMIUM = find_chromium()
CORPUS = Path(__file__).parents[1] / "corpora" / "compare"
MODELS = ("GPT4", "GPT-3.5-turbo-0613", "qwen-7b-chat-hf", "internlm-chat-7b-hf")
runner = CliRunner()


def _need_chromium() -> str:
    if CHROMIUM is None:
        if os.environ.get("FORMATKIT_REQUIRE_BROWSER"):
            pytest.fail("FORMATKIT_REQUIRE_BROWSER is set but no chromium was found")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    return CHROMIUM


def _wait_ready(browser: Browser) -> None:
    deadline = time.monotonic() + 60  # a safety limit only
    while not browser.evaluate("!!(window.formatkitReport && window.formatkitReport.ready)"):
        if time.monotonic() > deadline:
            raise AssertionError("the page never got ready")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    executable = _need_chromium()
    work = tmp_path_factory.mktemp("lawbench")
    scored = []
    for model in MODELS:
        path = work / f"{model}.jsonl"
        source = CORPUS / f"lawbench_3-3_{model}.jsonl"
        assert runner.invoke(app, ["score", str(source), "-o", str(path), "--metric", "exact"]).exit_code == 0
        scored.append(str(path))
    out = work / "report.html"
    assert runner.invoke(app, ["report", *scored, "--format", "html", "-o", str(out)]).exit_code == 0
    with Browser(executable, width=1400) as browser:
        browser.open(out)
        _wait_ready(browser)
        yield browser


def test_ranking_and_corrected_pairs_are_tables(page: Browser) -> None:
    titles = page.evaluate("[...document.querySelectorAll('h3')].map(h => h.textContent)")
    assert any(t.startswith("Ranking (Bradley–Terry") for t in titles)
    assert any(t.startswith("Pairs on lawbench_3-3") for t in titles)
    verdicts = page.evaluate(
        "[...document.querySelectorAll('table.report-table')].filter(t => t.tHead.textContent.includes('p adjusted'))"
        "[0].querySelectorAll('tbody tr td:last-child').length"
    )
    assert verdicts == 6


def test_each_answer_shows_its_rationale_in_view(page: Browser) -> None:
    shown = page.evaluate(
        "[...document.querySelectorAll('#samples article')].slice(0, 5).map(a => "
        "[...a.querySelectorAll('.answer .rationale pre')].filter(p => p.offsetHeight > 0).length)"
    )
    assert shown == [4] * 5  # four models, each answer's rationale visible without opening anything


def test_opening_the_diff_marks_changed_characters_of_chinese_answers(page: Browser) -> None:
    found = page.evaluate(
        """(function () {
          var d = document.querySelector('#samples details.diffs');
          d.open = true; d.dispatchEvent(new Event('toggle'));
          var pre = d.querySelector('pre.diff');
          return {del: [...pre.querySelectorAll('del')].map(e => e.textContent),
                  ins: [...pre.querySelectorAll('ins')].map(e => e.textContent),
                  views: d.querySelectorAll('pre.diff').length, text: pre.textContent};
        })()"""
    )
    assert found["views"] == 3  # the two answers, and each against the reference
    assert found["del"] or found["ins"]
    assert all(len(t) <= 12 for t in found["del"] + found["ins"])  # characters, not the whole reply


def test_the_browser_tokenises_and_diffs_as_the_library_does(page: Browser) -> None:
    samples = ["答案是 42 apples, 不是41", "café naïve — «ok»", "한국어 テキスト 漢字", "[罪名]危险驾驶<eoa>"]
    for text in samples:
        assert page.evaluate(f"window.formatkitReport.tokens({json.dumps(text)})") == tokens(text)
    old, new = "[罪名]猥亵儿童<eoa>", "[罪名]强奸罪<eoa>"
    got = page.evaluate(f"window.formatkitReport.diff({json.dumps(old)}, {json.dumps(new)})")
    assert [tuple(s) for s in got] == diff_text(old, new)


_TEXT = (
    "模型 回答 问题 推理 步骤 因此 所以 结果 答案 计算 首先 然后 最后 根据 题目 条件 我们 可以 得到 "
    "the answer is because first then we compute result step value given so therefore check"
)
_WORDS = _TEXT.split()


def _reply(rng: random.Random, answer: str) -> str:
    """About 1 KB of mixed Chinese and English (UTF-8), ending in its answer line."""
    words: list[str] = []
    while len(" ".join(words).encode()) < 1024:
        words.append(rng.choice(_WORDS))
    return " ".join(words) + f" ANSWER: {answer}"


def _big(directory: Path, questions: int = 3000, models: int = 4) -> list[Path]:
    """``models`` files of ``questions`` records each, every reply about 1 KB of mixed Chinese and English."""
    paths = []
    for m in range(models):
        rng = random.Random(m)
        lines = []
        for i in range(questions):
            reply = _reply(rng, "ABCD"[(i + m) % 4])
            score = float(rng.random() < 0.5 + 0.1 * m)
            record = {
                "session_id": i,
                "messages": [
                    {
                        "role": "user",
                        "content": f"第 {i} 题：" + " ".join(random.Random(i).choice(_WORDS) for _ in range(20)),
                    },
                    {
                        "role": "assistant",
                        "reference_response": "ABCD"[i % 4],
                        "responses": [
                            {
                                "parameters": {},
                                "model": f"model-{m}",
                                "content": reply,
                                "score": score,
                                "metric": "choice",
                                "answer": "ABCD"[(i + m) % 4],
                                "analysis": f"choice: extracted «{'ABCD'[(i + m) % 4]}»; reference «{'ABCD'[i % 4]}»",
                            }
                        ],
                    },
                ],
                "meta": {"dataset": f"set-{i % 3}"},
            }
            lines.append(json.dumps(record, ensure_ascii=False))
        path = directory / f"model-{m}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


@pytest.mark.slow
def test_three_thousand_questions_by_four_models_stay_small_and_filter(tmp_path: Path) -> None:
    executable = _need_chromium()
    paths = _big(tmp_path)
    replies = [
        json.loads(line)["messages"][-1]["responses"][0]["content"]
        for p in paths
        for line in p.read_text(encoding="utf-8").splitlines()
    ]
    assert len(replies) == 12_000 and all(len(r.encode()) >= 1024 for r in replies)  # 1 KB replies
    out = tmp_path / "big.html"
    result = runner.invoke(app, ["report", *map(str, paths), "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.stat().st_size < 8 * 1024 * 1024
    with Browser(executable, width=1400) as browser:
        browser.open(out)
        _wait_ready(browser)
        assert browser.evaluate("document.getElementById('f-count').textContent") == "3000 of 3000 questions"
        nodes = browser.evaluate("document.getElementsByTagName('*').length")
        assert nodes < 6000  # a page of cards, not 3,000 of them
        browser.evaluate(
            "(function () { var s = document.getElementById('f-model-0'); s.value = 'right';"
            " s.dispatchEvent(new Event('change'));"
            " var t = document.getElementById('f-model-3'); t.value = 'wrong';"
            " t.dispatchEvent(new Event('change')); })()"
        )
        shown = browser.evaluate("window.formatkitReport.shown()")
        assert 0 < shown < 3000
        assert browser.evaluate("document.querySelectorAll('#samples article').length") == min(40, shown)
        assert browser.evaluate("document.getElementsByTagName('*').length") < 6000
