"""The message catalogues (formatkit/_core/messages): English complete, every other language at least its
declared coverage (a language can start with part of the messages: what it lacks is said in English), the
same fields in every language, and every issue of every fixture rendered from a template, in Chinese too."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any, get_args

import pytest
from test_excel_rules import CASES as EXCEL_CASES
from test_jsonl_rules import CASES as JSONL_CASES
from typer.testing import CliRunner

from formatkit import validate_files
from formatkit._core.codes import CODES
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
from formatkit._fixing.changes import ChangeCode
from formatkit.cli import app

FIXTURES = Path(__file__).parents[2] / "fixtures"
RUNS = sorted({(fixture, mode) for fixture, mode, _code, _place in [*EXCEL_CASES, *JSONL_CASES]})
CJK = re.compile("[\u4e00-\u9fff]")
OTHER_LANGUAGES = [lang for lang in languages() if lang != "en"]
#: Pieces that read the same in Chinese (JSON's own words, punctuation).
SAME_IN_EVERY_LANGUAGE = {"frag.json.null", "frag.list_sep"}


def _fields(template: str) -> set[tuple[str, str | None]]:
    """The fields a template names, with their conversion (``!r``)."""
    return {
        (name.split(".")[0].split("[")[0], conversion)
        for _text, name, _spec, conversion in string.Formatter().parse(template)
        if name is not None
    }


def test_there_is_a_chinese_catalogue() -> None:
    assert "zh" in languages()


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_no_language_has_a_key_english_lacks(lang: str) -> None:
    assert sorted(set(catalogue(lang)) - set(catalogue("en"))) == [], f"{lang} has templates English does not"


def test_every_language_declares_its_coverage_and_holds_it() -> None:
    """A language may start with part of the messages; it declares how much (DECLARED_COVERAGE), and the
    figure is held here: Chinese is complete."""
    assert sorted(DECLARED_COVERAGE) == sorted(languages())
    assert DECLARED_COVERAGE["zh"] == 1.0
    for lang in languages():
        said = coverage(lang)
        assert said.total == len(catalogue("en")) > 500
        assert said.share >= DECLARED_COVERAGE[lang], (
            f"{lang}: {said.percent} translated, declared {DECLARED_COVERAGE[lang]:.0%}"
        )
    assert coverage("zh").percent == "100 %"


def test_a_partial_language_falls_back_to_english_key_by_key() -> None:
    """Only three keys: a template it has is its own, with an English ``frag.`` piece inside (a piece it
    lacks); what it lacks whole is English; its coverage counts what it has."""
    LANGUAGES["pp"] = {
        "blank_line": "BLANK LINE.",
        "invalid_type": "{field} MUST BE {expected} ({type}{hint})",
        "frag.list_sep": " + ",
    }
    try:
        assert Msg("blank_line").render("pp") == "BLANK LINE."
        assert Msg("ui.wrote", output="o.jsonl").render("pp") == Msg("ui.wrote", output="o.jsonl").render("en")
        # its own template, the pieces it lacks in English, joined by its own separator
        pieces = [Msg("frag.expect.text"), Msg("frag.expect.list")]
        mixed = Msg("invalid_type", field="f", expected=pieces, type="number", hint="").render("pp")
        assert mixed == "f MUST BE text + a list (number)"
        # an English template (a key it lacks) takes its pieces in the language where it has them
        assert Msg("invalid_type.canonical", field="f", expected=pieces, value=1).render("pp") == (
            '"f" must be text + a list, not 1.'
        )
        said = coverage("pp")
        assert (said.translated, said.total) == (3, len(catalogue("en")))
        assert said.percent == f"{int(3 / said.total * 1000) / 10:g} %"
    finally:
        del LANGUAGES["pp"]


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_the_templates_of_one_key_name_the_same_fields(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    different = {key: (_fields(english[key]), _fields(other[key])) for key in english if key in other}
    assert {k: v for k, v in different.items() if v[0] != v[1]} == {}


#: The languages declared complete (English, Chinese): each has every code's message, summary and fix text.
COMPLETE = [lang for lang in languages() if DECLARED_COVERAGE[lang] == 1.0]


@pytest.mark.parametrize("lang", COMPLETE)
def test_every_code_has_a_message_and_a_summary(lang: str) -> None:
    keys = catalogue(lang)
    for code in CODES:
        assert f"summary.{code}" in keys, code
        assert any(key == code or key.startswith(f"{code}.") for key in keys), code


@pytest.mark.parametrize("lang", COMPLETE)
def test_every_change_fix_makes_has_a_message(lang: str) -> None:
    """fix's texts are catalogue entries too (``fix.<change code>``): checked with every other key above."""
    keys = catalogue(lang)
    assert [code for code in get_args(ChangeCode) if f"fix.{code}" not in keys] == []
    assert "fix.ui.head" in keys and "fix.word.list_sep" in keys


