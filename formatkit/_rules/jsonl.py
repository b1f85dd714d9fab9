"""The jsonl rules of docs/pages/reference/formats.md, one function per rule: each checks one thing of one
line and reports what it finds in the sink. :mod:`formatkit._drivers.jsonl` runs them over the lines of a
file.

Shapes: single-turn (``prompt``), multi-turn (``messages``) and the canonical record (``messages`` ending
with the target assistant turn). Every line of a file must be of the first line's shape.
"""

from __future__ import annotations

import bisect
import json
from typing import Any, cast

from formatkit._core.draft import Draft
from formatkit._core.issues import Format, IssueSink
from formatkit._core.messages import Msg
from formatkit._core.record import MessageDict, MetaDict, ReadSource, last_message
from formatkit._core.suggest import did_you_mean_later
from formatkit._rules.canonical import check_meta
from formatkit._rules.common import is_blank
from formatkit._rules.results import JSONL_RESULT_KEYS

__all__ = [
    "ALIASES",
    "MESSAGE_KEYS",
    "MULTI_KEYS",
    "ROLES",
    "SHAPE_NAMES",
    "SINGLE_KEYS",
    "SessionIds",
    "check_line_count",
    "check_meta_field",
    "check_no_records",
    "check_object",
    "check_parameters_field",
    "check_shape",
    "check_text",
    "detect_shape",
    "json_type",
    "line_draft",
    "map_keys",
    "multi_history",
    "plain_single",
    "report_type",
    "session_id_field",
    "single_history",
]

#: Keys of each line shape. ``response``, ``session_id`` and ``meta`` are accepted beyond the seed's
#: table: a scored set needs its responses, and ids and labels are kept.
_INPUT_KEYS = ("session_id", "system", "prompt", "answer", "response", "parameters", "meta")
#: The seed's result keys (score, analysis, usage, error, model/endpoint_id) are known too: an exported
#: file scores again (formatkit._rules.results).
SINGLE_KEYS = (*_INPUT_KEYS, *JSONL_RESULT_KEYS)
MULTI_KEYS = ("session_id", "messages", "answer", "response", "parameters", "meta", *JSONL_RESULT_KEYS)
ALIASES = {
    "system_prompt": "system",
    "query": "prompt",
    "reference_response": "answer",
    "message": "messages",
}
#: The fast path's keys: a line with result keys, a session_id or meta takes the full checks.
_PLAIN_NAMES = frozenset(_INPUT_KEYS) - {"session_id", "meta"}
MESSAGE_KEYS = ("role", "content")
ROLES = ("system", "user", "assistant")

SHAPE_NAMES = {
    "jsonl-single-turn": 'single-turn ({"prompt": ..., "answer": ...})',
    "jsonl-multi-turn": 'multi-turn ({"messages": [...], "answer": ...})',
    "canonical": 'canonical ({"session_id": ..., "messages": [..., {"role": "assistant", ...}]})',
}


def detect_shape(obj: dict[str, object], file_format: Format | None = None) -> Format | None:
    """The shape of one line; None when its keys name no shape (it is then held to the file's)."""
    if file_format == "canonical" and "messages" in obj:
        return "canonical"
    messages = obj.get("messages", obj.get("message"))
    if isinstance(messages, list) and messages:
        last = last_message(messages)
        if (
            isinstance(last, dict)
            and last.get("role") == "assistant"
            and ("responses" in last or "reference_response" in last)
        ):
            return "canonical"
        return "jsonl-multi-turn"
    if "messages" in obj or "message" in obj:
        return "jsonl-multi-turn"
    if "prompt" in obj or "query" in obj:
        return "jsonl-single-turn"
    return None


def check_line_count(rows: int, max_rows: int | None, line: int, sink: IssueSink) -> bool:
    """The platform's line limit, reported on the first line past it; False there (reading stops)."""
    if max_rows is not None and rows > max_rows:
        sink.add(
            "too_many_rows",
            Msg("too_many_rows.jsonl", limit=max_rows),
            line=line,
        )
        return False
    return True


def check_object(value: Any, line: int, sink: IssueSink) -> bool:
    """Each line is one JSON object."""
    if isinstance(value, dict):
        return True
    sink.add(
        "line_not_object",
        Msg("line_not_object", type=json_type_name(value)),
        line=line,
    )
    return False


