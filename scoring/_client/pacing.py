"""Pacing of requests: exponential backoff with full jitter, ``Retry-After``, and a requests-per-minute limit."""

from __future__ import annotations

import asyncio
import random
import time
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

__all__ = ["RateLimiter", "backoff_delay", "parse_retry_after"]


def backoff_delay(attempt: int, *, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Full jitter: uniform in [0, min(cap, base * 2**attempt)] (attempt counts from 0)."""
    ceiling = min(cap, base * (2.0 ** min(attempt, 32)))
    return (rng or random).uniform(0.0, ceiling)


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


class RateLimiter:
    """Spaces request starts evenly so that at most ``rpm`` start in any minute (no bursts)."""

    def __init__(self, rpm: float) -> None:
        if rpm <= 0:
            raise ValueError("rpm must be positive")
        self.interval = 60.0 / rpm
        self._next = 0.0

    async def acquire(self) -> None:
        now = time.monotonic()
        slot = max(now, self._next)
        self._next = slot + self.interval
        if slot > now:
            await asyncio.sleep(slot - now)
