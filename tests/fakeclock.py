"""A clock for the client's pacing (backoff, rate-limit pauses, ``rpm``) that moves only when slept on.

A test sets it on a client (``client.clock = FakeClock()``, or on ``ChatClient`` itself for a command run
through the CLI) and then counts the waits instead of sitting through them: ``sleeps`` holds every wait
asked, ``wakes`` the time each one ends. So a test says "the client waited 0.3 s, once" on any machine,
however loaded, and takes no time doing it.

A sleep moves the clock to its end once the sleeper runs again (an awaited ``asyncio.sleep(0)``: the other
tasks see the time before it meanwhile). With ``hold`` set to an :class:`asyncio.Event`, sleepers wait for
that event instead: a test can look at what happens during a pause, then end it (``hold.set()``).
"""

from __future__ import annotations

import asyncio

from scoring._client.pacing import Clock

__all__ = ["FakeClock"]


class FakeClock(Clock):
    def __init__(self, start: float = 1000.0) -> None:
        self.time = start
        self.sleeps: list[float] = []
        self.wakes: list[float] = []
        self.hold: asyncio.Event | None = None

    def now(self) -> float:
        return self.time

    async def sleep(self, seconds: float) -> None:
        wake = self.time + seconds
        self.sleeps.append(seconds)
        self.wakes.append(wake)
        if self.hold is not None:
            await self.hold.wait()
        else:
            await asyncio.sleep(0)
        self.time = max(self.time, wake)
