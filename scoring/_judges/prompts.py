"""Which prompt each record gets: the user's template, or the built-in one in the record's language."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from formatkit._core.messages import languages
from formatkit._core.record import RecordDict
from scoring._judges.inputs import conversation_words
from scoring._judges.templates import (
    Kind,
    Lang,
    Stage,
    Template,
    builtin_template,
    detect_lang,
    load_template,
    stage_named,
)

__all__ = ["Prompts", "parse_lang"]


#: Names ``--judge-lang`` takes besides the languages' codes.
_ALIASES = {"english": "en", "cn": "zh", "zh-cn": "zh", "zh-hans": "zh", "chinese": "zh"}


def parse_lang(value: str | None) -> Lang | None:
    """``--judge-lang``: a language of formatkit's table of languages (:func:`formatkit._core.messages.languages`:
    ``en``, ``zh``, …; ``cn``, ``zh-cn`` accepted), or None/``auto`` (detect). A language without its own
    built-in prompts is judged with the English ones (:func:`~scoring._judges.templates.builtin_name`)."""
    if value is None:
        return None
    text = value.strip().lower().replace("_", "-")
    if text in ("", "auto"):
        return None
    known = languages()
    lang = _ALIASES.get(text) or (text if text in known else None)
    if lang is None:
        *most, last = ("auto", *known)
        raise ValueError(f"judge language {value!r}: expected {', '.join(most)} or {last}")
    return lang


@dataclass
class Prompts:
    """Templates by kind and language. ``lang`` None: each record's language is detected from its whole
    conversation (every user and assistant turn).

    Built-in templates are loaded (and their placeholders checked) up front, so a broken package fails
    before any request rather than in the middle of a run.
    """

    lang: Lang | None = None
    custom: dict[Kind, Template] = field(default_factory=dict)
    _builtin: dict[tuple[Kind, Lang], Template] = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def load(cls, kinds: tuple[Kind | Stage, ...], *, lang: Lang | None, template: str | Path | None) -> Prompts:
        """Prompts for ``kinds`` (a judge kind's stages, or their names); ``template`` (the user's file)
        replaces the last kind, the one that gives the verdict. Raises
        :class:`~scoring._judges.templates.TemplateError` before any request."""
        stages = [stage_named(kind) for kind in kinds]
        custom: dict[Kind, Template] = {}
        if template is not None:
            custom[stages[-1].name] = load_template(template, stages[-1])
        prompts = cls(lang=lang, custom=custom)
        for stage in stages:
            for code in ("en", "zh") if lang is None else (lang,):
                prompts._builtin[(stage.name, code)] = builtin_template(stage, code)
        return prompts

    def lang_of(self, record: RecordDict) -> Lang:
        return self.lang if self.lang is not None else detect_lang(conversation_words(record))

    def get(self, kind: Kind, record: RecordDict) -> tuple[Template, Lang]:
        lang = self.lang_of(record)
        template = self.custom.get(kind)
        if template is None:
            template = self._builtin.get((kind, lang)) or builtin_template(kind, lang)
        return template, lang
