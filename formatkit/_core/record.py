"""The canonical record as every stage sees it: plain dicts, typed.

formatkit reads a file into canonical records, the runner fills their responses, the scorer and the judges
write results into them and the report reads them back. Each stage holds the very same ``dict`` that
``orjson.loads`` or the record builder made; the types below only name its shape for the type checker
(a ``TypedDict`` costs nothing at run time: no copy, no wrapper). The pydantic models of
:mod:`formatkit._core.models` stay the source of the shape and of ``schemas/record.schema.json``; these
types follow them key for key.

``meta``, ``usage`` and a response keep keys of their own at run time (the models allow them); a
``TypedDict`` cannot say so yet (PEP 728 is not in mypy), so such a key is read with ``.get()``, typed
``object``.

A record read from a results file is data someone else wrote: the helpers below read it as defensively
as the stages always have (a missing or malformed target turn is None or no responses, never an
exception), and they are the only place that knows the target turn is the last message. The ``judge`` entry
a judge writes into a response is typed, and read, in :mod:`formatkit._core.judge_entry`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, TypedDict, TypeVar, get_args

from formatkit._core.judge_entry import JudgeEntry

__all__ = [
    "SCORE_FIELDS",
    "JsonObject",
    "MessageDict",
    "MetaDict",
    "Parameters",
    "ReadSource",
    "RecordDict",
    "ResponseDict",
    "Role",
    "ScoreField",
    "SourceDict",
    "UsageDict",
    "is_empty",
    "is_open",
    "last_message",
    "pending_turns",
    "reference_of",
    "response_entries",
    "response_of",
    "sample_parameters",
    "score_entries",
    "target_responses",
    "target_turn",
]

#: A JSON object whose keys are not fixed: a request body, a judge's reply or verdict details, a JSON Schema,
#: a journal entry, an exported sheet's row.
JsonObject = dict[str, Any]
#: A response's sampling parameters (``temperature``, ``max_tokens``, ``n``, …), sent to the endpoint
#: as they are: their keys and values are checked by :mod:`formatkit._rules.parameters`, not typed here.
Parameters = dict[str, Any]

Role = Literal["system", "user", "assistant"]
#: The fields a scorer or a judge writes into a response (its score entry), cleared before a new result.
ScoreField = Literal[
    "score", "analysis", "metric", "answer", "settled", "unsettled_reason", "guessed", "matched_by", "partial_score"
]
#: The fields a scorer writes into a response, in order: replaced as a whole, never left stale.
SCORE_FIELDS: tuple[ScoreField, ...] = get_args(ScoreField)


class UsageDict(TypedDict, total=False):
    """Token usage as the endpoint reported it (extra keys such as reasoning tokens are kept)."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ResponseDict(TypedDict, total=False):
    """One sample of the model's answer: pending (``parameters`` only) → inferred (``content``, ``usage``,
    or ``error``) → scored (``score``, ``analysis`` and the fields programs read).

    Written records leave unset fields out, so only ``score`` (null with an ``analysis``: unscorable) and
    ``answer`` (null: the metric found none) are ever null."""

    parameters: Parameters
    usage: UsageDict
    content: str
    reasoning_content: str
    finish_reason: str
    latency_ms: float
    ttft_ms: float
    logprobs: Any
    score: float | None
    analysis: str
    metric: str
    answer: str | None
    settled: bool
    unsettled_reason: str
    guessed: bool
    matched_by: str
    partial_score: float
    model: str
    #: The base URL (no credentials) that served the reply.
    endpoint: str
    #: Seed 001's name for ``model`` (read as ``model`` by the runner).
    endpoint_id: str
    error: str
    #: What an LLM judge said: raw replies, verdicts, judge token usage; with a panel of judges, ``panel``
    #: holds each judge's own model, status, score, answer and rationale (:mod:`formatkit._core.judge_entry`).
    judge: JudgeEntry


class _MessageRole(TypedDict):
    role: Role


class MessageDict(_MessageRole, total=False):
    """A turn. The target turn (the last message, always ``assistant``) carries ``reference_response``
    and ``responses``; an earlier assistant turn the runner must generate has a pending ``responses`` stub.
    (A key the models allow as null is left out when a record is written, so none of these is ever None.)"""

    content: str
    reference_response: str
    responses: list[ResponseDict]


class SourceDict(TypedDict, total=False):
    """Where a record came from (``file`` always; ``sheet`` and ``rows`` or ``line``)."""

    file: str
    #: None only while a reader has not yet told the file's shape (never in a record).
    format: str | None
    sheet: str
    rows: list[int]
    line: int


class ReadSource(SourceDict, total=False):
    """Where a reader found a record, with the dataset it gives (the source of ``meta`` being built)."""

    dataset: str | None


