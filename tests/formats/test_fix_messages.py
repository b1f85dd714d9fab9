"""fix's change messages are templates of the message catalogues (``fix.<code>``, ``fix.ui.<line>``,
``fix.word.<word>`` in formatkit/_core/messages), filled from each change's data: every change code has a
template in every language, and the templates of one key name the same fields (a third language is one
more catalogue; tests/formats/test_messages.py checks every key of every catalogue the same way)."""

from __future__ import annotations

import string
from typing import get_args

import pytest

from formatkit._core.messages import catalogue, languages
from formatkit._fixing.changes import ChangeCode, render

LANGS = languages()


def fields_of(template: str) -> set[str]:
    """The names a template fills in."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _section(lang: str, prefix: str) -> dict[str, str]:
    return {key.removeprefix(prefix): text for key, text in catalogue(lang).items() if key.startswith(prefix)}


def _templates(lang: str) -> dict[str, str]:
    """The change templates: ``fix.<code>`` (not the lines or the words)."""
    return {k: v for k, v in _section(lang, "fix.").items() if not k.startswith(("ui.", "word."))}


@pytest.mark.parametrize("lang", LANGS)
def test_every_change_code_has_a_template(lang: str) -> None:
    assert sorted(_templates(lang)) == sorted(get_args(ChangeCode))


@pytest.mark.parametrize("code", get_args(ChangeCode))
def test_the_languages_fill_the_same_fields(code: ChangeCode) -> None:
    for lang in LANGS:
        assert fields_of(_templates(lang)[code]) == fields_of(_templates("en")[code]), lang


def test_the_word_tables_hold_the_same_words() -> None:
    assert sorted(_section("zh", "fix.word.")) == sorted(_section("en", "fix.word."))


def test_a_change_is_rendered_from_its_data_in_each_language() -> None:
    data = {"before": "问题", "after": "query", "how": "chinese"}
    assert render("header_renamed", data, "en") == 'header "问题" renamed to "query" (a Chinese name)'
    assert render("header_renamed", data, "zh") == '表头"问题"已改为"query"（中文名）'
    assert render("parts_lost", {"parts": ["media", "charts"]}, "zh").startswith("副本无法保留原文件中的 图片、图表")


def test_the_command_lines_are_complete_in_every_language() -> None:
    for name, template in _section("en", "fix.ui.").items():
        assert fields_of(_section("zh", "fix.ui.")[name]) == fields_of(template), name
    assert sorted(_section("zh", "fix.ui.")) == sorted(_section("en", "fix.ui."))
