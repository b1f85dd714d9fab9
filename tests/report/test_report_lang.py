"""The text and Markdown report in the reader's language (#29: ``eval --lang zh`` translated only the issues):
titles, column heads, fixed words, the coverage phrases and the legend come from the catalogues'
``ui.report.term.*`` / ``ui.report.phrase.*`` keys; JSON keeps English keys; English stays as it was."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from fakeserver import FakeOpenAI
from typer.testing import CliRunner

from formatkit._core.messages import catalogue
from formatkit.cli import app
from scoring._report.leaderboard import LEGEND
from scoring._report.models import INTERVAL_NOTE, PAIRWISE_NOTE
from scoring._report.multiple import PAIRS_NOTE
from scoring._report.ratings import RATINGS_NOTE

ROOT = Path(__file__).parents[2]
SEED = ROOT / "fixtures" / "seed"
runner = CliRunner(env={"OPENAI_API_KEY": "", "LANG": "C.UTF-8"})


def _scored(tmp_path: Path) -> list[str]:
    out = []
    for name in ("gsm8k", "mmlu_pro"):
        target = tmp_path / f"{name}.jsonl"
        source = ROOT / "fixtures" / "responses" / f"{name}.jsonl"
        result = runner.invoke(app, ["score", str(source), "-o", str(target)])
        assert result.exit_code in (0, 1), result.output
        out.append(str(target))
    return out


def test_report_lang_zh_says_the_tables_and_legend_in_chinese(tmp_path: Path) -> None:
    files = _scored(tmp_path)
    english = runner.invoke(app, ["report", *files]).stdout
    chinese = runner.invoke(app, ["report", *files, "--lang", "zh"]).stdout
    assert "Leaderboard (0–100, 95 % interval)" in english and "排行榜（0–100，95% 区间）" not in english
    said = ("排行榜（0–100，95% 区间）", "各模型在各数据集上的明细", "已评分记录", "总分", "单元格：")
    for words in said:
        assert words in chinese, words
    for words in ("Leaderboard", "Details per model", "scored records", "cells: score"):
        assert words not in chinese, words
    # the numbers are the same numbers
    assert re.findall(r"\d+\.\d\d", english) == re.findall(r"\d+\.\d\d", chinese)
    as_json = runner.invoke(app, ["report", *files, "--lang", "zh", "--format", "json"]).stdout
    assert "overall" in json.loads(as_json)  # programs read English keys


def test_eval_lang_zh_prints_and_writes_the_report_in_chinese(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    out = tmp_path / "eval"
    args = ["eval", str(SEED / "seed_jsonl_single_turn.jsonl"), "-o", str(out), "--base-url", fake_openai.base_url]
    result = runner.invoke(app, [*args, "--model", "m", "--lang", "zh"])
    assert result.exit_code in (0, 1), result.output
    assert "排行榜" in result.stdout and "Leaderboard" not in result.stdout
    assert "排行榜" in (out / "report.txt").read_text(encoding="utf-8")
    assert "Leaderboard" not in (out / "report.txt").read_text(encoding="utf-8")


def test_every_report_term_is_words_the_renderers_write() -> None:
    # a term whose English the renderers no longer write would silently stop translating: held here
    # every string the renderers hold (adjacent literals are one string to the parser), and the f-string notes
    strings = [
        node.value
        for path in (ROOT / "scoring" / "_report").glob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    written = "\n".join([*strings, LEGEND, INTERVAL_NOTE, PAIRWISE_NOTE, PAIRS_NOTE, RATINGS_NOTE])
    english = catalogue("en")
    terms = {key: text for key, text in english.items() if key.startswith("ui.report.term.")}
    assert len(terms) > 30
    assert [key for key, text in terms.items() if text not in written] == []
    chinese = catalogue("zh")
    assert all(chinese[key] != text for key, text in terms.items())
