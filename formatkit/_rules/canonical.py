"""Canonical records given as input: the pydantic model's errors become Issues, plus the mode rules."""

from __future__ import annotations

import json
from typing import Any

from formatkit._core.codes import Code
from formatkit._core.issues import IssueSink
from formatkit._core.modes import Mode
from formatkit._rules.common import is_blank
from formatkit._rules.parameters import check_parameters

__all__ = ["check_canonical", "check_meta", "loc_to_path"]

_PYDANTIC_CODES: dict[str, Code] = {
    "missing": "missing_field",
    "extra_forbidden": "unknown_key",
    "too_short": "empty_messages",
    "literal_error": "invalid_role",
}


def loc_to_path(loc: tuple[int | str, ...]) -> str:
    """``("messages", 2, "role")`` → ``messages[2].role``."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += ("." if path else "") + str(part)
    return path


#: What a pydantic type error expected, in the words of the format (the raw message is a fallback).
_EXPECTED = {
    "string_type": "text (a JSON string)",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:39] + "…"
        return f"the string {json.dumps(shown, ensure_ascii=False)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _type_message(kind: str, field: str, error: Any) -> str:
    expected = _EXPECTED.get(kind)
    if expected is None:
        return f'"{field}": {error["msg"]}.'
    return f'"{field}" must be {expected}, not {_json_kind(error.get("input"))}.'


def _translate_all(errors: list[Any], line: int, sink: IssueSink) -> None:
    """One issue per field: a union (``session_id``: integer or text) fails once per member, and two
    issues that each demand a different type would contradict each other."""
    by_field: dict[str, list[Any]] = {}
    for error in errors:
        by_field.setdefault(loc_to_path(_loc(error)), []).append(error)
    for field, group in by_field.items():
        kinds = [str(e["type"]) for e in group]
        if len(group) > 1 and all(k in _EXPECTED for k in kinds):
            wanted = " or ".join(dict.fromkeys(_EXPECTED[k] for k in kinds))
            sink.add(
                "invalid_type",
                f'"{field}" must be {wanted}, not {_json_kind(group[0].get("input"))}.',
                line=line,
                field=field or None,
            )
            continue
        for error in group:
            _translate(error, line, sink)


def _loc(error: Any) -> tuple[int | str, ...]:
    return tuple(p for p in error["loc"] if not (isinstance(p, str) and p in ("int", "str")))


def _translate(error: Any, line: int, sink: IssueSink) -> None:
    kind = str(error["type"])
    field = loc_to_path(_loc(error))
    code: Code = _PYDANTIC_CODES.get(kind, "invalid_type")
    if code == "invalid_role" and not field.endswith("role"):
        code = "invalid_type"
    messages = {
        "missing_field": f'"{field}" is missing; the canonical record requires it.',
        "unknown_key": f'"{field}" is not part of the canonical record; remove it or move it into "meta".',
        "empty_messages": '"messages" needs at least one user turn and the target assistant turn.',
        "invalid_role": f'"{field}" must be system, user or assistant.',
    }
    text = messages.get(code) or _type_message(kind, field, error)
    sink.add(code, text, line=line, field=field or None)


def check_canonical(obj: dict[str, Any], mode: Mode, sink: IssueSink, *, line: int) -> dict[str, Any] | None:
    """Validate one canonical record; return it as plain canonical data, or None if it is broken."""
    from pydantic import ValidationError  # the models load only when a canonical file is read (start-up)

    from formatkit._core.models import Record, record_to_dict

    try:
        record = Record.model_validate(obj)
    except ValidationError as exc:
        _translate_all(exc.errors(include_url=False), line, sink)
        return None
    ok = True
    for index, message in enumerate(record.messages[:-1]):
        where = f"messages[{index}]"
        if message.role == "system" and index != 0:
            sink.add(
                "misplaced_system",
                "A system message may only be the first message.",
                line=line,
                field=f"{where}.role",
            )
            ok = False
        if message.role != "assistant" and is_blank(message.content):
            sink.add(
                "empty_text", f"The {message.role} message's content is empty.", line=line, field=f"{where}.content"
            )
            ok = False
    # Every response's parameters obey the same table as Excel and jsonl inputs: the runner sends them
    # as they are, so a canonical file must not smuggle a temperature of 5 or a misspelt key past check.
    before = sink.errors
    for index, message in enumerate(record.messages):
        for k, response in enumerate(message.responses or []):
            place = {"line": line, "field": f"messages[{index}].responses[{k}].parameters"}
            check_parameters(response.parameters, place, sink)
    ok = ok and sink.errors == before
    target = record.messages[-1]
    last = f"messages[{len(record.messages) - 1}]"
    if target.role != "assistant":
        sink.add(
            "target_not_assistant",
            "The last message of a canonical record must be the target assistant turn holding "
            '"reference_response" and "responses".',
            line=line,
            field=f"{last}.role",
        )
        return None
    if mode != "infer-only" and is_blank(target.reference_response):
        sink.add(
            "missing_reference",
            f"The target turn has no reference_response; {mode} mode scores against it.",
            line=line,
            field=f"{last}.reference_response",
        )
        ok = False
    if mode == "scored" and not any(r.content is not None for r in target.responses or []):
        sink.add(
            "missing_response",
            "The target turn has no response with content; scored mode scores collected responses. "
            "Run `formatkit run` first, or fill responses[].content.",
            line=line,
            field=f"{last}.responses",
        )
        ok = False
    return record_to_dict(record) if ok else None


def check_meta(meta: dict[str, Any], sink: IssueSink, *, line: int) -> bool:
    """Whether a jsonl line's own ``meta`` fits the canonical record's (its labels are copied there, so a
    ``"source": "mine"`` would make convert write a record its own validator rejects); issues otherwise."""
    from pydantic import ValidationError

    from formatkit._core.models import Meta

    try:
        Meta.model_validate(meta)
    except ValidationError as exc:
        errors = [{**e, "loc": ("meta", *e["loc"])} for e in exc.errors(include_url=False)]
        _translate_all(errors, line, sink)
        return False
    return True
