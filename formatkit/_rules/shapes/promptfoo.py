"""promptfoo's test cases, one per jsonl line (``tests: file://tests.jsonl``): ``vars`` the values the
prompt template fills in (formatkit writes ``query`` and, when there is one, ``system``: a prompt such as
``{{system}} {{query}}`` uses them), ``assert`` the checks of the reply (the reference is an ``equals``
assertion, as promptfoo reads a CSV's ``__expected`` without a prefix), ``metadata`` labels. It holds no
conversation, parameters or model replies.
"""

from __future__ import annotations

from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.record import JsonObject, RecordDict
from formatkit._rules.jsonl import report_type
from formatkit._rules.shapes.common import Written, common_losses, parts_of, read_text, single_question

__all__ = ["EXAMPLE", "QUESTION_VARS", "read_line", "write_record"]

EXAMPLE = '{"vars": {"query": ...}, "assert": [{"type": "equals", "value": ...}], "metadata": {...}}'

#: The variable that holds the question, the first found of these (formatkit writes ``query``).
QUESTION_VARS = ("query", "question", "prompt", "input")


def read_line(value: JsonObject, line: int, sink: IssueSink) -> JsonObject | None:
    """One test case as formatkit's jsonl line; None (reported) when it cannot be."""
    variables = value.get("vars")
    if variables is None:
        sink.add("missing_field", Msg("missing_field", name="vars"), line=line, field="vars")
        return None
    if not isinstance(variables, dict):
        report_type(line, "vars", Msg("frag.expect.object"), variables, sink)
        return None
    name = next((n for n in QUESTION_VARS if n in variables), None)
    if name is None:
        sink.add("missing_field", Msg("missing_field", name="vars.query"), line=line, field="vars.query")
        return None
    before = sink.errors
    out: JsonObject = {}
    question = read_text(variables, name, line, sink)
    system = read_text(variables, "system", line, sink)
    meta: JsonObject = {}
    asserts = value.get("assert")
    others: list[object] = []
    if isinstance(asserts, list):
        for check in asserts:
            if isinstance(check, dict) and check.get("type") == "equals" and "answer" not in out:
                answer = read_text(check, "value", line, sink)
                if answer is not None:
                    out["answer"] = answer
            else:
                others.append(check)
    elif asserts is not None:
        report_type(line, "assert", Msg("frag.expect.list"), asserts, sink)
    metadata = value.get("metadata")
    if isinstance(metadata, dict):
        meta.update(metadata)
    elif metadata is not None:
        report_type(line, "metadata", Msg("frag.expect.labels"), metadata, sink)
    if sink.errors != before or question is None:
        return None
    out["prompt"] = question
    if system is not None:
        out["system"] = system
    for key in ("id", "session_id"):
        if key in meta:
            out["session_id"] = meta.pop(key)
            break
    rest = {k: v for k, v in variables.items() if k not in (name, "system")}
    if rest:
        meta["vars"] = rest
    if others:
        meta["assert"] = others
    if value.get("description") is not None:
        meta["description"] = value["description"]
    if meta:
        out["meta"] = meta
    return out


def write_record(record: RecordDict, position: int, options: dict[str, str]) -> Written:
    """The record as a test case (Unfit: a conversation). The session_id (as ``id``) and the labels go in
    ``metadata``."""
    parts = parts_of(record)
    single_question(parts, "promptfoo")
    variables: JsonObject = {"query": parts.question}
    if parts.system is not None:
        variables["system"] = parts.system
    case: JsonObject = {"vars": variables}
    if parts.reference is not None:
        case["assert"] = [{"type": "equals", "value": parts.reference}]
    # "id", not "session_id": promptfoo shows a key named like a session or a token as [REDACTED]
    case["metadata"] = {"id": parts.session_id, **{k: v for k, v in parts.meta.items() if v is not None}}
    lost = common_losses(parts, position, holds=("session_id", "system"), meta_holds=tuple(parts.meta))
    return Written([case], lost)
