"""OpenAI's Batch API files (the ``/v1/batches`` endpoint; Volcengine Ark and others take the same lines).

A request file holds one line per request: ``custom_id`` (unique in the file), ``method`` ``POST``,
``url`` ``/v1/chat/completions`` and ``body`` the chat completion request (``model``, ``messages``, the
sampling parameters). formatkit writes one request per pending turn, as ``run`` would send it: each
sample of the target turn (``n`` of them) a request of its own, an earlier assistant turn still to be
generated only once its history is complete (a second batch asks the turn after it). The ``custom_id``
says which record (its position in the set), which turn and which sample, and carries a digest of the
record's session_id, so the replies are written back into the right record of the right set.

A results file holds one line per request: ``custom_id``, ``response`` (``status_code`` and ``body``, the
chat completion) or ``error`` (``code``, ``message``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

import orjson

from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.record import JsonObject, Parameters, RecordDict, last_message, pending_turns, sample_parameters
from formatkit._rules.jsonl import report_type
from formatkit._rules.shapes.common import Written, common_losses, parts_of, require

__all__ = [
    "EXAMPLE",
    "URL",
    "BatchReply",
    "CustomId",
    "custom_id",
    "expand_samples",
    "parse_custom_id",
    "read_line",
    "read_reply",
    "write_record",
]

EXAMPLE = '{"custom_id": ..., "method": "POST", "url": "/v1/chat/completions", "body": {"model": ..., ...}}'

URL = "/v1/chat/completions"

#: Parameters the request's own fields stand for, or that the batch endpoint decides (one reply per request).
_NOT_SENT = ("n", "stream", "stream_options")


@dataclass(frozen=True)
class CustomId:
    """What a custom_id says: the record's position in the set, the turn (message index), the sample."""

    position: int
    message: int
    sample: int
    digest: str


_CUSTOM_ID = re.compile(r"fk-(\d+)-(\d+)-(\d+)-([0-9a-f]{8})")


def session_digest(record: RecordDict) -> str:
    """Eight hex digits of the record's session_id and dataset: a reply read back into another set, or
    into a set whose records were reordered, does not land in the wrong record."""
    meta = record.get("meta") or {}
    key = orjson.dumps([record.get("session_id"), meta.get("dataset")])
    return hashlib.sha1(key).hexdigest()[:8]


def custom_id(record: RecordDict, position: int, message: int, sample: int) -> str:
    return f"fk-{position}-{message}-{sample}-{session_digest(record)}"


def parse_custom_id(text: str) -> CustomId | None:
    found = _CUSTOM_ID.fullmatch(text)
    if found is None:
        return None
    return CustomId(int(found[1]), int(found[2]), int(found[3]), found[4])


def expand_samples(record: RecordDict) -> None:
    """Give a target turn whose responses are all pending one stub per sample its ``n`` asks for (at most
    16, as the parameter table allows), as ``run`` does before it asks (in place)."""
    target = last_message(record["messages"])
    responses = target.get("responses")
    if not responses or any(set(r) - {"parameters"} for r in responses):
        return
    wanted = responses[0].get("parameters", {}).get("n")
    if isinstance(wanted, bool) or not isinstance(wanted, int) or wanted < 2:
        return
    while len(responses) < min(wanted, 16):
        responses.append({"parameters": dict(responses[-1].get("parameters") or {})})


def request_parameters(own: Parameters | None, sample: int) -> Parameters:
    """The parameters sent for one sample, as ``run`` sends them: ``n`` left out (a request per sample),
    unset values, an empty ``stop`` and ``top_logprobs`` without ``logprobs`` dropped, and each later
    sample's ``seed`` moved on by its number (samples that differ)."""
    return sample_parameters({k: v for k, v in (own or {}).items() if k not in _NOT_SENT}, sample)


