"""Canonical records given as input: the pydantic model's errors become Issues, plus the mode rules."""

from __future__ import annotations

import json
from typing import Any

from formatkit._core.codes import Code
from formatkit._core.draft import Place
from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.modes import Mode
from formatkit._core.record import RecordDict, last_message
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
    "string_type": "json_string",
    "int_type": "integer",
    "int_parsing": "integer",
    "int_from_float": "whole_number",
    "float_type": "number",
    "float_parsing": "number",
    "bool_type": "boolean",
    "bool_parsing": "boolean",
    "list_type": "list",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
}


def _json_kind(value: Any) -> Msg | str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, (int, float)):
        return Msg("frag.value.number", value=value)
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:39] + "…"
        return Msg("frag.value.string", value=json.dumps(shown, ensure_ascii=False))
    if isinstance(value, list):
        return Msg("frag.value.list")
    if isinstance(value, dict):
        return Msg("frag.value.object")
    return type(value).__name__


def _type_message(kind: str, field: str, error: Any) -> Msg:
    expected = _EXPECTED.get(kind)
    if expected is None:
        return Msg("invalid_type.pydantic", field=field, error=error["msg"])
    return Msg(
        "invalid_type.canonical",
        field=field,
        expected=Msg(f"frag.expect.{expected}"),
        value=_json_kind(error.get("input")),
    )


def _translate_all(errors: list[Any], line: int, sink: IssueSink) -> None:
    """One issue per field: a union (``session_id``: integer or text) fails once per member, and two
    issues that each demand a different type would contradict each other."""
    by_field: dict[str, list[Any]] = {}
    for error in errors:
        by_field.setdefault(loc_to_path(_loc(error)), []).append(error)
    for field, group in by_field.items():
        kinds = [str(e["type"]) for e in group]
        if len(group) > 1 and all(k in _EXPECTED for k in kinds):
            wanted: Msg | None = None
            for expected in dict.fromkeys(_EXPECTED[k] for k in kinds):
                piece = Msg(f"frag.expect.{expected}")
                wanted = piece if wanted is None else Msg("frag.or", first=wanted, second=piece)
            sink.add(
                "invalid_type",
                Msg("invalid_type.canonical", field=field, expected=wanted, value=_json_kind(group[0].get("input"))),
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
    variants = {
        "missing_field": "missing_field.canonical",
        "unknown_key": "unknown_key.canonical",
        "empty_messages": "empty_messages.canonical",
        "invalid_role": "invalid_role.canonical",
    }
    variant = variants.get(code)
    text = Msg(variant, field=field) if variant is not None else _type_message(kind, field, error)
    sink.add(code, text, line=line, field=field or None)


def check_canonical(obj: dict[str, object], mode: Mode, sink: IssueSink, *, line: int) -> RecordDict | None:
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
                Msg("misplaced_system.canonical"),
                line=line,
                field=f"{where}.role",
            )
            ok = False
        if message.role != "assistant" and is_blank(message.content):
            sink.add("empty_text", Msg("empty_text.canonical", role=message.role), line=line, field=f"{where}.content")
            ok = False
    # Every response's parameters obey the same table as Excel and jsonl inputs: the runner sends them
    # as they are, so a canonical file must not smuggle a temperature of 5 or a misspelt key past check.
    before = sink.errors
    for index, message in enumerate(record.messages):
        for k, response in enumerate(message.responses or []):
            place: Place = {"line": line, "field": f"messages[{index}].responses[{k}].parameters"}
            check_parameters(response.parameters, place, sink)
    ok = ok and sink.errors == before
    target = last_message(record.messages)
    last = f"messages[{len(record.messages) - 1}]"
    if target.role != "assistant":
        sink.add(
            "target_not_assistant",
            Msg("target_not_assistant"),
            line=line,
            field=f"{last}.role",
        )
        return None
    if mode != "infer-only" and is_blank(target.reference_response):
        sink.add(
            "missing_reference",
            Msg("missing_reference.canonical", mode=mode),
            line=line,
            field=f"{last}.reference_response",
        )
        ok = False
    if mode == "scored" and not any(r.content is not None for r in target.responses or []):
        sink.add(
            "missing_response",
            Msg("missing_response.canonical"),
            line=line,
            field=f"{last}.responses",
        )
        ok = False
    return record_to_dict(record) if ok else None


def check_meta(meta: dict[str, object], sink: IssueSink, *, line: int) -> bool:
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
