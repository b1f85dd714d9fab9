"""jsonl files: detect the shape of the lines and check each line against it.

Shapes (FORMATS.md): single-turn (``prompt``), multi-turn (``messages``) and the canonical record
(``messages`` ending with the target assistant turn). Every line of a file must be of the first
line's shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from formatkit._core.draft import Draft
from formatkit._core.issues import Format, IssueSink
from formatkit._core.modes import Mode
from formatkit._core.suggest import did_you_mean
from formatkit._reading.jsonl_lines import iter_json_lines
from formatkit._rules import common
from formatkit._rules.canonical import check_canonical, check_meta
from formatkit._rules.common import clean_target, is_blank
from formatkit._rules.parameters import is_clean_parameters
from formatkit._rules.results import JSONL_RESULT_KEYS

__all__ = ["JsonlReader"]

#: Keys of each line shape: name -> (required, alias of). ``response``, ``session_id`` and ``meta``
#: are accepted beyond the seed's table: a scored set needs its responses, and ids and labels are kept.
_INPUT_KEYS = ("session_id", "system", "prompt", "answer", "response", "parameters", "meta")
#: The seed's result keys (score, analysis, usage, error, model/endpoint_id) are known too: formatkit._rules.results.
SINGLE_KEYS = (*_INPUT_KEYS, *JSONL_RESULT_KEYS)
MULTI_KEYS = ("session_id", "messages", "answer", "response", "parameters", "meta", *JSONL_RESULT_KEYS)
ALIASES = {
    "system_prompt": "system",
    "query": "prompt",
    "reference_response": "answer",
    "message": "messages",
}
_SINGLE_NAMES = frozenset(_INPUT_KEYS)  # the fast path: a line with result keys takes the full one
MESSAGE_KEYS = ("role", "content")
ROLES = ("system", "user", "assistant")

_SHAPE_NAMES = {
    "jsonl-single-turn": 'single-turn ({"prompt": ..., "answer": ...})',
    "jsonl-multi-turn": 'multi-turn ({"messages": [...], "answer": ...})',
    "canonical": 'canonical ({"session_id": ..., "messages": [..., {"role": "assistant", ...}]})',
}


def detect_shape(obj: dict[str, Any], file_format: Format | None = None) -> Format | None:
    """The shape of one line; None when its keys name no shape (it is then held to the file's)."""
    if file_format == "canonical" and "messages" in obj:
        return "canonical"
    messages = obj.get("messages", obj.get("message"))
    if isinstance(messages, list) and messages:
        last = messages[-1]
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


class JsonlReader:
    """Reads a jsonl file line by line (memory stays flat)."""

    def __init__(self, path: Path, *, mode: Mode, sink: IssueSink, max_rows: int | None) -> None:
        self.path = path
        self.mode = mode
        self.sink = sink
        self.max_rows = max_rows
        self.format: Format | None = None
        self.rows = 0
        self._session_ids: dict[tuple[str | None, int | str], int] = {}
        self._name = str(path)
        self._stem = path.stem
        #: Drafts and records handed out so far: a fast record's default session_id (its position).
        self._yielded = 0

    def drafts(self) -> Iterator[Draft | dict[str, Any]]:
        if self.path.stat().st_size == 0:
            self.sink.add("empty_file", "The file is empty. Add one JSON object per line.", line=None)
            return
        fast = common.FAST_PATHS
        for line, value in iter_json_lines(self.path, self.sink):
            self.rows += 1
            if (
                fast
                and self.format == "jsonl-single-turn"
                and type(value) is dict
                and "messages" not in value
                and "message" not in value
                and (self.max_rows is None or self.rows <= self.max_rows)
            ):
                # The line is of the file's shape (detect_shape would say so); most lines then pass
                # every rule and become a record here, the rest go on to the full checks below.
                record = self._fast_single(value, line)
                if record is not None:
                    self._yielded += 1
                    yield record
                    continue
            if self.max_rows is not None and self.rows == self.max_rows + 1:
                self.sink.add(
                    "too_many_rows",
                    f"The file has more than {self.max_rows} lines, the platform's limit per file. Split "
                    "it into several files, or use --profile none for local work.",
                    line=line,
                )
            if not isinstance(value, dict):
                self.sink.add(
                    "line_not_object",
                    f"Line holds a JSON {_json_type(value)}, but each line must be one object "
                    '({"prompt": ..., "answer": ...}).',
                    line=line,
                )
                continue
            shape = detect_shape(value, self.format) or self.format or "jsonl-single-turn"
            if self.format is None:
                self.format = shape
            elif shape != self.format:
                self.sink.add(
                    "mixed_shapes",
                    f"Line is {_SHAPE_NAMES[shape]} but the file started as {_SHAPE_NAMES[self.format]}. "
                    "Put each shape in a file of its own.",
                    line=line,
                )
                continue
            draft = self._draft(value, line)
            if draft is not None:
                self._yielded += 1
                yield draft
        if self.rows == 0 and self.sink.errors == 0:
            self.sink.add("no_records", "The file has no records: only blank lines.", line=None)

    # -- one line ---------------------------------------------------------------------------------

    def _fast_single(self, obj: dict[str, Any], line: int) -> dict[str, Any] | None:
        """The canonical record of a single-turn line that passes every rule, built as build_record would
        build it from the line's Draft; None when any check might have something to say."""
        fields = _plain_single(obj)
        if fields is None:
            return None
        prompt, system, answer, response, parameters = fields
        if parameters is None:
            parameters = {}
        elif not is_clean_parameters(parameters):
            return None
        target = clean_target(self.mode, answer, response, parameters)
        if target is None:
            return None
        user = {"role": "user", "content": prompt}
        messages = (
            [{"role": "system", "content": system}, user, target] if system and system.strip() else [user, target]
        )
        return {
            "session_id": self._yielded,
            "messages": messages,
            "meta": {"dataset": self._stem, "source": {"file": self._name, "format": self.format, "line": line}},
        }

    def _clean_single(self, obj: dict[str, Any], line: int, source: dict[str, Any]) -> Draft | None:
        """The common case checked in one go: a single-turn line whose keys are all known names and
        whose values all have the right types. It is only a filter — anything else returns None and
        goes through the full checks of :meth:`_draft`, where every rule lives."""
        fields = _plain_single(obj)
        if fields is None:
            return None
        prompt, system, answer, response, parameters = fields
        user = {"role": "user", "content": prompt}
        history = [{"role": "system", "content": system}, user] if system and system.strip() else [user]
        return _line_draft(line, None, history, answer, response, parameters, source, None)

    def _draft(self, obj: dict[str, Any], line: int) -> Draft | None:
        source = {"file": self._name, "format": self.format, "line": line, "dataset": self._stem}
        if self.format == "jsonl-single-turn":
            clean = self._clean_single(obj, line, source)
            if clean is not None:
                return clean
        if self.format == "canonical":
            record = check_canonical(obj, self.mode, self.sink, line=line)
            if record is None:
                return None
            # A canonical file may hold several sets (convert writes them into one): an id is unique in its set.
            meta = record.get("meta")
            dataset = meta.get("dataset") if isinstance(meta, dict) else None
            self._check_session_id(record.get("session_id"), line, dataset if isinstance(dataset, str) else None)
            return Draft(
                session_id=record.get("session_id"),
                history=[],
                reference=None,
                reference_place={"line": line},
                response=None,
                response_place={"line": line},
                parameters=None,
                parameters_place={"line": line},
                source=source,
                canonical=record,
            )
        allowed = SINGLE_KEYS if self.format == "jsonl-single-turn" else MULTI_KEYS
        fields = self._keys(obj, allowed, line)
        session_id = fields.get("session_id")
        if session_id is not None:
            if isinstance(session_id, bool) or not isinstance(session_id, (int, str)):
                self.sink.add(
                    "invalid_session_id",
                    f"session_id must be an integer or a string, not a JSON {_json_type(session_id)}.",
                    line=line,
                    field="session_id",
                )
                session_id = None
            else:
                self._check_session_id(session_id, line)
        if self.format == "jsonl-single-turn":
            history = self._single_history(fields, line)
        else:
            history = self._multi_history(fields, line)
        reference = self._text(fields, "answer", line, required=False)
        response = self._text(fields, "response", line, required=False)
        meta = fields.get("meta")
        if meta is not None and not isinstance(meta, dict):
            self._type(line, "meta", "an object of labels", meta)
            meta = None
        elif meta is not None and not check_meta(meta, self.sink, line=line):
            meta = None
        parameters = fields.get("parameters")
        if parameters is not None and not isinstance(parameters, dict):
            self.sink.add(
                "invalid_parameters",
                f'"parameters" must be a JSON object such as {{"temperature": 0.7}}, not a JSON '
                f"{_json_type(parameters)}.",
                line=line,
                field="parameters",
            )
            parameters = None
        if history is None:
            return None
        draft = _line_draft(line, session_id, history, reference, response, parameters, source, meta)
        results = {k: (fields[k], {"line": line, "field": k}) for k in JSONL_RESULT_KEYS if k in fields}
        if results:
            draft.results = results
        return draft

    def _keys(self, obj: dict[str, Any], allowed: tuple[str, ...], line: int) -> dict[str, Any]:
        """Map aliases to their names; report unknown keys with a suggestion."""
        fields: dict[str, Any] = {}
        for key, value in obj.items():
            name = key
            if key in ALIASES and ALIASES[key] in allowed:
                name = ALIASES[key]
                if name in obj:
                    self.sink.add(
                        "duplicate_key",
                        f'Both "{key}" and "{name}" are given; they mean the same field. Keep "{name}".',
                        line=line,
                        field=key,
                    )
                    continue
                self.sink.add(
                    "alias_key",
                    f'"{key}" is accepted as an alias of "{name}"; rename it to "{name}".',
                    line=line,
                    field=key,
                )
            elif key not in allowed:
                self.sink.add(
                    "unknown_key",
                    f'Unknown key "{key}" for a {_SHAPE_NAMES[self.format or "jsonl-single-turn"]} line.'
                    + did_you_mean(key, [*allowed, *(a for a, n in ALIASES.items() if n in allowed)]),
                    line=line,
                    field=key,
                )
                continue
            fields[name] = value
        return fields

    def _single_history(self, fields: dict[str, Any], line: int) -> list[dict[str, Any]] | None:
        history: list[dict[str, Any]] = []
        system = self._text(fields, "system", line, required=False)
        if system is not None and system.strip():
            history.append({"role": "system", "content": system})
        prompt = self._text(fields, "prompt", line, required=True)
        if prompt is None:
            return None
        history.append({"role": "user", "content": prompt})
        return history

    def _multi_history(self, fields: dict[str, Any], line: int) -> list[dict[str, Any]] | None:
        if "messages" not in fields:
            self.sink.add(
                "missing_field",
                'The line has no "messages": give the conversation as a list of {"role", "content"}.',
                line=line,
                field="messages",
            )
            return None
        messages = fields["messages"]
        if not isinstance(messages, list):
            self._type(line, "messages", "a list of messages", messages)
            return None
        if not messages:
            self.sink.add(
                "empty_messages",
                '"messages" is empty; it needs at least one {"role": "user", "content": ...}.',
                line=line,
                field="messages",
            )
            return None
        history: list[dict[str, Any]] = []
        ok = True
        for index, item in enumerate(messages):
            path = f"messages[{index}]"
            if not isinstance(item, dict):
                self._type(line, path, 'an object {"role": ..., "content": ...}', item)
                ok = False
                continue
            for key in item:
                if key not in MESSAGE_KEYS:
                    self.sink.add(
                        "unknown_key",
                        f'Unknown key "{key}" in a message; a message holds only "role" and "content".'
                        + did_you_mean(key, MESSAGE_KEYS),
                        line=line,
                        field=f"{path}.{key}",
                    )
            role = item.get("role")
            if role not in ROLES:
                if role is None:
                    self.sink.add("missing_field", 'The message has no "role".', line=line, field=f"{path}.role")
                else:
                    self.sink.add(
                        "invalid_role",
                        f'Role "{role}" is not one of system, user, assistant.'
                        + (did_you_mean(role, ROLES) if isinstance(role, str) else ""),
                        line=line,
                        field=f"{path}.role",
                    )
                ok = False
                continue
            if role == "system" and index != 0:
                self.sink.add(
                    "misplaced_system",
                    "A system message may only be the first message; move it to the front or merge it "
                    "into the first system message.",
                    line=line,
                    field=f"{path}.role",
                )
                ok = False
            content = item.get("content")
            if "content" not in item:
                self.sink.add("missing_field", 'The message has no "content".', line=line, field=f"{path}.content")
                ok = False
            elif not isinstance(content, str):
                self._type(line, f"{path}.content", "text", content)
                ok = False
            elif is_blank(content):
                self.sink.add(
                    "empty_text",
                    f"The {role} message's content is empty; write the text of the turn.",
                    line=line,
                    field=f"{path}.content",
                )
                ok = False
            history.append({"role": role, "content": content})
        last_role = messages[-1].get("role") if isinstance(messages[-1], dict) else None
        # A missing or unknown role already has its own issue at .role; only a known non-user role
        # here means the conversation ends on the wrong turn.
        if last_role in ("assistant", "system"):
            fix = (
                'Move the final assistant reply to "answer".'
                if last_role == "assistant"
                else "Add the user's question after it."
            )
            self.sink.add(
                "last_message_not_user",
                f'The last message is "{last_role}", but the conversation must end with the user\'s turn '
                f"that the model answers. {fix}",
                line=line,
                field=f"messages[{len(messages) - 1}]",
            )
            ok = False
        return history if ok else None

    # -- helpers ----------------------------------------------------------------------------------

    def _text(self, fields: dict[str, Any], name: str, line: int, *, required: bool) -> str | None:
        value = fields.get(name)
        if value is None:
            if required:
                self.sink.add(
                    "missing_field",
                    f'The line has no "{name}"; it is required.',
                    line=line,
                    field=name,
                )
            return None
        if not isinstance(value, str):
            self._type(line, name, "text (a JSON string)", value)
            # The value is there, only mistyped: stand in its JSON text so the mode rules do not
            # also call it missing. The file is invalid either way.
            return None if required else json.dumps(value, ensure_ascii=False)
        if required and is_blank(value):
            self.sink.add("empty_text", f'"{name}" is empty; write the text of the turn.', line=line, field=name)
            return None
        return value

    def _type(self, line: int, field: str, expected: str, value: Any) -> None:
        hint = f' (write "{value}")' if isinstance(value, (int, float)) and not isinstance(value, bool) else ""
        self.sink.add(
            "invalid_type",
            f'"{field}" must be {expected}, not a JSON {_json_type(value)}{hint}.',
            line=line,
            field=field,
        )

    def _check_session_id(self, session_id: Any, line: int, dataset: str | None = None) -> None:
        if session_id is None or isinstance(session_id, (dict, list)):
            return
        first = self._session_ids.get((dataset, session_id))
        if first is not None:
            where = f' in dataset "{dataset}"' if dataset is not None else ""
            self.sink.add(
                "duplicate_session_id",
                f"session_id {session_id!r} is already used{where} on line {first}; each record needs its own.",
                line=line,
                field="session_id",
            )
        else:
            self._session_ids[(dataset, session_id)] = line


def _line_draft(
    line: int,
    session_id: int | str | None,
    history: list[dict[str, Any]],
    reference: str | None,
    response: str | None,
    parameters: Any,
    source: dict[str, Any],
    meta: dict[str, Any] | None,
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


def _json_type(value: Any) -> str:
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


def _plain_single(obj: dict[str, Any]) -> tuple[str, str | None, str | None, str | None, dict[str, Any] | None] | None:
    """prompt, system, answer, response and parameters of a single-turn line whose keys are all known names
    (no ``session_id``, no ``meta``: those take the full checks) and whose values have the right types;
    None for anything else. A filter for the common case only: every rule lives in the full path."""
    if not obj.keys() <= _SINGLE_NAMES or "session_id" in obj or "meta" in obj:
        return None
    prompt = obj.get("prompt")
    system = obj.get("system")
    answer = obj.get("answer")
    response = obj.get("response")
    parameters = obj.get("parameters")
    if (
        type(prompt) is not str
        or not prompt.strip()
        or (system is not None and type(system) is not str)
        or (answer is not None and type(answer) is not str)
        or (response is not None and type(response) is not str)
        or (parameters is not None and type(parameters) is not dict)
    ):
        return None
    return prompt, system, answer, response, parameters