def check_shape(shape: Format, file_format: Format, line: int, sink: IssueSink) -> bool:
    """Every line is of the file's (first line's) shape."""
    if shape == file_format:
        return True
    sink.add(
        "mixed_shapes",
        Msg("mixed_shapes", shape=Msg(f"frag.shape.{shape}"), first=Msg(f"frag.shape.{file_format}")),
        line=line,
    )
    return False


def check_no_records(rows: int, sink: IssueSink) -> None:
    """A file of only blank lines holds no record."""
    if rows == 0 and sink.errors == 0:
        sink.add("no_records", Msg("no_records.blank_lines"), line=None)


def map_keys(
    obj: dict[str, object], allowed: tuple[str, ...], file_format: Format | None, line: int, sink: IssueSink
) -> dict[str, object]:
    """Map aliases to their names; report unknown keys with a suggestion."""
    fields: dict[str, object] = {}
    for key, value in obj.items():
        name = key
        if key in ALIASES and ALIASES[key] in allowed:
            name = ALIASES[key]
            if name in obj:
                sink.add(
                    "duplicate_key",
                    Msg("duplicate_key.alias", key=key, name=name),
                    line=line,
                    field=key,
                )
                continue
            sink.add(
                "alias_key",
                Msg("alias_key", key=key, name=name),
                line=line,
                field=key,
            )
        elif key not in allowed:
            sink.add(
                "unknown_key",
                Msg(
                    "unknown_key",
                    key=key,
                    shape=Msg(f"frag.shape.{file_format or 'jsonl-single-turn'}"),
                    hint=did_you_mean_later(key, [*allowed, *(a for a, n in ALIASES.items() if n in allowed)]),
                ),
                line=line,
                field=key,
            )
            continue
        fields[name] = value
    return fields


def session_id_field(session_id: Any, line: int, sink: IssueSink) -> int | str | None:
    """A line's ``session_id``: an integer or a string; None when absent or reported."""
    if session_id is None:
        return None
    if isinstance(session_id, bool) or not isinstance(session_id, (int, str)):
        sink.add(
            "invalid_session_id",
            Msg("invalid_session_id.jsonl", type=json_type_name(session_id)),
            line=line,
            field="session_id",
        )
        return None
    return session_id


class SessionIds:
    """Each record's session_id is unique in the file, counting the ids that lines without one receive
    (their 0-based position): a file mixing both must not give two records the same id."""

    def __init__(self) -> None:
        #: (dataset, id) -> the line that first used it; the dataset is None outside canonical files.
        self._first: dict[tuple[str | None, int | str], int] = {}
        #: Positions given to lines without a session_id, as runs: first and last position, first line.
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._lines: list[int] = []

    def check(self, session_id: Any, line: int, sink: IssueSink, dataset: str | None = None) -> None:
        """``dataset``: a canonical record's meta.dataset; a canonical file may hold several sets (convert
        writes them into one), and an id is unique in its set."""
        if session_id is None or isinstance(session_id, (dict, list)):
            return
        first = self._first.get((dataset, session_id))
        if first is not None:
            sink.add(
                "duplicate_session_id",
                Msg("duplicate_session_id.jsonl", sid=session_id, first=first)
                if dataset is None
                else Msg("duplicate_session_id.dataset", sid=session_id, dataset=dataset, first=first),
                line=line,
                field="session_id",
            )
            return
        self._first[(dataset, session_id)] = line
        if type(session_id) is int:
            other = self._defaulted_line(session_id)
            if other is not None:
                _mixed(session_id, other, line, sink)

    def default(self, position: int, line: int, sink: IssueSink) -> None:
        """A line without a session_id becomes record ``position`` and takes that number as its id."""
        if self._first:  # ids were given: this position may be one of them
            first = self._first.get((None, position))
            if first is not None:
                _mixed(position, line, first, sink, at=line)
        self._extend(position, position, line)

    def default_run(self, position: int, count: int, line: int) -> None:
        """``count`` lines from ``line`` on, none with a session_id, became records ``position``... They were
        read elsewhere (another process read that part of the file and found nothing to report), so there is
        nothing to check: the lines before gave no id either (see :attr:`given`)."""
        if count > 0:
            self._extend(position, position + count - 1, line)

    def _extend(self, first: int, last: int, line: int) -> None:
        """Positions ``first``..``last`` (from ``line``) join the runs of defaulted ids."""
        ends = self._ends
        if ends and ends[-1] == first - 1:
            ends[-1] = last
        else:
            self._starts.append(first)
            ends.append(last)
            self._lines.append(line)

    @property
    def given(self) -> bool:
        """Whether any line gave its own session_id."""
        return bool(self._first)

    def _defaulted_line(self, session_id: int) -> int | None:
        index = bisect.bisect_right(self._starts, session_id) - 1
        if index >= 0 and session_id <= self._ends[index]:
            return self._lines[index]
        return None


