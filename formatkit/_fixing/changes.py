"""A change ``formatkit fix`` made: its code, its data (what the message templates are filled from) and its
place, located like an Issue (sheet/row/column or line/field). What fix says is in the message catalogues
(:mod:`formatkit._core.messages`, the ``fix.`` keys), in every language ``--lang`` knows."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from formatkit._core.issues import Issue
from formatkit._core.messages import DEFAULT_LANG, Msg, catalogue

__all__ = ["Change", "ChangeCode", "Repaired", "render", "shown"]

ChangeCode = Literal[
    "sheet_moved",
    "title_rows_moved",
    "header_renamed",
    "key_renamed",
    "cells_unmerged",
    "parameters_rewritten",
    "id_trimmed",
    "formula_to_value",
    "bom_removed",
    "reencoded",
    "xls_converted",
    "parts_lost",
    "title_rows_removed",
    "csv_kept",
]


class Change(BaseModel):
    """One repair, at an exact place; ``message(lang)`` says it in words."""

    model_config = ConfigDict(frozen=True)

    code: ChangeCode
    data: dict[str, object] = Field(default_factory=dict, description="The values the message is filled from.")
    file: str | None = None
    sheet: str | None = None
    row: int | None = None
    column: str | None = None
    line: int | None = None
    field: str | None = None

    def message(self, lang: str = DEFAULT_LANG) -> str:
        return render(self.code, self.data, lang)

    def number(self, key: str) -> int:
        """A count in :attr:`data` (how many rows a repair removed, ...)."""
        value = self.data[key]
        assert isinstance(value, int), (key, value)
        return value

    @property
    def place(self) -> str:
        """The place as a person reads it, written exactly as an Issue's (``Sheet1!C1 (问题)``, ``line 3``)."""
        fields = {name: getattr(self, name) for name in ("file", "sheet", "row", "column", "line", "field")}
        return Issue.model_construct(severity="warning", code=self.code, message="", **fields).place


class Repaired(NamedTuple):
    """What a format's repair (the ``repair`` of :data:`formatkit._core.formats.INPUT_FORMATS`) gives: the
    bytes of the repaired copy, the changes made, and notes on what the copy could not keep."""

    data: bytes
    changes: list[Change]
    notes: list[Change]


#: Data fields that hold words (``fix.word.<word>`` in the catalogues: a word or a list of them), translated
#: when filled in.
_WORD_FIELDS = ("how", "parts")


def render(code: ChangeCode, data: Mapping[str, object], lang: str = DEFAULT_LANG) -> str:
    """The sentence for a change: the catalogue's ``fix.<code>`` template in ``lang`` (see
    :mod:`formatkit._core.messages`), filled from the change's data, its words translated."""
    filled = dict(data)
    for key in _WORD_FIELDS:
        if key in filled:
            value = filled[key]
            items = value if isinstance(value, list) else [value]
            filled[key] = Msg("fix.word.list_sep").render(lang).join(_word(str(item), lang) for item in items)
    return Msg(f"fix.{code}", **filled).render(lang)


def _word(word: str, lang: str) -> str:
    key = f"fix.word.{word}"
    return Msg(key).render(lang) if key in catalogue(DEFAULT_LANG) else word


def shown(value: Any, limit: int = 80) -> str:
    """A cell or field value as the messages show it: text in quotes (cut when long), numbers as they are."""
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= limit else text[: limit - 2] + '…"'
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value, ensure_ascii=False, default=str)
