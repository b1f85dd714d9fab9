"""OpenCompass's custom dataset, jsonl (docs: "Custom Dataset Tutorial"): a multiple-choice line is
``question``, the options ``A``, ``B``, ... (from A on) and ``answer`` the right letter; a question-answer
line is ``question`` and ``answer``. Other keys are read by OpenCompass but not used. It holds no
session_id, system prompt, conversation, parameters, model replies or labels other than the options.
"""

from __future__ import annotations

from formatkit._core.issues import IssueSink
from formatkit._core.record import JsonObject, RecordDict
from formatkit._rules.shapes.choices import read_choices, write_choices
from formatkit._rules.shapes.common import (
    LETTERS,
    Written,
    common_losses,
    extra_labels,
    parts_of,
    read_text,
    require,
    single_question,
)

__all__ = ["EXAMPLE", "read_line", "write_record"]

EXAMPLE = '{"question": ..., "A": ..., "B": ..., "answer": "A"} or {"question": ..., "answer": ...}'

_KNOWN = ("question", "answer", *LETTERS)


def read_line(value: JsonObject, line: int, sink: IssueSink) -> JsonObject | None:
    """One line of an OpenCompass custom set as formatkit's jsonl line; None (reported) when it cannot be."""
    if not require(value, "question", line, sink):
        return None
    question = read_text(value, "question", line, sink)
    out: JsonObject = {}
    if question is not None:
        out["prompt"] = question
    ok = read_choices(value, out, line, sink)
    if question is None or not ok:
        return None
    labels = extra_labels(value, _KNOWN)
    if labels:
        out.setdefault("meta", {}).update(labels)
    return out


def write_record(record: RecordDict, position: int, options: dict[str, str]) -> Written:
    """The record as a multiple-choice line when it has options (``meta.choices``), else a question-answer
    line (Unfit: a conversation; options with a reference that names none of them)."""
    parts = parts_of(record)
    single_question(parts, "opencompass")
    line: JsonObject = {"question": parts.question}
    if parts.meta.get("choices"):
        write_choices(line, parts, "opencompass")
    elif parts.reference is not None:
        line["answer"] = parts.reference
    return Written([line], common_losses(parts, position, holds=(), meta_holds=("choices",)))
