"""At most N checks at once, each in a worker thread the request can abandon at its time limit.

A check waits up to ``queue_wait`` seconds for a slot (then :class:`Busy`: 503 with Retry-After). It runs in
a thread of a pool of N; the request stops waiting for it after ``time_limit`` seconds (:class:`TimedOut`),
and its slot stays taken until the thread is done, so an abandoned check still counts against the N.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["Busy", "Gate", "TimedOut"]

T = TypeVar("T")


class Busy(Exception):
    """Every slot stayed taken for the whole wait."""


class TimedOut(Exception):
    """The check ran past the time limit; the answer is given up (the thread finishes on its own)."""


class Gate:
    def __init__(self, slots: int, queue_wait: float, time_limit: float) -> None:
        self.slots = slots
        self.queue_wait = queue_wait
        self.time_limit = time_limit
        self._pool = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="formatkit-check")
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._running = 0
        self._lock = threading.Lock()

    def semaphore(self) -> asyncio.Semaphore:
        """The slots, bound to the running event loop (a new loop, as each test has, gets its own)."""
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._semaphore, self._loop = asyncio.Semaphore(self.slots), loop
        return self._semaphore

    async def run(self, work: Callable[[], T]) -> T:
        """``work()`` in a worker thread once a slot is free; Busy or TimedOut as said above."""
        loop = asyncio.get_running_loop()
        semaphore = self.semaphore()
        if not semaphore.locked():
            await semaphore.acquire()  # a free slot: taken at once (wait_for with no wait would refuse it)
        elif self.queue_wait <= 0:
            raise Busy
        else:
            try:
                await asyncio.wait_for(semaphore.acquire(), self.queue_wait)
            except asyncio.TimeoutError:
                raise Busy from None
        try:
            future = self._pool.submit(self._guarded, work)
        except BaseException:
            semaphore.release()
            raise
        future.add_done_callback(lambda _: _release(loop, semaphore))
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), self.time_limit)
        except asyncio.TimeoutError:
            raise TimedOut from None

    def _guarded(self, work: Callable[[], T]) -> T:
        """``work()``, and the garbage collector on again once no check runs: a reader pauses it while it
        reads a sheet and restores what it found, which two readers in two threads can leave paused."""
        with self._lock:
            self._running += 1
        try:
            return work()
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0:
                    gc.enable()

    def close(self) -> None:
        """Stop taking checks; a running one finishes on its own."""
        self._pool.shutdown(wait=False, cancel_futures=True)


def _release(loop: asyncio.AbstractEventLoop, semaphore: asyncio.Semaphore) -> None:
    """The slot back, from the worker thread (nothing to give back to an event loop that has closed)."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(semaphore.release)
