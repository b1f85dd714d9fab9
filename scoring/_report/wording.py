"""The text report's words in the reader's language (``report --lang``, ``eval --lang``).

The renderers build their tables and notes in English; a report for another language passes each title,
column head, cell and note line through :func:`translator`, as gettext does with English message ids:

- a text that is, whole, the English of a ``ui.report.term.*`` key (``"Leaderboard (0–100, 95 % interval)"``,
  ``"scored records"``, ``"overall"``) becomes that key's text in the language;
- a ``ui.report.phrase.*`` key's English is a pattern with fields (``"{k} of {n} records scored"``): each
  place in a text that it matches is written in the language with the same fields (numbers, names).

What no key covers stays English, never garbled: a new table's words read in English until the catalogue
has them. JSON, HTML and the workbook keep English keys and words (programs read them)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from formatkit._core.messages import DEFAULT_LANG, catalogue

__all__ = ["translator"]

_TERM = "ui.report.term."
_PHRASE = "ui.report.phrase."
_FIELD = re.compile(r"\{(\w+)\}")


def _pattern(english: str) -> re.Pattern[str]:
    """A phrase's English with its ``{fields}`` as named groups (a field is a run of no separator)."""
    parts: list[str] = []
    last = 0
    for match in _FIELD.finditer(english):
        parts.append(re.escape(english[last : match.start()]))
        parts.append(f"(?P<{match.group(1)}>[^\\s,;()（）]+?)")
        last = match.end()
    parts.append(re.escape(english[last:]))
    return re.compile("".join(parts))


@cache
def translator(lang: str | None) -> Callable[[str], str]:
    """The function that says a report text in ``lang`` (identity for English or an unknown language)."""
    if not lang or lang == DEFAULT_LANG:
        return _same
    english, local = catalogue(DEFAULT_LANG), catalogue(lang)
    if local is english:
        return _same
    terms = {english[key]: local[key] for key in english if key.startswith(_TERM) and key in local}
    phrases = [
        (_pattern(english[key]), local[key])
        for key in sorted(english, key=lambda k: -len(english[k]))  # the longest phrase first
        if key.startswith(_PHRASE) and key in local
    ]

    def say(text: str) -> str:
        whole = terms.get(text)
        if whole is not None:
            return whole
        for pattern, template in phrases:
            if pattern.search(text):
                text = pattern.sub(lambda m, t=template: t.format(**m.groupdict()), text)  # type: ignore[misc]
        return text

    return say


def _same(text: str) -> str:
    return text
