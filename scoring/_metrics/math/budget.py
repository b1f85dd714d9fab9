"""The per-item time limit of the math metric: one deadline for extraction, normalisation and comparison.

:func:`score_math` opens a budget for each item; the comparison steps call :func:`check`, which raises
:class:`TimeLimit` once the deadline has passed, and the sympy worker is given at most what is left.
The item is then reported ``settled: false`` with the reason. A context variable keeps concurrent items
(threads) apart.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["TimeLimit", "budget", "check", "extend", "remaining"]

_DEADLINE: ContextVar[float | None] = ContextVar("formatkit_math_deadline", default=None)


class TimeLimit(Exception):
    """The item's time limit passed before its comparison was decided."""


@contextmanager
def budget(seconds: float) -> Iterator[None]:
    """Run the block under a deadline ``seconds`` from now (nested budgets keep the earlier deadline)."""
    deadline = time.monotonic() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set(deadline if outer is None else min(outer, deadline))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check() -> None:
    """Raise :class:`TimeLimit` when the current item's deadline has passed."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() > deadline:
        raise TimeLimit


def remaining() -> float | None:
    """Seconds left for the current item (None outside a budget)."""
    deadline = _DEADLINE.get()
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def extend(seconds: float) -> None:
    """Push the current deadline back (a sympy worker's start-up is not the item's time)."""
    deadline = _DEADLINE.get()
    if deadline is not None and seconds > 0:
        _DEADLINE.set(deadline + seconds)
