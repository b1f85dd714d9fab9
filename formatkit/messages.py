"""The message catalogues: every text formatkit prints, in every language it speaks (English, Chinese).

A message is a key and its fields; it is rendered in a language when printed::

    from formatkit.messages import Msg, ui, locale_lang
    print(ui("wrote_records", locale_lang(), records=3, output="out.jsonl"))

``ui(key, lang, **fields)`` renders ``ui.<key>``; :class:`Msg` any key; :func:`locale_lang` is the language
the locale asks for (LC_ALL, LC_MESSAGES, LANG), :func:`resolve_lang` a language as users write it
(``zh_CN.UTF-8``, ``zh-Hans``) and :func:`languages` those with a catalogue; :func:`catalogue` is a
language's templates by key. A language that lacks a key falls back to English; :func:`coverage` says how
many of English's keys a language translates. The catalogues themselves
are ``formatkit/_core/messages/<lang>.py``. :func:`escape_controls` is what every printed text that came from a
file or a server goes through: control characters, bidi overrides and line breaks cannot reach the terminal.
"""

from formatkit._core.issue_parts import escape_controls
from formatkit._core.messages import (
    DEFAULT_LANG,
    Msg,
    catalogue,
    coverage,
    languages,
    locale_lang,
    resolve_lang,
    ui,
)

__all__ = [
    "DEFAULT_LANG",
    "Msg",
    "catalogue",
    "coverage",
    "escape_controls",
    "languages",
    "locale_lang",
    "resolve_lang",
    "ui",
]
