"""The words of the text and Markdown reports: every title, column head, cell word and note is a
``report.*`` template of the message catalogues (:mod:`formatkit._core.messages`), keyed by what it means
and filled with named fields, rendered in the report's language (a key a language lacks: English).

The renderers never write English of their own and never rewrite what they rendered: a table is built in
its language. JSON, HTML and the workbook say English (``lang`` left at its default)."""

from __future__ import annotations

from typing import Any

from formatkit._core.messages import DEFAULT_LANG, Msg, catalogue

__all__ = ["DEFAULT_LANG", "SYMBOLS", "heads", "metric_word", "say", "say_count"]

#: Column heads that are symbols, the same in every language (not catalogue words).
SYMBOLS = frozenset({"pass@k", "a", "b"})


def say(key: str, lang: str | None = DEFAULT_LANG, /, **fields: Any) -> str:
    """The ``report.<key>`` template in ``lang``, filled."""
    return Msg(f"report.{key}", **fields).render(lang or DEFAULT_LANG)


def heads(names: tuple[str, ...], lang: str | None = DEFAULT_LANG) -> list[str]:
    """Column heads by meaning (``report.head.<name>``) in ``lang``; a symbol (``pass@k``, ``a``) as it is."""
    return [name if name in SYMBOLS else say(f"head.{name}", lang) for name in names]


def metric_word(metric: str | None, lang: str | None = DEFAULT_LANG) -> str:
    """A metric's name in a table: its word when the catalogues have one (``report.metric.<name>``: a
    metric named by a word, such as ``pairwise``), else the name as it is (``?`` when none)."""
    if not metric:
        return "?"
    key = f"report.metric.{metric}"
    return Msg(key).render(lang or DEFAULT_LANG) if key in catalogue(DEFAULT_LANG) else metric


def say_count(key: str, n: int, lang: str | None = DEFAULT_LANG, /, **fields: Any) -> str:
    """``report.<key>.one`` when ``n`` is 1, else ``report.<key>`` (``n`` fills the field ``n``)."""
    return say(f"{key}.one" if n == 1 else key, lang, n=n, **fields)
