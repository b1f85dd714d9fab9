"""fix's change messages are templates filled from each change's data: every change code has a template in
every language, and the templates of one code name the same fields (a third language is one more table)."""

from __future__ import annotations

from typing import get_args

import pytest

from formatkit._fixing.messages import LANGS, LINES, TEMPLATES, WORDS, ChangeCode, fields_of, render


@pytest.mark.parametrize("lang", LANGS)
def test_every_change_code_has_a_template(lang: str) -> None:
    assert sorted(TEMPLATES[lang]) == sorted(get_args(ChangeCode))  # type: ignore[index]


@pytest.mark.parametrize("code", get_args(ChangeCode))
def test_the_languages_fill_the_same_fields(code: ChangeCode) -> None:
    assert fields_of(TEMPLATES["zh"][code]) == fields_of(TEMPLATES["en"][code])


def test_the_word_tables_hold_the_same_words() -> None:
    assert sorted(WORDS["zh"]) == sorted(WORDS["en"])


def test_a_change_is_rendered_from_its_data_in_each_language() -> None:
    data = {"before": "问题", "after": "query", "how": "chinese"}
    assert render("header_renamed", data, "en") == 'header "问题" renamed to "query" (a Chinese name)'
    assert render("header_renamed", data, "zh") == '表头"问题"已改为"query"（中文名）'
    assert render("parts_lost", {"parts": ["media", "charts"]}, "zh").startswith("副本无法保留原文件中的 图片、图表")


def test_the_command_lines_are_complete_in_every_language() -> None:
    for name, template in LINES["en"].items():
        assert fields_of(LINES["zh"][name]) == fields_of(template), name
    assert sorted(LINES["zh"]) == sorted(LINES["en"])
