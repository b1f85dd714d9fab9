"""The inference runner: fills the open responses of canonical records through a :class:`ChatClient`.

A record is worked turn by turn. An earlier assistant turn left empty (no ``content``, a pending stub) is
generated first, in order, and its text becomes the history of the next turn (the message gets
``content``; its filled ``responses`` entry stays). The samples of the target turn are sent concurrently,
one request each, one response entry per sample: ``n`` (the record's own, else the default) entries
(see :mod:`scoring._runner.requests`). Failures become the response's ``error``; when an
earlier turn fails, the later open turns get a ``skipped`` error (nothing to build their history from).
Only :class:`EndpointUnavailableError` escapes: the endpoint is gone and the run must stop.

Every filled response records the ``model`` that answered and the ``endpoint`` (base URL, no credentials).
An empty reply (blank ``content``, e.g. a reasoning model that spent its budget reasoning) is asked again
up to ``retry_empty`` times; if it stays empty it is kept as it is (and counted by the run's summary),
but an empty earlier turn is never used as history: the later turns get a ``skipped`` error saying so.

    async with ChatClient(url, model) as client:
        runner = Runner(client, defaults={"temperature": 0})
        outcome = await runner.run_record(record)      # fills ``record`` in place
        async for position, record, outcome in runner.run_many(records):   # bounded, any order
            ...

File-level work (journal, resume, the final output) lives in :mod:`scoring._runner.job`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field

from formatkit._core.record import MessageDict, Parameters, RecordDict, ResponseDict
from scoring._client.pool import AnyClient
from scoring._client.processes import ProcessClient
from scoring._errors import EndpointUnavailableError, RequestNotSent
from scoring._runner.requests import (
    error_text,
    expand_samples,
    fail,
    fill,
    history,
    is_empty,
    is_open,
    request_params,
    set_content,
)

__all__ = ["RecordOutcome", "Runner"]


@dataclass
class RecordOutcome:
    """What running one record did."""

    requests: int = 0
    filled: int = 0
    errors: list[str] = field(default_factory=list)
    #: Responses left open because the run was stopping (Ctrl-C, SIGTERM) before their request was sent.
    unsent: int = 0

    @property
    def changed(self) -> bool:
        """Something was received or failed: the record is worth journaling."""
        return bool(self.filled or self.errors)

    @property
    def ok(self) -> bool:
        return not self.errors


class Runner:
    """Runs records through ``client``; ``defaults`` are the parameters the records' own override."""

    def __init__(
        self,
        client: AnyClient | ProcessClient,
        *,
        defaults: Parameters | None = None,
        keep_logprobs: bool | None = None,
        max_active_records: int | None = None,
        retry_empty: int = 0,
    ) -> None:
        self.client = client
        self.defaults = dict(defaults or {})
        #: Keep logprobs in the output when the request asked for them (default) or always/never.
        self.keep_logprobs = keep_logprobs
        self.max_active_records = max_active_records
        #: How many more times an empty reply is asked again before it is kept.
        self.retry_empty = max(0, retry_empty)

    # -- one record --------------------------------------------------------------------------------------

    async def run_record(self, record: RecordDict) -> RecordOutcome:
        """Fill every open response of ``record`` in place; see the module docstring."""
        outcome = RecordOutcome()
        expand_samples(record, self.defaults)
        messages: list[MessageDict] = record.get("messages") or []
        last = len(messages) - 1
        for index, message in enumerate(messages):
            if message.get("role") != "assistant" or not message.get("responses"):
                continue
            responses: list[ResponseDict] = message["responses"]
            if index < last:
                if message.get("content") is not None:
                    continue
                first = responses[0]
                if is_open(first) or (self.retry_empty and is_empty(first)):
                    await self._sample(messages, index, 0, outcome)
                    first = responses[0]
                if first.get("content") is None:
                    self._skip_rest(messages, index, outcome)
                    break
                if is_empty(first):
                    self._skip_rest(messages, index, outcome, why="replied with an empty content")
                    break
                messages[index] = set_content(message, first["content"])
            else:
                redo = bool(self.retry_empty)
                todo = [i for i, r in enumerate(responses) if is_open(r) or (redo and is_empty(r))]
                if len(todo) == 1:  # the common case: no task to spawn
                    await self._sample(messages, index, todo[0], outcome)
                else:
                    await asyncio.gather(*(self._sample(messages, index, i, outcome) for i in todo))
        return outcome

    async def _sample(self, messages: list[MessageDict], index: int, sample: int, outcome: RecordOutcome) -> None:
        responses: list[ResponseDict] = messages[index]["responses"]
        response = responses[sample]
        try:
            params = request_params(self.defaults, response.get("parameters"), sample)
            chat = history(messages, index)
            for _ in range(self.retry_empty + 1):
                outcome.requests += 1  # counted when attempted: a failed request was still sent
                [result, *_] = await self.client.complete(chat, params)
                if result.content.strip():
                    break
        except EndpointUnavailableError:
            raise
        except RequestNotSent:  # the run is stopping: the response stays as it was, open
            outcome.requests -= 1
            outcome.unsent += 1
            return
        except Exception as exc:  # every failure becomes the response's error, never a crash
            text = error_text(exc, self.client.scrub)
            responses[sample] = fail(response, text)
            outcome.errors.append(text)
            return
        keep = bool(params.get("logprobs")) if self.keep_logprobs is None else self.keep_logprobs
        responses[sample] = fill(
            response,
            result,
            keep_logprobs=keep,
            model=self.client.model,
            endpoint=result.endpoint or self.client.endpoint,
        )
        outcome.filled += 1

    def _skip_rest(
        self, messages: list[MessageDict], failed: int, outcome: RecordOutcome, why: str = "could not be generated"
    ) -> None:
        reason = f"skipped: assistant turn {failed} {why}, so this turn has no history"
        for later in messages[failed + 1 :]:
            if later.get("role") != "assistant":
                continue
            for i, response in enumerate(later.get("responses") or []):
                if is_open(response):
                    later["responses"][i] = fail(response, reason)
                    outcome.errors.append(reason)

    # -- many records ------------------------------------------------------------------------------------

    async def run_many(
        self, records: Iterable[tuple[int, RecordDict]]
    ) -> AsyncIterator[tuple[int, RecordDict, RecordOutcome]]:
        """Run ``(position, record)`` pairs with a bounded number of records at work; yield as they finish.

        The input is pulled lazily, so memory holds only the records at work. On
        :class:`EndpointUnavailableError` the records at work are cancelled and the error is raised. Once
        the client stops sending (Ctrl-C), no further record is started: those at work finish (their
        unsent requests left open) and the iteration ends.
        """
        # Enough records to keep every request slot busy while finished ones are journaled; more only
        # costs memory and scheduling.
        concurrency = self.client.concurrency
        limit = self.max_active_records or max(16, concurrency + concurrency // 4)
        done: asyncio.Queue[tuple[int, RecordDict, RecordOutcome] | BaseException] = asyncio.Queue()
        active: set[asyncio.Task[None]] = set()

        async def work(position: int, record: RecordDict) -> None:
            try:
                outcome = await self.run_record(record)
            except Exception as exc:  # handed to the consumer, which stops the run
                done.put_nowait(exc)
            else:
                done.put_nowait((position, record, outcome))

        iterator = iter(records)
        exhausted = False
        at_work = 0
        try:
            while True:
                while not exhausted and at_work < limit and not self.client.stopping:
                    try:
                        position, record = next(iterator)
                    except StopIteration:
                        exhausted = True
                        break
                    task = asyncio.create_task(work(position, record))
                    active.add(task)
                    task.add_done_callback(active.discard)
                    at_work += 1
                if at_work == 0:
                    return
                item = await done.get()
                at_work -= 1
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            for task in list(active):
                task.cancel()
            for task in list(active):
                with contextlib.suppress(BaseException):
                    await task