def write_record(record: RecordDict, position: int, options: dict[str, str]) -> Written:
    """One request line per pending turn of the record (none when it has nothing pending). The reference
    and the labels stay in the set, which reads the replies back: the batch file lists them as not held."""
    expand_samples(record)
    parts = parts_of(record)
    messages = record["messages"]
    lines: list[JsonObject] = []
    for index, samples in pending_turns(record):
        history = messages[:index]
        if any(m.get("content") is None for m in history):
            break  # a turn before it is still to be generated: a later batch asks this one
        chat = [{"role": m["role"], "content": m.get("content")} for m in history]
        for sample in samples:
            own = messages[index]["responses"][sample].get("parameters")
            body: JsonObject = {"model": options.get("model", ""), "messages": chat}
            body.update(request_parameters(own, sample))
            request_id = custom_id(record, position, index, sample)
            lines.append({"custom_id": request_id, "method": "POST", "url": URL, "body": body})
    lost = common_losses(parts, position, holds=("system", "parameters"))
    if parts.reference is not None:
        lost.append("reference_response")
    return Written(lines, lost)


def read_line(value: JsonObject, line: int, sink: IssueSink) -> JsonObject | None:
    """One request line as formatkit's jsonl line (its custom_id the session_id, its model a label);
    None (reported) when it cannot be."""
    if not require(value, "custom_id", line, sink) or not require(value, "body", line, sink):
        return None
    body = value["body"]
    if not isinstance(body, dict):
        report_type(line, "body", Msg("frag.expect.object"), body, sink)
        return None
    if body.get("messages") is None:
        sink.add("missing_field", Msg("missing_field", name="body.messages"), line=line, field="body.messages")
        return None
    out: JsonObject = {"session_id": value["custom_id"], "messages": body["messages"]}
    parameters = {k: v for k, v in body.items() if k not in ("model", "messages")}
    if parameters:
        out["parameters"] = parameters
    if isinstance(body.get("model"), str) and body["model"]:
        out["meta"] = {"model": body["model"]}
    return out


@dataclass
class BatchReply:
    """One line of a results file: the request it answers and what came back (a reply or an error)."""

    custom_id: str
    content: str | None = None
    reasoning_content: str | None = None
    finish_reason: str | None = None
    usage: JsonObject | None = None
    model: str | None = None
    error: str | None = None


def _error_text(status: Any, body: Any) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    detail = error.get("message") if isinstance(error, dict) else None
    return f"http {status}: {detail}" if detail else f"http {status}"


def read_reply(value: JsonObject, line: int, sink: IssueSink) -> BatchReply | None:
    """One line of a results file; None (reported at the line and field) when it says nothing usable."""
    if not require(value, "custom_id", line, sink):
        return None
    cid = value["custom_id"]
    if not isinstance(cid, str):
        report_type(line, "custom_id", Msg("frag.expect.text"), cid, sink)
        return None
    reply = BatchReply(cid)
    error, response = value.get("error"), value.get("response")
    if isinstance(error, dict):
        reply.error = f"batch: {error.get('code') or 'error'}: {error.get('message') or ''}".rstrip(": ")
        return reply
    if not isinstance(response, dict):
        sink.add("missing_field", Msg("missing_field", name="response"), line=line, field="response")
        return None
    status, body = response.get("status_code"), response.get("body")
    if status != 200:
        reply.error = _error_text(status, body)
        return reply
    choices = body.get("choices") if isinstance(body, dict) else None
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    message = first.get("message") if first is not None else None
    if not isinstance(message, dict) or not isinstance(message.get("content"), (str, type(None))):
        report_type(line, "response.body.choices", Msg("frag.expect.list"), choices, sink)
        return None
    assert isinstance(body, dict) and first is not None
    reply.content = message.get("content") or ""
    if isinstance(message.get("reasoning_content"), str):
        reply.reasoning_content = message["reasoning_content"]
    if isinstance(first.get("finish_reason"), str):
        reply.finish_reason = first["finish_reason"]
    if isinstance(body.get("usage"), dict):
        reply.usage = {k: v for k, v in body["usage"].items() if not (isinstance(v, int) and v < 0)}
    if isinstance(body.get("model"), str):
        reply.model = body["model"]
    return reply
