"""EvalScope's custom multiple-choice set (``general_mcq``), jsonl: ``id`` (optional), ``question``, the
options ``A`` to ``J`` (from A on, as many as there are), ``answer`` the right option's letter. EvalScope
writes the options into its own prompt. It holds no system prompt, conversation, parameters, model
replies or labels other than the options.
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

EXAMPLE = '{"id": ..., "question": ..., "A": ..., "B": ..., "answer": "A"}'

_KNOWN = ("id", "question", "answer", *LETTERS)


def read_line(value: JsonObject, line: int, sink: IssueSink) -> JsonObject | None:
    """One line of a general_mcq file as formatkit's jsonl line; None (reported) when it cannot be."""
    if not require(value, "question", line, sink):
        return None
    question = read_text(value, "question", line, sink)
    out: JsonObject = {}
    if question is not None:
        out["prompt"] = question
    ok = read_choices(value, out, line, sink)
    if question is None or not ok:
        return None
    if value.get("id") is not None:
        out["session_id"] = value["id"]
    labels = extra_labels(value, _KNOWN)
    if labels:
        out.setdefault("meta", {}).update(labels)
    return out


def write_record(record: RecordDict, position: int, options: dict[str, str]) -> Written:
    """The record as a general_mcq line (Unfit: a conversation, no options, a reference no option names)."""
    parts = parts_of(record)
    single_question(parts, "evalscope-mcq")
    line: JsonObject = {"id": parts.session_id, "question": parts.question}
    write_choices(line, parts, "evalscope-mcq")
    lost = common_losses(parts, position, holds=("session_id",), meta_holds=("choices",))
    return Written([line], lost)
