"""What every command shares: option types, exit codes, printing issues, loading inputs.

The parts that need no typer live in :mod:`formatkit.cli._base` (the fast path of ``convert`` and
``validate`` runs on them alone); this module adds the typer option built on them.
"""

from __future__ import annotations

from typing import Any

import typer

from formatkit.cli._base import (
    EXIT_ERRORS,
    EXIT_OK,
    EXIT_USAGE,
    ModeOption,
    ProfileOption,
    echo,
    fail_usage,
    output_or_fail,
    paths_or_fail,
    terminate_cleanly,
)
from formatkit.cli._printing import print_report
from formatkit.messages import coverage, languages, resolve_lang, ui

__all__ = [
    "EXIT_ERRORS",
    "EXIT_OK",
    "EXIT_USAGE",
    "ModeOption",
    "ProfileOption",
    "check_judge_lang",
    "echo",
    "fail_usage",
    "judge_lang_metavar",
    "lang_option",
    "output_or_fail",
    "paths_or_fail",
    "print_report",
    "terminate_cleanly",
]


def lang_option() -> Any:
    """``--lang en|zh``: the language of the messages about a file (codes and JSON keys never change); the
    languages are those of the table of languages (``formatkit._core.messages.LANGUAGES``)."""
    return typer.Option(
        None,
        "--lang",
        metavar="|".join(languages()),
        callback=_check_lang,
        help="Language of the messages (default: the locale, LC_ALL / LC_MESSAGES / LANG).",
    )


def _check_lang(value: str | None) -> str | None:
    if value is None:
        return None
    lang = resolve_lang(value)
    if lang is None:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(languages())}")
    said = coverage(lang)
    if said.translated < said.total:  # a language that starts with part of the messages says so
        typer.echo(
            ui("lang_partial", lang, lang=lang, translated=said.translated, total=said.total, percent=said.percent),
            err=True,
        )
    return lang


def judge_lang_metavar() -> str:
    """``--judge-lang``'s choices as its help shows them: ``<auto|en|zh>``."""
    return "<" + "|".join(("auto", *languages())) + ">"


def check_judge_lang(value: str) -> str:
    """``--judge-lang``: ``auto`` or a language of the table of languages, as its help lists them."""
    allowed = ("auto", *languages())
    if value not in allowed:
        raise typer.BadParameter(f"Value error, {value!r} is not one of {', '.join(map(repr, allowed))}.")
    return value
