"""inspect_ai's sample files (``json_dataset``, its default ``FieldSpec``): ``input`` the question as text,
or the conversation as a list of ``{"role", "content"}`` messages; ``target`` the reference (text, or a
list of accepted texts); ``choices`` the options; ``id``; ``metadata`` an object of labels. inspect_ai
holds no sampling parameters per sample, nor model replies.
"""

from __future__ import annotations

from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.record import JsonObject, RecordDict
from formatkit._rules.jsonl import report_type
from formatkit._rules.shapes.choices import check_answer
from formatkit._rules.shapes.common import (
    LETTERS,
    Written,
    common_losses,
    conversation,
    extra_labels,
    parts_of,
    require,
)

__all__ = ["EXAMPLE", "read_line", "write_record"]

EXAMPLE = '{"id": ..., "input": ..., "target": ..., "choices": [...], "metadata": {...}}'

_KNOWN = ("id", "input", "target", "choices", "metadata")


def read_line(value: JsonObject, line: int, sink: IssueSink) -> JsonObject | None:
    """One sample as formatkit's jsonl line; None (reported) when it cannot be."""
    if not require(value, "input", line, sink):
        return None
    before = sink.errors
    out: JsonObject = {}
    given = value["input"]
    if isinstance(given, str):
        out["prompt"] = given
    elif isinstance(given, list):
        out["messages"] = given
    else:
        report_type(line, "input", Msg("frag.expect.string_or_list"), given, sink)
    meta: JsonObject = {}
    target = value.get("target")
    if isinstance(target, list) and all(isinstance(t, str) for t in target):
        if target:
            out["answer"] = target[0]
        if len(target) > 1:
            meta["aliases"] = target[1:]
    elif isinstance(target, str):
        if target:
            out["answer"] = target
    elif target is not None:
        report_type(line, "target", Msg("frag.expect.string_or_list"), target, sink)
    choices = value.get("choices")
    if isinstance(choices, list) and all(isinstance(c, str) for c in choices):
        meta["choices"] = choices
        targets = target if isinstance(target, list) else [target] if isinstance(target, str) and target else []
        if choices and len(choices) <= len(LETTERS):  # inspect_ai's multiple_choice: target letters of the options
            for one in targets:
                if isinstance(one, str) and not check_answer(one, choices, "target", line, sink):
                    break
    elif choices is not None:
        report_type(line, "choices", Msg("frag.expect.list"), choices, sink)
    metadata = value.get("metadata")
    if isinstance(metadata, dict):
        meta = {**metadata, **meta}
    elif metadata is not None:
        report_type(line, "metadata", Msg("frag.expect.labels"), metadata, sink)
    meta.update(extra_labels(value, _KNOWN))
    if sink.errors != before:
        return None
    if value.get("id") is not None:
        out["session_id"] = value["id"]
    if meta:
        out["meta"] = meta
    return out


def write_record(record: RecordDict, position: int, options: dict[str, str]) -> Written:
    """The record as a sample: ``input`` the question's text alone, or the messages when there is a system
    prompt or earlier turns; ``target`` the reference, with ``meta.aliases`` after it when there are any;
    ``metadata`` the other labels (``choices`` has a field of its own)."""
    parts = parts_of(record)
    sample: JsonObject = {"id": parts.session_id}
    if parts.system is None and not parts.history:
        sample["input"] = parts.question
    else:
        sample["input"] = conversation(parts, "inspect")
    aliases = parts.meta.get("aliases")
    if parts.reference is not None:
        sample["target"] = [parts.reference, *aliases] if aliases else parts.reference
    choices = parts.meta.get("choices")
    if choices:
        sample["choices"] = choices
    own = ("choices", "aliases") if parts.reference is not None else ("choices",)
    metadata = {k: v for k, v in parts.meta.items() if k not in own and v is not None}
    if metadata:
        sample["metadata"] = metadata
    lost = common_losses(parts, position, holds=("session_id", "system"), meta_holds=tuple(parts.meta))
    return Written([sample], lost)
