"""A record as a reader saw it, before the rules every shape shares turn it into a canonical record.

Readers (Excel rows, jsonl lines) do the shape-specific checks and hand over a :class:`Draft`:
the conversation history as canonical messages, and the target turn's raw reference, response and
parameters, each with the place it came from. :func:`formatkit._building.record.build_record` then applies
the mode and parameter rules in one place for all four shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from formatkit._core.record import MessageDict, MetaDict, ReadSource, RecordDict

__all__ = ["Draft", "Place"]


class Place(TypedDict, total=False):
    """Keyword arguments locating a value for an Issue: sheet/row/column or line/field (the Issue's fields)."""

    file: str | None
    sheet: str | None
    row: int | None
    column: str | None
    line: int | None
    field: str | None


@dataclass(slots=True)
class Draft:
    """One record as read. ``history`` holds canonical messages before the target turn; an assistant
    message there without ``content`` is a turn the runner must generate first."""

    session_id: int | str | None
    history: list[MessageDict]
    reference: str | None
    reference_place: Place
    response: str | None
    response_place: Place
    parameters: Any
    parameters_place: Place
    source: ReadSource
    meta: MetaDict | None = None
    record_place: Place = field(default_factory=Place)
    #: A canonical-record input passes through whole: only the mode rules and meta apply to it.
    canonical: RecordDict | None = None
    #: Known output columns/keys (score, analysis, usage, model, …) with their places:
    #: formatkit._rules.results carries them into the response.
    results: dict[str, tuple[Any, Place]] | None = None