def _mixed(session_id: int, without: int, given: int, sink: IssueSink, *, at: int | None = None) -> None:
    sink.add(
        "mixed_session_ids",
        Msg("mixed_session_ids.jsonl", sid=session_id, given=given, without=without),
        line=given if at is None else at,
        field="session_id" if at is None else None,
    )


def check_meta_field(meta: Any, line: int, sink: IssueSink) -> MetaDict | None:
    """``meta`` is an object of labels (its labels checked by the canonical rules); None when not."""
    if meta is None:
        return None
    if not isinstance(meta, dict):
        report_type(line, "meta", Msg("frag.expect.labels"), meta, sink)
        return None
    if not check_meta(meta, sink, line=line):
        return None
    return cast(MetaDict, meta)


def check_parameters_field(parameters: Any, line: int, sink: IssueSink) -> Any:
    """``parameters`` is a JSON object; None when it is not (reported)."""
    if parameters is not None and not isinstance(parameters, dict):
        sink.add(
            "invalid_parameters",
            Msg("invalid_parameters.jsonl", type=json_type_name(parameters)),
            line=line,
            field="parameters",
        )
        return None
    return parameters


def single_history(fields: dict[str, object], line: int, sink: IssueSink) -> list[MessageDict] | None:
    """A single-turn line's system and prompt as history; None (reported) without a usable prompt."""
    history: list[MessageDict] = []
    system = check_text(fields, "system", line, sink, required=False)
    if system is not None and system.strip():
        history.append({"role": "system", "content": system})
    prompt = check_text(fields, "prompt", line, sink, required=True)
    if prompt is None:
        return None
    history.append({"role": "user", "content": prompt})
    return history


def multi_history(fields: dict[str, object], line: int, sink: IssueSink) -> list[MessageDict] | None:
    """A multi-turn line's ``messages`` as history; None (reported) when the conversation is unusable."""
    if "messages" not in fields:
        sink.add(
            "missing_field",
            Msg("missing_field.messages"),
            line=line,
            field="messages",
        )
        return None
    messages = fields["messages"]
    if not isinstance(messages, list):
        report_type(line, "messages", Msg("frag.expect.messages"), messages, sink)
        return None
    if not messages:
        sink.add(
            "empty_messages",
            Msg("empty_messages"),
            line=line,
            field="messages",
        )
        return None
    history: list[MessageDict] = []
    ok = True
    for index, item in enumerate(messages):
        message = _message(item, index, line, sink)
        if message is None:
            ok = False
        else:
            history.append(message)
    last = last_message(messages)
    last_role = last.get("role") if isinstance(last, dict) else None
    # A missing or unknown role already has its own issue at .role; only a known non-user role
    # here means the conversation ends on the wrong turn.
    if last_role in ("assistant", "system"):
        fix = Msg("frag.move_reply_to_answer" if last_role == "assistant" else "frag.add_question")
        sink.add(
            "last_message_not_user",
            Msg("last_message_not_user", role=last_role, fix=fix),
            line=line,
            field=f"messages[{len(messages) - 1}]",
        )
        ok = False
    return history if ok else None


