"""A chat completion reply (the non-streamed JSON body) read into :class:`ChatResult` objects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from scoring._errors import MalformedResponseError

__all__ = ["ChatResult", "parse_completion", "refused_counts", "usage_counts"]

_MAX_MESSAGE = 500


@dataclass
class ChatResult:
    """One choice of a chat completion."""

    content: str
    reasoning_content: str | None
    finish_reason: str | None
    usage: dict[str, int] | None
    logprobs: Any | None
    #: Seconds from sending the request to the whole reply read, and (streamed) to its first piece of
    #: text; set by the client for the attempt that succeeded. ``first_piece_at``: the monotonic clock
    #: when the first piece arrived (the stream folder's note, from which ``ttft`` is made).
    latency: float | None = None
    ttft: float | None = None
    first_piece_at: float | None = None
    #: The counts the server sent below zero (``completion_tokens=-5``), left out of ``usage``: unknown,
    #: never added into a total; the client notes them once.
    refused_usage: str | None = None
    #: The public base URL of the endpoint that answered, when a pool of several chose it
    #: (:mod:`scoring._client.pool`); None: the client's own.
    endpoint: str | None = None


def parse_completion(raw: bytes) -> list[ChatResult]:
    """The choices of a ``chat.completion`` body, in choice order; MalformedResponseError when it is not one."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise MalformedResponseError(f"response body is not JSON ({len(raw)} bytes): {exc}") from exc
    if not isinstance(data, dict):
        raise MalformedResponseError("response body is not a JSON object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        error = data.get("error")
        hint = f": {error}" if error else ""
        raise MalformedResponseError(f"response has no choices{hint}"[:_MAX_MESSAGE])
    usage = usage_counts(data.get("usage"))
    refused = refused_counts(data.get("usage"))
    results: list[tuple[int, ChatResult]] = []
    for position, choice in enumerate(choices):
        if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
            raise MalformedResponseError(f"choice {position} has no message")
        message = choice["message"]
        content = message.get("content")
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise MalformedResponseError(f"choice {position} content is not text")
        reasoning = message.get("reasoning_content")
        if reasoning is None:
            reasoning = message.get("reasoning")
        finish = choice.get("finish_reason")
        index = choice.get("index")
        results.append(
            (
                index if isinstance(index, int) else position,
                ChatResult(
                    content=content,
                    reasoning_content=reasoning if isinstance(reasoning, str) else None,
                    finish_reason=finish if isinstance(finish, str) else None,
                    usage=usage,
                    logprobs=choice.get("logprobs"),
                    refused_usage=refused,
                ),
            )
        )
    results.sort(key=lambda pair: pair[0])
    return [result for _, result in results]


def usage_counts(raw: Any) -> dict[str, int] | None:
    """Integer counts; nested details (``completion_tokens_details.reasoning_tokens``) are flattened. A
    count below zero is no count: it is left out (unknown), never added into a total, and so is the
    ``total_tokens`` made with it (:func:`refused_counts` names them)."""
    if not isinstance(raw, dict):
        return None
    usage: dict[str, int] = {}
    negative = False
    for key, value in raw.items():
        if isinstance(value, int) and not isinstance(value, bool):
            if value >= 0:
                usage[key] = value
            else:
                negative = True
        elif isinstance(value, dict):
            for inner, count in value.items():
                if isinstance(count, int) and not isinstance(count, bool) and count >= 0 and inner not in usage:
                    usage[inner] = count
    if negative:  # a total made with a count below zero is no total either
        usage.pop("total_tokens", None)
    return usage or None


def refused_counts(raw: Any) -> str | None:
    """The counts of a usage object below zero, as ``name=value`` (``completion_tokens=-5``); None when none is."""
    if not isinstance(raw, dict):
        return None
    refused = [
        f"{key}={value}"
        for key, value in raw.items()
        if isinstance(value, int) and not isinstance(value, bool) and value < 0
    ]
    refused += [
        f"{key}.{inner}={count}"
        for key, value in raw.items()
        if isinstance(value, dict)
        for inner, count in value.items()
        if isinstance(count, int) and not isinstance(count, bool) and count < 0
    ]
    return ", ".join(refused) or None