class MetaDict(TypedDict, total=False):
    """Labels that are not part of the conversation (unknown keys are kept)."""

    dataset: str | None
    source: SourceDict
    dimension: str | None
    subject: str | None
    choices: list[str] | None
    aliases: list[str] | None
    checklist: str | list[str] | None
    question_type: str | None
    #: Excel cells whose value was read as a number where the sheet shows something else (by column).
    raw_values: dict[str, float | int]
    #: ``export``: the session_id a sheet could not hold, replaced by a number.
    original_session_id: int | str


class _RecordKeys(TypedDict):
    session_id: int | str
    messages: list[MessageDict]


class RecordDict(_RecordKeys, total=False):
    """One conversation to evaluate, in the canonical shape (docs/pages/reference/formats.md)."""

    #: Left out by ``convert --no-meta``; never null.
    meta: MetaDict


_T = TypeVar("_T")


def last_message(messages: Sequence[_T]) -> _T:
    """The last of a non-empty list of turns (of a record or of an input line still being read)."""
    return messages[-1]


def target_turn(record: Mapping[str, Any]) -> MessageDict | None:
    """The target turn (the last message), or None when the record has no messages or the last is no object."""
    messages = record.get("messages")
    if not isinstance(messages, list) or not messages:
        return None
    target: MessageDict = messages[-1]
    return target if isinstance(target, dict) else None


def target_responses(record: Mapping[str, Any]) -> list[ResponseDict]:
    """The target turn's responses, the record's own list (to fill in place); empty when there are none
    (or when they are not a list). Read per record by the scorer and the report: spelt out, not through
    :func:`target_turn`, to cost one call."""
    messages = record.get("messages")
    if isinstance(messages, list) and messages:
        target = messages[-1]
        if isinstance(target, dict):
            responses = target.get("responses")
            if isinstance(responses, list):
                return responses
    return []


def reference_of(record: Mapping[str, Any]) -> Any:
    """The target turn's ``reference_response`` as written (None when absent)."""
    messages = record.get("messages")
    if isinstance(messages, list) and messages:
        target = messages[-1]
        if isinstance(target, dict):
            return target.get("reference_response")
    return None


def response_entries(record: Mapping[str, Any]) -> list[ResponseDict]:
    """The target turn's responses that are JSON objects (a file written by hand may hold anything else),
    in a new list; empty when there are none."""
    messages = record.get("messages")
    if isinstance(messages, list) and messages:
        target = messages[-1]
        if isinstance(target, dict):
            responses: list[ResponseDict] = target.get("responses") or []
            return [r for r in responses if isinstance(r, dict)]
    return []


def response_of(record: Mapping[str, Any], model: str) -> ResponseDict | None:
    """The first of the target turn's responses that ``model`` gave, or None."""
    for response in target_responses(record):
        if isinstance(response, dict) and response.get("model") == model:
            return response
    return None


def score_entries(record: Mapping[str, Any]) -> list[ResponseDict]:
    """The target turn's responses a scorer has been over (they hold a ``score`` or an ``analysis``)."""
    return [r for r in target_responses(record) if isinstance(r, dict) and ("score" in r or "analysis" in r)]


def is_open(response: ResponseDict) -> bool:
    """True when the response still needs the endpoint: no content yet and not scored."""
    return response.get("content") is None and response.get("score") is None and response.get("analysis") is None


def is_empty(response: ResponseDict) -> bool:
    """A reply was received and its ``content`` is empty or blank (a reasoning model that only reasoned)."""
    content = response.get("content")
    return isinstance(content, str) and not content.strip()


def pending_turns(record: RecordDict, *, redo_empty: bool = False) -> Iterator[tuple[int, list[int]]]:
    """(message index, indexes of its open responses) for every assistant turn with work, in order;
    with ``redo_empty``, empty replies count as open too. Before the target turn, only the first open
    response counts (an earlier turn is generated once), and an earlier reply given as history has none."""
    for index, message in enumerate(record.get("messages") or []):
        if message.get("role") != "assistant":
            continue
        responses = message.get("responses") or []
        if index < len(record["messages"]) - 1 and message.get("content") is not None:
            continue  # an earlier reply given as history
        todo = [i for i, response in enumerate(responses) if is_open(response) or (redo_empty and is_empty(response))]
        if todo:
            yield index, todo[:1] if index < len(record["messages"]) - 1 else todo


def sample_parameters(params: Parameters, sample: int = 0) -> Parameters:
    """The parameters sent for sample ``sample`` of a response whose parameters are ``params`` (the run's
    defaults under the response's own): ``n`` left out (one request per sample), unset values, an empty
    ``stop`` and ``top_logprobs`` without ``logprobs`` dropped, and a later sample's ``seed`` moved on by its
    number (samples that differ). ``run`` sends these, and a batch file (``convert --to openai-batch``) holds them."""
    sent = {k: v for k, v in params.items() if v is not None and k != "n"}
    if sent.get("stop") == []:
        del sent["stop"]
    if not sent.get("logprobs"):
        sent.pop("top_logprobs", None)
    seed = sent.get("seed")
    if sample and isinstance(seed, int) and not isinstance(seed, bool):
        sent["seed"] = seed + sample
    return sent