@pytest.mark.parametrize("lang", languages())
def test_every_key_is_a_code_a_variant_or_a_piece(lang: str) -> None:
    for key in catalogue(lang):
        head = key.split(".")[0]
        assert head in CODES or head in ("summary", "frag", "ui", "fix", "report"), key


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_every_template_is_translated(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    untranslated = [
        key
        for key, text in other.items()
        if key not in SAME_IN_EVERY_LANGUAGE and key in english and text == english[key] and text
    ]
    assert untranslated == []


@pytest.mark.parametrize("lang", languages())
def test_every_template_renders_with_its_fields(lang: str) -> None:
    """A template fills without error from values of its fields (a typo such as ``{row`` fails here)."""
    for key, template in catalogue(lang).items():
        values: dict[str, Any] = {name: 1 for name, _conversion in _fields(template)}
        Msg(key, **values).render(lang)


def test_a_language_lacking_a_key_falls_back_to_english() -> None:
    assert Msg("blank_line").render("xx") == "Blank line between records; delete it."


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_TW.UTF-8"}, "zh"),
        ({"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
    ],
)
def test_the_locale_chooses_the_language(environ: dict[str, str], lang: str) -> None:
    assert locale_lang(environ) == lang


def test_language_names_as_users_write_them() -> None:
    assert [resolve_lang(v) for v in ("zh", "ZH", "zh-CN", "zh_CN.UTF-8", "en", "fr", "")] == [
        "zh",
        "zh",
        "zh",
        "zh",
        "en",
        None,
        None,
    ]


@pytest.mark.parametrize(("fixture", "mode"), RUNS, ids=[f"{f}[{m}]" for f, m in RUNS])
def test_every_issue_of_every_fixture_is_a_template_and_reads_in_chinese(fixture: str, mode: str) -> None:
    report = validate_files([FIXTURES / fixture], mode=mode)  # type: ignore[arg-type]
    chinese = report.translated("zh")
    assert chinese.flatten() == report.flatten()  # codes and places never change with the language
    for english, translated in zip(report.all_issues(), chinese.all_issues(), strict=True):
        assert english.template is not None, f"{english.code}: built from plain text, not a template"
        assert english.template.render() == english.message
        assert CJK.search(translated.message), translated.message


def test_validate_lang_zh_prints_every_message_in_chinese() -> None:
    """The done-when of issue 21: every issue line, summary and verdict of `validate --lang zh` is Chinese."""
    paths = [str(FIXTURES / f) for f, m in RUNS if m == "infer-eval"][:10]
    result = CliRunner().invoke(app, ["validate", "--lang", "zh", "--all", *paths])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) > 20
    for line in lines:
        assert CJK.search(line), line
    assert "个文件不通过" in lines[-1]


def test_the_locale_makes_chinese_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    result = CliRunner().invoke(app, ["validate", str(FIXTURES / "invalid/excel/merged_cells.xlsx")])
    assert "取消单元格合并" in result.output
    assert "WPS" in result.output
    english = CliRunner().invoke(app, ["validate", "--lang", "en", str(FIXTURES / "invalid/excel/merged_cells.xlsx")])
    assert "Unmerge Cells" in english.output


def test_json_keys_and_codes_stay_english_with_lang_zh() -> None:
    path = str(FIXTURES / "invalid/jsonl/invalid_role.jsonl")
    english = json.loads(CliRunner().invoke(app, ["validate", "--json", path]).stdout)
    chinese = json.loads(CliRunner().invoke(app, ["validate", "--json", "--lang", "zh", path]).stdout)
    for a, b in zip(english["files"][0]["issues"], chinese["files"][0]["issues"], strict=True):
        assert a.keys() == b.keys()
        assert {k: v for k, v in a.items() if k != "message"} == {k: v for k, v in b.items() if k != "message"}
        assert CJK.search(b["message"]) and not CJK.search(a["message"])


def test_an_unknown_language_is_bad_usage() -> None:
    result = CliRunner().invoke(app, ["validate", "--lang", "fr", str(FIXTURES / "invalid/jsonl/blank_line.jsonl")])
    assert result.exit_code == 2
    assert "en, zh" in result.output


@pytest.mark.parametrize("command", ["convert", "export", "run", "score", "eval"])
def test_every_command_that_prints_issues_takes_lang(command: str) -> None:
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert "--lang" in result.output


def test_ime_punctuation_is_named_in_chinese() -> None:
    from formatkit._core.issues import IssueSink
    from formatkit._rules.parameters import check_parameters

    sink = IssueSink("set.xlsx")
    check_parameters("｛“temperature”：0.7｝", {"sheet": "Sheet1", "row": 2}, sink)
    [issue] = sink.issues
    assert '(write ")' in issue.message
    assert '（应为 "）' in issue.translated("zh").message


def test_a_suggestion_is_worked_out_only_for_the_issues_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A "did you mean" costs ~40 µs (difflib): 100,000 lines with a misspelt key paid 4 s for messages
    nobody sees past the first ones kept. Now only a kept issue's message is rendered."""
    import formatkit._core.suggest as suggest
    from formatkit._core.issues import IssueSink
    from formatkit._rules.parameters import check_parameters

    calls: list[str] = []
    real = suggest.suggestion

    def counted(word: str, options: Any) -> str | None:
        calls.append(word)
        return real(word, options)

    monkeypatch.setattr(suggest, "suggestion", counted)
    sink = IssueSink("set.jsonl", keep=2)
    for line in range(1, 11):
        check_parameters({"temprature": 0.7}, {"line": line, "field": "parameters"}, sink)
    assert sink.issues.counts["unknown_parameter"] == 10
    assert len(sink.issues) == 2 and len(calls) == 2
    assert sink.issues[0].message.endswith('Did you mean "temperature"?')
    assert sink.issues[0].translated("zh").message.endswith("是不是“temperature”？")
