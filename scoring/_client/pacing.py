"""Pacing of requests: backoff with jitter, the server's own waits (``Retry-After`` and the rate-limit
headers of OpenAI, Azure and LiteLLM), and a requests-per-minute limit."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Mapping
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import NamedTuple

__all__ = [
    "Clock",
    "RateLimiter",
    "ServerWait",
    "asked_wait",
    "backoff_delay",
    "parse_duration",
    "parse_retry_after",
    "rate_limit_delay",
    "server_wait",
]


def backoff_delay(attempt: int, *, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Full jitter: uniform in [0, min(cap, base * 2**attempt)] (attempt counts from 0)."""
    ceiling = min(cap, base * (2.0 ** min(attempt, 32)))
    return (rng or random).uniform(0.0, ceiling)


def rate_limit_delay(attempt: int, *, base: float, cap: float, rng: random.Random | None = None) -> float:
    """After a 429 that did not say how long: "equal jitter", at least half of min(cap, base * 2**attempt),
    so a rate-limited request always waits, and longer than after a 5xx."""
    ceiling = min(cap, base * (2.0 ** min(attempt, 32)))
    return ceiling / 2 + (rng or random).uniform(0.0, ceiling / 2)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date; None when absent or bad."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        current = datetime.now(timezone.utc).timestamp() if now is None else now
        seconds = when.timestamp() - current
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_duration(value: str | None) -> float | None:
    """Seconds in an ``x-ratelimit-reset-*`` value: ``2s``, ``1m30s``, ``6ms``, ``0.5s``, ``1h2m``, or a
    bare number of seconds; None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip().lower()
    if not text:
        return None
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    total = 0.0
    end = 0
    for match in _DURATION.finditer(text):
        if match.start() != end:
            return None
        end = match.end()
        total += float(match.group(1)) * _UNIT[match.group(2)]
    return total if end == len(text) and end else None


class ServerWait(NamedTuple):
    """How long the server asked to wait, and the header that said it (``retry-after: 99999``)."""

    seconds: float
    said: str


def asked_wait(headers: Mapping[str, str]) -> ServerWait | None:
    """The wait the server asked for, from whichever header it sent (None: it did not say); ``seconds``
    is 0 for a wait of 0 or less or a date in the past (see :func:`server_wait`).

    ``retry-after-ms`` / ``llm_provider-retry-after-ms`` (milliseconds), ``Retry-After`` /
    ``llm_provider-retry-after`` (seconds or an HTTP date; LiteLLM forwards its backend's headers with the
    ``llm_provider-`` prefix), else ``x-ratelimit-reset-requests`` / ``-tokens`` (``1m30s``): the one whose
    ``x-ratelimit-remaining-*`` is 0, or the longer of the two when the server does not say which ran out.
    """
    for prefix in ("", "llm_provider-"):
        for name, unit in ((prefix + "retry-after-ms", 1000.0), (prefix + "retry-after", 1.0)):
            raw = headers.get(name)
            seconds = parse_retry_after(raw)
            if seconds is not None and raw is not None:
                return ServerWait(seconds / unit, f"{name}: {raw.strip()[:60]}")
    for prefix in ("", "llm_provider-"):
        resets: dict[str, tuple[float, str]] = {}
        for kind in ("requests", "tokens"):
            name = f"{prefix}x-ratelimit-reset-{kind}"
            reset = parse_duration(headers.get(name))
            if reset is not None:
                resets[kind] = (reset, f"{name}: {(headers.get(name) or '').strip()[:60]}")
        if not resets:
            continue
        spent = [k for k in resets if (headers.get(f"{prefix}x-ratelimit-remaining-{k}") or "").strip() == "0"]
        seconds, said = max(resets[k] for k in (spent or resets))
        return ServerWait(seconds, said)
    return None


def server_wait(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asked us to wait (:func:`asked_wait`); None when it did not say, or said 0 or
    less (a wait of nothing is no instruction: the client's own backoff applies, never a hot loop)."""
    asked = asked_wait(headers)
    return asked.seconds if asked is not None and asked.seconds > 0 else None


class Clock:
    """The time pacing reads and waits: the monotonic clock and :func:`asyncio.sleep`. A test hands the
    client a fake one (``client.clock = ...``) to count the waits instead of sitting through them."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class RateLimiter:
    """Spaces request starts evenly so that at most ``rpm`` start in any minute (no bursts)."""

    def __init__(self, rpm: float) -> None:
        if rpm <= 0:
            raise ValueError("rpm must be positive")
        self.interval = 60.0 / rpm
        self._next = 0.0

    async def acquire(self, clock: Clock = Clock()) -> None:
        now = clock.now()
        slot = max(now, self._next)
        self._next = slot + self.interval
        if slot > now:
            await clock.sleep(slot - now)
