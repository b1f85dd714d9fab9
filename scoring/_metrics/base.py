"""What every rule-based metric returns, and the item it reads (question, reference, labels)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from formatkit._core.record import JsonObject, RecordDict, reference_of

__all__ = ["Item", "ItemScore", "item_from_record"]


@dataclass(frozen=True)
class Item:
    """The parts of a canonical record a scorer needs."""

    question: str
    reference: str | None
    meta: JsonObject = field(default_factory=dict)


@dataclass(frozen=True)
class ItemScore:
    """One response's result. ``score`` None means unscorable (``analysis`` says why, for people).

    The fields a program reads: ``extracted`` is the answer read from the reply (None or "" when none was
    found; written as the response's ``answer``); ``settled`` is False when the comparison could not be
    decided (a math time limit, an unparseable answer), with ``unsettled_reason``; ``guessed`` is True when
    the answer was taken from the reply's last sentence with no explicit commitment; ``matched_by`` names the
    rule that decided an exact score (``containment`` when a short reference was found inside the reply).
    ``--judge-fallback`` and the report read these, never ``analysis``.
    """

    score: float | None
    analysis: str
    extracted: str | None = None
    settled: bool = True
    unsettled_reason: str | None = None
    guessed: bool = False
    #: Which rule decided an exact score: "number", "value", "normalised match" or "containment".
    matched_by: str | None = None
    #: The partial credit beside an all-or-nothing score (``keywords``: the share of the keywords found),
    #: written as the response's ``partial_score``; None when the metric has none.
    partial: float | None = None


def item_from_record(record: RecordDict) -> Item:
    """Question (last user turn), reference and meta of a canonical record."""
    messages = record.get("messages") or []
    question = ""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            question = str(message.get("content") or "")
            break
    reference = reference_of(record)
    meta: Any = record.get("meta")
    return Item(question, None if reference is None else str(reference), meta if isinstance(meta, dict) else {})
