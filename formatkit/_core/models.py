"""The canonical record: one conversation, its target turn, and the responses to it.

Every stage of formatkit reads and writes this shape (docs/pages/reference/formats.md, "The canonical record")::

    {"session_id": 0,
     "messages": [{"role": "system", "content": "..."},
                  {"role": "user", "content": "..."},
                  {"role": "assistant", "reference_response": "...",
                   "responses": [{"parameters": {...}, "usage": {...}, "content": "...",
                                  "score": 2.0, "analysis": "...", "error": null}]}],
     "meta": {...}}

The models are the single source of truth for the shape: ``schemas/`` is generated from them.
Unset optional fields are left out when a record is written (:func:`record_to_dict`), so a pending
response is exactly ``{"parameters": {...}}`` as the seed shows.
"""

from __future__ import annotations

from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field

from formatkit._core.record import JsonObject, RecordDict, Role, last_message

__all__ = [
    "Message",
    "Meta",
    "Record",
    "Response",
    "Role",
    "SourceLocation",
    "Usage",
    "record_to_dict",
]


class Usage(BaseModel):
    """Token usage as the endpoint reported it (extra keys such as reasoning tokens are kept)."""

    model_config = ConfigDict(extra="allow")

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None


class Response(BaseModel):
    """One sample of the model's answer to the target turn.

    Stages: pending (only ``parameters``) → inferred (``content`` and ``usage``, or ``error``)
    → scored (``score`` and ``analysis``; ``score`` null with an ``analysis`` when unscorable).
    """

    model_config = ConfigDict(extra="allow")

    parameters: dict[str, object] = Field(default_factory=dict)
    usage: Usage | None = None
    content: str | None = None
    reasoning_content: str | None = None
    finish_reason: str | None = None
    latency_ms: float | None = Field(
        default=None,
        description="Milliseconds from sending the request that got this reply to the whole reply read.",
    )
    ttft_ms: float | None = Field(
        default=None, description="Streamed replies: milliseconds from sending the request to its first piece of text."
    )
    logprobs: Any | None = None
    score: float | None = None
    analysis: str | None = Field(
        default=None, description="Why the score is what it is, for people; programs read the fields below."
    )
    metric: str | None = Field(
        default=None,
        description="The metric that scored this response: a name of scoring's metric table (`formatkit score"
        " --help` lists them), or a custom module:function.",
    )
    answer: str | None = Field(
        default=None, description="What the metric read from the reply as its answer; null when it found none."
    )
    settled: bool | None = Field(
        default=None, description="False when the metric could not decide the comparison (see unsettled_reason)."
    )
    unsettled_reason: str | None = Field(
        default=None, description="Why the comparison was not settled (time limit, unparseable)."
    )
    guessed: bool | None = Field(
        default=None, description="True when the answer was taken from the last sentence, with no explicit commitment."
    )
    partial_score: float | None = Field(
        default=None,
        description="Partial credit beside an all-or-nothing score (the keywords metric: the share of keywords found).",
    )
    model: str | None = Field(default=None, description="The model that produced this response.")
    error: str | None = None
    judge: JsonObject | None = Field(
        default=None,
        description="What an LLM judge said: raw replies, verdicts, judge token usage; with a panel of judges, "
        "panel holds each judge's own model, status, score, answer and rationale.",
    )


class Message(BaseModel):
    """A turn of the conversation.

    ``system``/``user`` turns and earlier assistant replies carry ``content``. The target turn (the
    last message, always ``assistant``) carries ``reference_response`` and ``responses``. An earlier
    assistant turn that the runner must generate has no ``content`` and a pending ``responses`` stub.
    """

    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str | None = None
    reference_response: str | None = None
    responses: list[Response] | None = None


class SourceLocation(BaseModel):
    """Where a record came from, so a later error can be pointed back at its cell or line."""

    model_config = ConfigDict(extra="allow")

    file: str
    format: str | None = None
    sheet: str | None = None
    rows: list[int] | None = Field(default=None, description="Excel row numbers, as Excel shows them.")
    line: int | None = Field(default=None, description="1-based jsonl line number.")


class Meta(BaseModel):
    """Labels that are not part of the conversation. Unknown keys are kept."""

    model_config = ConfigDict(extra="allow")

    dataset: str | None = None
    source: SourceLocation | None = None
    dimension: str | None = None
    subject: str | None = None
    choices: list[str] | None = None
    aliases: list[str] | None = None
    checklist: str | list[str] | None = None
    question_type: str | None = None


class Record(BaseModel):
    """One conversation to evaluate, in the canonical shape."""

    model_config = ConfigDict(extra="forbid")

    session_id: int | str
    messages: list[Message] = Field(min_length=2)
    meta: Meta | None = None

    @property
    def target(self) -> Message:
        """The target assistant turn (the last message)."""
        return last_message(self.messages)

    def to_dict(self) -> RecordDict:
        return record_to_dict(self)


def _drop_none(data: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in data.items() if v is not None}


def _response_to_dict(response: Response) -> dict[str, object]:
    data = response.model_dump(mode="json", exclude_none=True)
    if response.score is None and response.analysis is not None:
        # An unscorable response says so: score stays visible as null next to its reason.
        ordered: dict[str, object] = {}
        for key, value in data.items():
            if key == "analysis":
                ordered["score"] = None
            ordered[key] = value
        data = ordered
    return data


def record_to_dict(record: Record) -> RecordDict:
    """The record as plain JSON data, in canonical key order, unset fields left out."""
    messages: list[dict[str, object]] = []
    for message in record.messages:
        item = _drop_none(
            {"role": message.role, "content": message.content, "reference_response": message.reference_response}
        )
        if message.responses is not None:
            item["responses"] = [_response_to_dict(r) for r in message.responses]
        messages.append(item)
    out: dict[str, object] = {"session_id": record.session_id, "messages": messages}
    if record.meta is not None:
        out["meta"] = record.meta.model_dump(mode="json", exclude_none=True)
    return cast(RecordDict, out)
