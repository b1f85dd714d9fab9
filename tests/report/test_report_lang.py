"""The text and Markdown report in the reader's language (#29, #36): every title, column head, cell word and
note is a ``report.*`` catalogue template rendered in the language (scoring/_report/words.py), never English
rewritten by patterns; JSON keeps English keys; English stays as it was."""

from __future__ import annotations

import ast
import importlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakeserver import FakeOpenAI
from two_models import build
from typer.testing import CliRunner

from formatkit._core.messages import catalogue, languages
from formatkit.cli import app
from scoring._report.words import SYMBOLS

ROOT = Path(__file__).parents[2]
SEED = ROOT / "fixtures" / "seed"
runner = CliRunner(env={"OPENAI_API_KEY": "", "LANG": "C.UTF-8"})
CJK_WORDS = {"排行榜", "总分", "胜率"}


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


def test_two_models_in_chinese_leave_no_english_word_of_the_report(tmp_path: Path) -> None:
    # the pairwise cells, the power table's counts, the reference answer, the scope and the notes: words
    # that the English-and-patterns mechanism left English are Chinese now
    a, b = build(tmp_path)
    chinese = runner.invoke(app, ["report", str(a), str(b), "--lang", "zh"]).stdout
    for words in ("均值×100", "胜/平/负", "（参考答案）", "依据 总分 上的结果", "1 对中", "成对比较均值 ×100"):
        assert words in chinese, words
    left = set(re.findall(r"[A-Za-z]{2,}(?: [A-Za-z]{2,})+", chinese))
    assert left == set(), left  # two English words side by side: none (the names here are single words)
    english = runner.invoke(app, ["report", str(a), str(b)]).stdout
    assert not CJK_WORDS.intersection(re.findall(r"[\u4e00-\u9fff]+", english))


def test_score_and_judge_check_speak_the_language_asked(tmp_path: Path) -> None:
    from scoring.report import render_judge_check

    summary = {"labels": 3, "unmatched": 1, "judge": "j", "n": 2, "agreement": 0.5, "kappa": 0.25, "void": 1}
    english = render_judge_check(summary)
    assert english.splitlines()[0] == "3 human label(s), 1 matching no record"
    assert "agreement 50.0%, κ 0.250, void 1" in english
    chinese = render_judge_check(summary, lang="zh")
    assert chinese.splitlines()[0] == "3 条人工标注，1 条找不到记录"
    assert "一致率 50.0%，κ 0.250，无效 1" in chinese
    source = ROOT / "fixtures" / "responses" / "gsm8k.jsonl"
    scored = runner.invoke(app, ["score", str(source), "-o", str(tmp_path / "s.jsonl"), "--lang", "zh"])
    assert "各数据集的分数（0–100）" in scored.stdout and "总分：" in scored.stdout
    assert "Scores by dataset" not in scored.stdout


def _strings(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Every string a module's code holds (f-strings' literal parts too), docstrings and raised errors aside."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            skip.add(id(body[0].value))
        if isinstance(node, ast.Raise):
            skip.update(id(inner) for inner in ast.walk(node))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.value, node.lineno


#: Where English stays English: the HTML page and the workbook (programs and spreadsheets read them).
ENGLISH_BY_DESIGN = {"html.py", "workbook.py"}
ENGLISH_FUNCTIONS = {
    "_html",
    "write_xlsx",
    "_panel_sheet",
    "runs_html",
    "runs_sheets",
    "standings_sheets",
    "flip_sheet",
}
#: Values of the data (the JSON says them as they are; a text report says them in words of the catalogues):
#: a pair's verdicts, the pairwise judge's opponents, the name of a model no record names.
SHEET_HEADS = {"PANEL_HEAD", "POWER_HEAD"}  # the workbook's column heads
DATA = {"set too small to tell", "not distinguishable", "reference answer", "response in ", "(unknown model)"}
SENTENCE = re.compile(r"[A-Za-z]{2,}[ ,;:]+[A-Za-z]{2,}")


def _outside_english_functions(tree: ast.Module) -> ast.Module:
    kept = [
        node
        for node in tree.body
        if not (isinstance(node, ast.FunctionDef) and node.name in ENGLISH_FUNCTIONS)
        and not (isinstance(node, ast.Assign) and any(getattr(t, "id", "") in SHEET_HEADS for t in node.targets))
    ]
    return ast.Module(body=kept, type_ignores=[])


