"""EvalScope's custom question-answering set (``general_qa``): one jsonl line per question.

Its fields, as EvalScope's ``general_qa`` adapter reads them: ``query`` (or ``question``) the question,
``response`` (or ``answer``) the reference, optional ``system``; or ``messages`` (a list of
``{"role", "content"}``) in place of ``system`` and ``query``. Any other key is not read by EvalScope.
It holds no session_id, parameters, model replies or labels.
"""

from __future__ import annotations

from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.record import JsonObject, RecordDict
from formatkit._rules.jsonl import report_type
from formatkit._rules.shapes.common import Written, common_losses, conversation, extra_labels, parts_of, read_text

__all__ = ["EXAMPLE", "read_line", "write_record"]

EXAMPLE = '{"system": ..., "query": ..., "response": ...}'

_KNOWN = ("query", "question", "response", "answer", "system", "messages")


def read_line(value: JsonObject, line: int, sink: IssueSink) -> JsonObject | None:
    """One line of a general_qa file as formatkit's jsonl line; None (reported) when it cannot be."""
    query_key = "query" if "query" in value or "question" not in value else "question"
    answer_key = "response" if "response" in value or "answer" not in value else "answer"
    answer = read_text(value, answer_key, line, sink)
    out: JsonObject = {}
    messages = value.get("messages")
    if messages is not None:
        if not isinstance(messages, list):
            report_type(line, "messages", Msg("frag.expect.messages"), messages, sink)
            return None
        out["messages"] = messages
    else:
        if value.get(query_key) is None:
            sink.add("missing_field", Msg("missing_field", name="query"), line=line, field="query")
            return None
        query = read_text(value, query_key, line, sink)
        system = read_text(value, "system", line, sink)
        if query is None or ("system" in value and value["system"] is not None and system is None):
            return None
        out["prompt"] = query
        if system is not None:
            out["system"] = system
    if answer is None and value.get(answer_key) is not None:
        return None
    if answer is not None and answer != "":
        out["answer"] = answer
    labels = extra_labels(value, _KNOWN)
    if labels:
        out["meta"] = labels
    return out


def write_record(record: RecordDict, position: int, options: dict[str, str]) -> Written:
    """The record as a general_qa line: ``system``/``query`` for one question, ``messages`` for a
    conversation; ``response`` the reference (left out when there is none)."""
    parts = parts_of(record)
    line: JsonObject = {}
    if parts.history:
        line["messages"] = conversation(parts, "evalscope-qa")
    else:
        if parts.system is not None:
            line["system"] = parts.system
        line["query"] = parts.question
    if parts.reference is not None:
        line["response"] = parts.reference
    return Written([line], common_losses(parts, position, holds=("system",)))