def _message(item: object, index: int, line: int, sink: IssueSink) -> MessageDict | None:
    """One of ``messages``, checked at its place: the message, or None when it has a problem (reported)."""
    path = f"messages[{index}]"
    fine = True
    if not isinstance(item, dict):
        report_type(line, path, Msg("frag.expect.message"), item, sink)
        return None
    for key in item:
        if key not in MESSAGE_KEYS:
            sink.add(
                "unknown_key",
                Msg("unknown_key.message", key=key, hint=did_you_mean_later(key, MESSAGE_KEYS)),
                line=line,
                field=f"{path}.{key}",
            )
    role = item.get("role")
    if role not in ROLES:
        if role is None:
            sink.add("missing_field", Msg("missing_field.role"), line=line, field=f"{path}.role")
        else:
            sink.add(
                "invalid_role",
                Msg("invalid_role", role=role, hint=did_you_mean_later(role, ROLES) if isinstance(role, str) else ""),
                line=line,
                field=f"{path}.role",
            )
        return None
    if role == "system" and index != 0:
        sink.add(
            "misplaced_system",
            Msg("misplaced_system"),
            line=line,
            field=f"{path}.role",
        )
        fine = False
    content: Any = item.get("content")
    if "content" not in item:
        sink.add("missing_field", Msg("missing_field.content"), line=line, field=f"{path}.content")
        fine = False
    elif not isinstance(content, str):
        report_type(line, f"{path}.content", Msg("frag.expect.text"), content, sink)
        fine = False
    elif is_blank(content):
        sink.add(
            "empty_text",
            Msg("empty_text.message", role=role),
            line=line,
            field=f"{path}.content",
        )
        fine = False
    return {"role": role, "content": content} if fine else None


def check_text(fields: dict[str, object], name: str, line: int, sink: IssueSink, *, required: bool) -> str | None:
    """A text field: present when required, a JSON string, not blank when required."""
    value = fields.get(name)
    if value is None:
        if required:
            sink.add(
                "missing_field",
                Msg("missing_field", name=name),
                line=line,
                field=name,
            )
        return None
    if not isinstance(value, str):
        report_type(line, name, Msg("frag.expect.json_string"), value, sink)
        # The value is there, only mistyped: stand in its JSON text so the mode rules do not
        # also call it missing. The file is invalid either way.
        return None if required else json.dumps(value, ensure_ascii=False)
    if required and is_blank(value):
        sink.add("empty_text", Msg("empty_text.field", name=name), line=line, field=name)
        return None
    return value


def report_type(line: int, field: str, expected: Msg, value: Any, sink: IssueSink) -> None:
    """A field holds a value of the wrong JSON type (``expected``: a ``frag.expect.*`` message)."""
    hint = (
        Msg("frag.write_as_string", value=value)
        if isinstance(value, (int, float)) and not isinstance(value, bool)
        else ""
    )
    sink.add(
        "invalid_type",
        Msg("invalid_type", field=field, expected=expected, type=json_type_name(value), hint=hint),
        line=line,
        field=field,
    )


def line_draft(
    line: int,
    session_id: int | str | None,
    history: list[MessageDict],
    reference: str | None,
    response: str | None,
    parameters: Any,
    source: ReadSource,
    meta: MetaDict | None,
) -> Draft:
    """A jsonl line's draft: its values, each placed at its field of the line."""
    return Draft(
        session_id=session_id,
        history=history,
        reference=reference,
        reference_place={"line": line, "field": "answer"},
        response=response,
        response_place={"line": line, "field": "response"},
        parameters=parameters,
        parameters_place={"line": line, "field": "parameters"},
        source=source,
        meta=meta,
    )


def json_type_name(value: Any) -> Msg:
    """The JSON name of a parsed value's type, as a message piece (``frag.json.*``)."""
    return Msg(f"frag.json.{json_type(value)}")


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def plain_single(
    obj: dict[str, object],
) -> tuple[str, str | None, str | None, str | None, dict[str, object] | None] | None:
    """prompt, system, answer, response and parameters of a single-turn line whose keys are all known names
    (no ``session_id``, no ``meta``: those take the full checks) and whose values have the right types;
    None for anything else. A filter for the common case only: every rule lives in the full path."""
    if not obj.keys() <= _PLAIN_NAMES:
        return None
    prompt = obj.get("prompt")
    system = obj.get("system")
    answer = obj.get("answer")
    response = obj.get("response")
    parameters = obj.get("parameters")
    if (
        type(prompt) is not str
        or not prompt
        or prompt.isspace()  # as `not prompt.strip()`, without copying a long prompt
        or (system is not None and type(system) is not str)
        or (answer is not None and type(answer) is not str)
        or (response is not None and type(response) is not str)
        or (parameters is not None and type(parameters) is not dict)
    ):
        return None
    return prompt, system, answer, response, parameters