def test_no_report_module_writes_an_english_sentence_outside_the_catalogues() -> None:
    """Every word of the text and Markdown reports is a ``report.*`` template (scoring/_report/words.py):
    a module of scoring/_report holding two English words side by side in its code fails here (the HTML
    page and the workbook, English by design, aside)."""
    found = []
    for path in sorted((ROOT / "scoring" / "_report").rglob("*.py")):
        if path.name in ENGLISH_BY_DESIGN:
            continue
        tree = _outside_english_functions(ast.parse(path.read_text(encoding="utf-8")))
        found += [f"{path.name}:{line}: {t!r}" for t, line in _strings(tree) if SENTENCE.search(t) and t not in DATA]
    assert found == []


def test_this_test_catches_an_english_note() -> None:
    tree = ast.parse(
        'def notes() -> list[str]:\n    """Docstrings are fine."""\n    return ["ratings: on the logit scale"]\n'
    )
    assert [text for text, _line in _strings(tree) if SENTENCE.search(text)] == ["ratings: on the logit scale"]


def test_no_pattern_rewrites_rendered_report_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``re.sub`` (nor a compiled pattern's ``sub``, nor ``str.translate``) over report text: the words
    are rendered in their language from the catalogues, not rewritten afterwards (wording.py is gone). The
    count is ``benchmarks/code_figures.py``'s (tests/test_architecture.py holds it at 0); here it is seen
    to find one."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    code_figures = importlib.import_module("code_figures")
    assert not (ROOT / "scoring" / "_report" / "wording.py").exists()
    for path in [*(ROOT / "scoring" / "_report").rglob("*.py"), ROOT / "scoring" / "_pipeline" / "report_file.py"]:
        assert "translator" not in path.read_text(encoding="utf-8"), path.name
    assert code_figures.report_pattern_rewrites() == []
    (tmp_path / "scoring" / "_report").mkdir(parents=True)
    (tmp_path / "scoring" / "_pipeline").mkdir()
    (tmp_path / "scoring" / "_pipeline" / "report_file.py").write_text("", encoding="utf-8")
    (tmp_path / "scoring" / "_report" / "said.py").write_text(
        "import re\n\ndef md_escape(t):\n    return re.sub('x', 'y', t)\n\n"
        "def said(t):\n    return re.sub('Leaderboard', '排行榜', t)\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(code_figures, "ROOT", tmp_path)
    assert code_figures.report_pattern_rewrites() == ["scoring/_report/said.py:7"]


def _asked(tree: ast.Module) -> set[str]:
    """The ``report.*`` keys a module asks for by literal: ``say("…")``, ``say_count("…")`` and the column
    heads of ``heads((…))`` (a tuple, or a name assigned one)."""
    tuples = {
        target.id: node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    asked: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name, first = getattr(node.func, "id", ""), node.args[0]
        if name in ("say", "say_count") and isinstance(first, ast.Constant):
            asked.add(str(first.value))
        if name == "heads":
            names = tuples.get(first.id) if isinstance(first, ast.Name) else first
            assert isinstance(names, ast.Tuple), ast.dump(first)
            asked |= {f"head.{e.value!s}" for e in names.elts if isinstance(e, ast.Constant) and e.value not in SYMBOLS}
    return asked


@pytest.mark.parametrize("lang", [lang for lang in languages() if lang != "en"])
def test_every_report_word_the_renderers_ask_for_is_in_the_catalogue(lang: str) -> None:
    # a key the code asks for that no catalogue holds would raise KeyError at render time: every key the
    # report modules ask for is an English template, and a column head reads in the language
    english = catalogue("en")
    asked = set().union(
        *(
            _asked(ast.parse(p.read_text(encoding="utf-8")))
            for folder in ("_report", "_judge_check")  # judge-check's text speaks the report's words too
            for p in (ROOT / "scoring" / folder).rglob("*.py")
        )
    )
    assert len(asked) > 80 and "head.paired_sd" in asked and "head.unscorable" in asked
    for key in asked:
        assert f"report.{key}" in english or f"report.{key}.one" in english, key
    assert all(english[key] != text for key, text in catalogue(lang).items() if key.startswith("report.head."))
