"""CONTRIBUTING.md, "Add a language": a toy language registered in the table of languages
(``LANGUAGES`` in formatkit/_core/messages, with its row of ``DECLARED_COVERAGE``) for the test's duration is
known to ``--lang``, the locale, ``formatkit fix`` and ``--judge-lang`` at once. It starts with part of the
messages (the commands' own lines, not the issues' messages): what it lacks is said in English, and
``--lang`` says how much is translated. It has no judge prompts of its own, so the judge is asked in English
and the run record says so. Unregistered, every one of them refuses it again."""

from __future__ import annotations

import json
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakeserver import FakeOpenAI, last_user
from typer.testing import CliRunner

from formatkit._core.messages import (
    DECLARED_COVERAGE,
    LANGUAGES,
    Msg,
    catalogue,
    coverage,
    languages,
    locale_lang,
    resolve_lang,
)
from formatkit.cli import app
from scoring._judges.options import JudgeOptions
from scoring._judges.prompts import parse_lang
from scoring._judges.templates import builtin_template
from scoring._pipeline.score_file import judge_record

FIXTURES = Path(__file__).parents[2] / "fixtures"
MERGED = FIXTURES / "invalid/excel/merged_cells.xlsx"
HEADERS = FIXTURES / "fix/headers.xlsx"


def shout(template: str) -> str:
    """The template with its words upper-cased and its fields as they are (``{name}`` stays ``{name}``)."""
    parts = []
    for text, name, spec, conversion in string.Formatter().parse(template):
        parts.append(text.upper().replace("{", "{{").replace("}", "}}"))
        if name is not None:
            parts.append("{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}")
    return "".join(parts)


#: What the toy language translates: the commands' own lines and fix's texts, none of the issues' messages.
TRANSLATED = ("ui.", "fix.")


@pytest.fixture
def xx() -> Iterator[None]:
    """The toy language: the English of its part of the messages, shouted; declared at what it covers."""
    LANGUAGES["xx"] = {key: shout(text) for key, text in catalogue("en").items() if key.startswith(TRANSLATED)}
    DECLARED_COVERAGE["xx"] = 0.2
    try:
        yield
    finally:
        del LANGUAGES["xx"], DECLARED_COVERAGE["xx"]


def test_the_toy_catalogue_is_part_of_english_shouted(xx: None) -> None:
    assert languages()[-1] == "xx" and resolve_lang("XX_YY.UTF-8") == "xx"
    assert Msg("ui.place_row", row=7).render("xx") == "ROW 7"
    assert Msg("blank_line").render("xx") == "Blank line between records; delete it."  # it lacks it: English
    said = coverage("xx")
    assert 0.2 <= said.share < 1 and said.total == len(catalogue("en"))
    assert said.translated == sum(key.startswith(TRANSLATED) for key in catalogue("en"))


def test_validate_lang_speaks_it_and_english_where_it_lacks_a_message(xx: None) -> None:
    english = CliRunner().invoke(app, ["validate", "--lang", "en", str(MERGED)])
    shouted = CliRunner().invoke(app, ["validate", "--lang", "xx", str(MERGED)])
    assert shouted.exit_code == english.exit_code == 1
    assert shouted.stdout != english.stdout
    assert shouted.stdout.upper() == english.stdout.upper()  # every word from a catalogue, the values as they are
    assert "1 FILE(S) INVALID" in shouted.stdout  # its own line
    assert "Unmerge them (Home → Merge & Center → Unmerge Cells)" in shouted.stdout  # the issue: English
    # and --lang says how much of the messages the language has (in its words)
    said = coverage("xx")
    note = f"FORMATKIT: --LANG xx: {said.translated} OF {said.total} MESSAGES TRANSLATED ({said.percent.upper()})"
    assert note in shouted.stderr and "THE OTHERS ARE SAID IN ENGLISH" in shouted.stderr
    assert "translated" not in english.stderr.lower()
    assert "translated" not in CliRunner().invoke(app, ["validate", "--lang", "zh", str(MERGED)]).stderr


def test_the_locale_chooses_it(xx: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LC_ALL", "xx_YY.UTF-8")
    assert locale_lang() == "xx"
    result = CliRunner().invoke(app, ["validate", str(MERGED)])
    assert "1 FILE(S) INVALID" in result.stdout


def test_fix_speaks_it(xx: None, tmp_path: Path) -> None:
    english = CliRunner().invoke(app, ["fix", "--lang", "en", str(HEADERS), "-o", str(tmp_path / "en.xlsx")])
    shouted = CliRunner().invoke(app, ["fix", "--lang", "xx", str(HEADERS), "-o", str(tmp_path / "xx.xlsx")])
    assert shouted.exit_code == english.exit_code
    assert "RENAMED TO" in shouted.stdout and "THE COPY, VALIDATED:" in shouted.stdout
    assert shouted.stdout.upper() == english.stdout.upper().replace("EN.XLSX", "XX.XLSX")


def _free_text(path: Path) -> Path:
    line = {"prompt": "介绍长江。", "answer": "长江是中国最长的河流，全长约六千三百公里，流经多个省份，最后注入东海。"}
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_the_judge_is_asked_in_english_and_the_run_record_says_so(
    xx: None, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    assert parse_lang("xx") == "xx"
    assert builtin_template("absolute", "xx").source == "builtin:absolute_en"
    assert builtin_template("absolute", "zh").source == "builtin:absolute_zh"
    fake_openai.responder = lambda body: (
        '{"analysis": "covers the key facts", "score": 2}' if "⟪" in last_user(body) else "长江是中国最长的河。"
    )
    judge = ("--judge-base-url", fake_openai.base_url, "--judge-model", "j", "--judge-lang", "xx")
    model = ("--base-url", fake_openai.base_url, "--model", "m", "--backoff-base", "0.001")
    out = tmp_path / "eval"
    args = ["eval", str(_free_text(tmp_path / "长江.jsonl")), *model, "-o", str(out), *judge]
    result = CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "⟪CONVERSATION⟫" in last_user(fake_openai.bodies[-1])  # the English prompt, for a Chinese record
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["judge"]["template"] == "built-in absolute_en (no built-in xx prompts: English)"
    assert judge_record(JudgeOptions(judge_base_url="http://j", judge_lang="zh"))["template"] == "built-in absolute_zh"


def test_unregistered_it_is_refused_everywhere(tmp_path: Path) -> None:
    assert "xx" not in languages() and resolve_lang("xx") is None
    result = CliRunner().invoke(app, ["validate", "--lang", "xx", str(MERGED)])
    assert result.exit_code == 2 and "'xx' is not one of en, zh" in result.output
    result = CliRunner().invoke(app, ["fix", "--lang", "xx", str(HEADERS), "-o", str(tmp_path / "out.xlsx")])
    assert result.exit_code == 2
    result = CliRunner().invoke(
        app, ["score", str(_free_text(tmp_path / "set.jsonl")), "-o", "x", "--judge-lang", "xx"]
    )
    assert result.exit_code == 2 and "'xx' is not one of 'auto', 'en', 'zh'." in result.output
    with pytest.raises(ValueError, match="expected auto, en or zh"):
        parse_lang("xx")
    assert locale_lang({"LC_ALL": "xx_YY.UTF-8"}) == "en"
