"""Ctrl-C and SIGTERM during a run: the replies already paid for land in the journal, then the run stops.

The first signal stops new requests (every request not yet sent fails at once with
:class:`~scoring._errors.RequestNotSent`, which leaves its response open) and gives the requests in flight
``grace`` seconds to finish, so what they bring is journaled; a second signal, or the end of the grace,
leaves at once (what is still in flight is lost: a rerun sends it again). The caller then raises
``KeyboardInterrupt`` (Ctrl-C) or :class:`~scoring._errors.RunInterrupted` (SIGTERM), as before.

    stop = GracefulStop()
    result = asyncio.run(stop.guard(main(), clients))   # raises stop.Stopped when a signal came
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeVar

from scoring._errors import RequestNotSent, RunInterrupted

__all__ = ["GRACE", "GracefulStop", "Stopped"]

#: Seconds the requests in flight get to land after the first Ctrl-C or SIGTERM.
GRACE = 10.0

_T = TypeVar("_T")


class _Client(Protocol):
    @property
    def in_flight(self) -> int: ...

    def stop_sending(self) -> None: ...

    def on_notice(self, text: str) -> None: ...


class Stopped(Exception):
    """A signal stopped the run (raised out of :meth:`GracefulStop.guard`); see :meth:`GracefulStop.error`."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"stopped by signal {signum}")


class GracefulStop:
    """Installs the SIGINT and SIGTERM handlers of one run (main thread only; elsewhere it does nothing)."""

    def __init__(self, grace: float = GRACE) -> None:
        self.grace = grace
        self.received: list[int] = []
        self.clients: list[_Client] = []
        self.on_stop: list[Callable[[], None]] = []

    def watch(self, client: _Client) -> None:
        """A client to stop sending on the first signal (one that appears after ``guard`` began too)."""
        self.clients.append(client)
        if self.received:
            client.stop_sending()

    async def guard(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run ``coro`` under the handlers; :class:`Stopped` when a signal came (after the grace)."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        installed: dict[int, Any] = {}
        if threading.current_thread() is threading.main_thread() and task is not None:
            for signum in (signal.SIGINT, signal.SIGTERM):
                previous = signal.getsignal(signum)
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # Windows
                    loop.add_signal_handler(signum, self._signal, signum, task, loop)
                    installed[signum] = previous
        try:
            result = await coro
        except (asyncio.CancelledError, RequestNotSent):
            if not self.received:
                raise
            cancelling = getattr(task, "cancelling", None)  # Python 3.11+: cancellations are counted
            if cancelling is not None and cancelling():
                task.uncancel()  # type: ignore[union-attr]
            raise Stopped(self.received[0]) from None
        finally:
            for number, previous in installed.items():
                loop.remove_signal_handler(number)
                with contextlib.suppress(TypeError, ValueError):
                    signal.signal(number, previous)
        if self.received:
            raise Stopped(self.received[0])
        return result

    def _signal(self, signum: int, task: asyncio.Task[Any], loop: asyncio.AbstractEventLoop) -> None:
        self.received.append(signum)
        if len(self.received) > 1:
            task.cancel()  # the second Ctrl-C: leave now
            return
        in_flight = sum(client.in_flight for client in self.clients)
        for client in self.clients:
            client.stop_sending()
        for callback in self.on_stop:
            callback()
        name = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
        if self.clients:
            self.clients[0].on_notice(
                f"stopping ({name}): no new request is sent; waiting up to {self.grace:g} s for the "
                f"{in_flight} request(s) in flight, so that what they bring is journaled (Ctrl-C again to "
                "leave at once)"
            )
        loop.call_later(self.grace, task.cancel)

    @staticmethod
    def error(stopped: Stopped) -> BaseException:
        """What the caller raises: ``KeyboardInterrupt`` for Ctrl-C, :class:`RunInterrupted` otherwise."""
        return KeyboardInterrupt() if stopped.signum == signal.SIGINT else RunInterrupted(stopped.signum)
