"""From a canonical record to chat requests, and from replies back into the record (no I/O here).

- A response is *open* (to be sent) when it has no ``content`` and no score: a pending stub, or one that
  ended in ``error`` before (errors are retried; a retry clears the error).
- Each open response is one request (``n`` is never sent): usage stays exact per sample, every endpoint
  supports it, and one sample's failure or retry does not touch the others. With a ``seed`` in the
  parameters, sample ``i`` is sent ``seed + i`` so that samples differ yet stay reproducible.
- ``n`` samples are ``n`` response entries: a target turn not yet run that holds fewer pending stubs than
  its ``n`` (the record's own, else the command line's) gets more, copies of its last stub
  (:func:`expand_samples`); converted sets already hold one stub per sample.
- Parameters: the command-line defaults, overridden by the response's own ``parameters`` (the set wins).
  Normalised for strict servers: ``None`` values and an empty ``stop`` list are dropped, and
  ``top_logprobs`` is dropped unless ``logprobs`` is true (vLLM and OpenAI reject it alone).
- The record's ``parameters`` are never rewritten: they stay what the evaluation set asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from formatkit._core.record import (
    MessageDict,
    RecordDict,
    ResponseDict,
    is_empty,
    is_open,
    sample_parameters,
    target_turn,
)
from formatkit._core.record import pending_turns as open_turns
from scoring._client.health import too_long_for_context
from scoring._client.reply import ChatResult
from scoring._errors import (
    ForwardedRequestError,
    PermanentRequestError,
    RetriesExhaustedError,
    RetryableStatusError,
    error_kind,
)

__all__ = [
    "alias_model",
    "error_kind_of",
    "error_text",
    "expand_samples",
    "fail",
    "fill",
    "history",
    "is_empty",
    "is_open",
    "max_tokens_of",
    "open_turns",
    "request_params",
    "set_content",
]

_RESPONSE_ORDER = (
    "parameters",
    "model",
    "endpoint",
    "usage",
    "content",
    "reasoning_content",
    "finish_reason",
    "latency_ms",
    "ttft_ms",
    "logprobs",
)
_MESSAGE_ORDER = ("role", "content", "reference_response", "responses")


def _samples(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value < 1:
        return None
    return int(value)


def expand_samples(record: RecordDict, defaults: dict[str, object]) -> int:
    """Give the target turn one pending stub per sample (see the module docstring); how many were added.

    Only a turn whose responses are all still open (never filled) is expanded, and never beyond 16 (the
    parameter table's limit): a collected or half-run answer set is left as it is.
    """
    target = target_turn(record)
    if target is None:
        return 0
    responses = target.get("responses")
    if target.get("role") != "assistant" or not isinstance(responses, list) or not responses:
        return 0
    if not all(isinstance(r, dict) and is_open(r) for r in responses):
        return 0
    own = responses[0].get("parameters")
    wanted = _samples(own.get("n")) if isinstance(own, dict) and "n" in own else None
    if wanted is None:
        wanted = _samples(defaults.get("n")) or 1
    wanted = min(wanted, 16)
    added = 0
    while len(responses) < wanted:
        last = responses[-1].get("parameters")
        responses.append({"parameters": dict(last) if isinstance(last, dict) else {}})
        added += 1
    return added


def count_requests(record: RecordDict, *, redo_empty: bool = False) -> int:
    """How many requests the record needs (one per open response; and per empty one with ``redo_empty``)."""
    return sum(len(todo) for _, todo in open_turns(record, redo_empty=redo_empty))


def request_params(defaults: dict[str, object], own: dict[str, object] | None, sample: int = 0) -> dict[str, object]:
    """The parameters sent for sample ``sample`` of a response (see the module docstring): the defaults under
    the response's own, as :func:`formatkit._core.record.sample_parameters` says."""
    return sample_parameters({**defaults, **(own or {})}, sample)


def max_tokens_of(params: dict[str, object]) -> int | None:
    """The most output tokens a request with ``params`` (or a request body) may get; None when none is set."""
    for key in ("max_tokens", "max_completion_tokens", "max_new_tokens"):
        value = params.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def history(messages: list[MessageDict], upto: int) -> list[dict[str, str]]:
    """The OpenAI messages before index ``upto``; ValueError when one of them has no content."""
    out: list[dict[str, str]] = []
    for index, message in enumerate(messages[:upto]):
        content = message.get("content")
        if not isinstance(content, str):
            raise ValueError(f"message {index} ({message.get('role')}) has no content to send as history")
        out.append({"role": str(message["role"]), "content": content})
    return out


def _ordered(data: dict[str, object], order: tuple[str, ...]) -> dict[str, object]:
    head = {k: data[k] for k in order if k in data}
    head.update((k, v) for k, v in data.items() if k not in head)
    return head


def fill(
    response: ResponseDict,
    result: ChatResult,
    *,
    keep_logprobs: bool,
    model: str | None = None,
    endpoint: str | None = None,
) -> ResponseDict:
    """The response with the reply written in (canonical key order; a previous error removed), with the
    ``model`` that answered, the ``endpoint`` (base URL, no credentials) that served it, and how long the
    request that got the reply took: ``latency_ms`` (sent to the whole reply read) and, when streamed,
    ``ttft_ms`` (sent to the first piece of text)."""
    data: dict[str, object] = {k: v for k, v in response.items() if k not in ("error", "endpoint_id")}
    data.setdefault("parameters", {})
    if model is not None:
        data["model"] = model
    if endpoint is not None:
        data["endpoint"] = endpoint
    if result.usage is not None:
        data["usage"] = result.usage
    data["content"] = result.content
    if result.reasoning_content is not None:
        data["reasoning_content"] = result.reasoning_content
    if result.finish_reason is not None:
        data["finish_reason"] = result.finish_reason
    for key in ("latency_ms", "ttft_ms"):  # an earlier reply's timings go with it
        data.pop(key, None)
    if result.latency is not None:
        data["latency_ms"] = round(result.latency * 1000, 1)
    if result.ttft is not None:
        data["ttft_ms"] = round(result.ttft * 1000, 1)
    if keep_logprobs and result.logprobs is not None:
        data["logprobs"] = result.logprobs
    return cast(ResponseDict, _ordered(data, _RESPONSE_ORDER))


def alias_model(record: RecordDict) -> RecordDict:
    """Seed 001's ``endpoint_id`` read as ``model`` in every response that has no ``model`` (in place)."""
    messages: Sequence[Any] = record.get("messages") or ()
    for message in messages:
        if not isinstance(message, dict):
            continue
        for response in message.get("responses") or ():
            if isinstance(response, dict) and "endpoint_id" in response and response.get("model") is None:
                response["model"] = response.pop("endpoint_id")
    return record


def fail(response: ResponseDict, text: str) -> ResponseDict:
    """The response with ``error`` set (it stays open: a rerun retries it)."""
    data: dict[str, object] = {k: v for k, v in response.items() if k != "error"}
    data.setdefault("parameters", {})
    data["error"] = text
    return cast(ResponseDict, data)


def set_content(message: MessageDict, content: str) -> MessageDict:
    """An earlier assistant turn with its generated text as ``content`` (canonical key order)."""
    return cast(MessageDict, _ordered({**message, "content": content}, _MESSAGE_ORDER))


def error_text(exc: BaseException, scrub: Any = None) -> str:
    """``kind: detail`` for a response's ``error`` (kind as :func:`scoring._errors.error_kind`)."""
    if isinstance(exc, ForwardedRequestError):  # worded so by a worker process already
        return str(scrub(exc.text)) if scrub is not None else exc.text
    kind = error_kind(exc)
    if isinstance(exc, (PermanentRequestError, RetryableStatusError)):
        detail = exc.message
    elif isinstance(exc, RetriesExhaustedError) and isinstance(exc.cause, RetryableStatusError):
        detail = f"{exc.cause.message} (gave up after {exc.attempts} attempts)"
    elif isinstance(exc, RetriesExhaustedError):
        detail = str(exc).replace(" (after ", " (gave up after ")
    else:
        detail = str(exc) or type(exc).__name__
    text = f"{kind}: {detail}"
    if too_long_for_context(exc.cause if isinstance(exc, RetriesExhaustedError) else exc):
        text += (
            " [this record's own problem: its prompt, with the tokens asked for, does not fit the model's "
            "context; shorten it, lower max_tokens or use a model with a longer context]"
        )
    return str(scrub(text)) if scrub is not None else text


def error_kind_of(text: str) -> str:
    """The kind written at the front of an ``error`` by :func:`error_text` (``other`` when foreign)."""
    head, sep, _ = text.partition(":")
    return head if sep and head and " " not in head else "other"
