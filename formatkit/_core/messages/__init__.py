"""Every message formatkit prints about a file is a template, filled from the issue's data.

One catalogue per language: a module of this package (``en.py``, ``zh.py``, …) holding ``MESSAGES``, a dict
from a key to a :meth:`str.format` template. :data:`LANGUAGES` is the table of languages, the one list
``--lang``, the locale, ``formatkit fix`` and the judge's ``--judge-lang`` read: a third language is its
catalogue, one row there and its declared coverage (CONTRIBUTING.md, "Add a language").

English holds every key; another language may hold part of them: what it lacks is said in English, key by
key (a ``frag.`` piece inside a translated template too). :func:`coverage` says how much of English a
language translates; :data:`DECLARED_COVERAGE` is the least each language promises, held by the tests.

Keys:

- ``<code>`` or ``<code>.<variant>`` — the message of an issue of that code (one code may say different
  things in different situations, e.g. ``number_format`` and ``number_format.unrendered``);
- ``summary.<code>`` — the one-line summary of a code, printed above a group of its issues;
- ``frag.<name>`` — a piece that fills a field of another template (a type name, a hint);
- ``ui.<name>`` — the words of the printed report around the issues (the verdict line, …);
- ``fix.<name>`` — a change ``formatkit fix`` made (its list of changes is printed like the issues);
- ``report.<name>`` — the words of the text and Markdown reports (``scoring/_report/words.py``).

A rule builds a :class:`Msg` (key and fields) where it finds a problem; the English text is rendered once,
when the issue is kept (never per row), and the Msg stays on the issue, so the same issue is rendered
in another language at print time (:meth:`formatkit._core.issues.Issue.translated`). A field's value is
printed as it is, except a Msg, which is rendered in the same language (a translated piece), a list
of Msgs, rendered and joined with the language's ``frag.list_sep``, and a :class:`Later`, computed only
when the message is rendered (a "did you mean" costs ~40 µs: an issue counted past the number kept per
code never pays it).

tests/formats/test_messages.py keeps the catalogues sound: English has every code's message and summary, no
language has a key English lacks, the templates of one key name the same fields in every language and
render, and each language translates at least its declared share.
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = [
    "DECLARED_COVERAGE",
    "DEFAULT_LANG",
    "LANGUAGES",
    "Coverage",
    "Later",
    "Msg",
    "catalogue",
    "coverage",
    "languages",
    "locale_lang",
    "resolve_lang",
    "ui",
]

DEFAULT_LANG = "en"

#: Every language, English first: its code (as ``--lang``, ``--judge-lang`` and the locale name it) → its
#: catalogue, the module holding ``MESSAGES`` (imported on first use) or the templates themselves. A key
#: a catalogue lacks is said in English.
LANGUAGES: dict[str, str | Mapping[str, str]] = {
    "en": "formatkit._core.messages.en",
    "zh": "formatkit._core.messages.zh",
}

#: Each language's declared coverage: the least share of English's keys its catalogue holds (a language can
#: start with a few messages). tests/formats/test_messages.py holds every language of :data:`LANGUAGES` to
#: its row here; raise a row as its catalogue grows.
DECLARED_COVERAGE: dict[str, float] = {
    "en": 1.0,
    "zh": 1.0,
}


class Msg:
    """A message not yet rendered: the key of its template and the values of its fields."""

    __slots__ = ("key", "params")

    def __init__(self, key: str, /, **params: Any) -> None:
        self.key = key
        self.params = params

    def render(self, lang: str = DEFAULT_LANG) -> str:
        """The text in ``lang`` (English when the language lacks this key: never an exception)."""
        template = catalogue(lang).get(self.key)
        if template is None:
            template = catalogue(DEFAULT_LANG)[self.key]
        params = self.params
        if params:
            for value in params.values():
                if (
                    type(value) is Msg
                    or type(value) is Later
                    or (type(value) is list and value and type(value[0]) is Msg)
                ):
                    params = {k: _fill(v, lang) for k, v in params.items()}
                    break
        return template.format_map(params)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        fields = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"Msg({self.key!r}{fields})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Msg) and other.key == self.key and other.params == self.params

    def __hash__(self) -> int:
        return hash(self.key)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.key, self.params))


class Later:
    """A field's value computed when the message is first rendered, then kept: ``Later(fn, *args)``."""

    __slots__ = ("args", "fn", "result")

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self.fn = fn
        self.args = args
        self.result: Any = _UNSET

    def value(self) -> Any:
        if self.result is _UNSET:
            self.result = self.fn(*self.args)
        return self.result

    def __reduce__(self) -> tuple[Any, ...]:
        return (_constant, (self.value(),))


_UNSET = object()


def _constant(value: Any) -> Any:
    return value


def _fill(value: Any, lang: str) -> Any:
    if type(value) is Later:
        value = value.value()
    if type(value) is Msg:
        return value.render(lang)
    if type(value) is list and value and type(value[0]) is Msg:
        return Msg("frag.list_sep").render(lang).join(str(_fill(item, lang)) for item in value)
    return value


def _rebuild(key: str, params: dict[str, Any]) -> Msg:
    return Msg(key, **params)


@dataclass(frozen=True)
class Coverage:
    """How much of English a language's catalogue translates: ``translated`` of English's ``total`` keys."""

    lang: str
    translated: int
    total: int

    @property
    def share(self) -> float:
        return self.translated / self.total if self.total else 1.0

    @property
    def percent(self) -> str:
        """The share as people read it, rounded down (``99 %`` until the last key is translated)."""
        return f"{math.floor(self.share * 1000) / 10:g} %"


def coverage(lang: str) -> Coverage:
    """How many of English's keys the catalogue of ``lang`` holds (a registered language; else KeyError)."""
    entry = LANGUAGES[lang]
    own = _imported(entry) if isinstance(entry, str) else entry
    english = catalogue(DEFAULT_LANG)
    return Coverage(lang, sum(1 for key in english if key in own), len(english))


def languages() -> tuple[str, ...]:
    """The languages with a catalogue (:data:`LANGUAGES`), English first."""
    return tuple(LANGUAGES)


def catalogue(lang: str) -> Mapping[str, str]:
    """The templates of ``lang`` by key (an unknown language: English)."""
    entry = LANGUAGES.get(lang)
    if entry is None:
        entry = LANGUAGES[DEFAULT_LANG]
    return _imported(entry) if isinstance(entry, str) else entry


@cache
def _imported(module: str) -> Mapping[str, str]:
    messages: Mapping[str, str] = importlib.import_module(module).MESSAGES
    return messages


def ui(key: str, lang: str = DEFAULT_LANG, /, **params: Any) -> str:
    """A ``ui.<key>`` text of the printed report, filled."""
    return Msg(f"ui.{key}", **params).render(lang)


def locale_lang(environ: Mapping[str, str] | None = None) -> str:
    """The language the locale asks for: the first of LC_ALL, LC_MESSAGES, LANG that is set (POSIX
    precedence), when a catalogue exists for it (``zh_CN.UTF-8`` → ``zh``); else English."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return resolve_lang(value) or DEFAULT_LANG
    return DEFAULT_LANG


def resolve_lang(value: str | None) -> str | None:
    """A language name as users write it (``zh``, ``zh_CN.UTF-8``, ``zh-Hans``, ``EN``) → a catalogue's
    name, or None when there is none for it."""
    if not value:
        return None
    base = value.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return base if base in languages() else None
