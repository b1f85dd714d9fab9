"""A whole run over a file: resumable through a journal, the output written once, atomically, in input order.

- Every record finished by this run is appended to ``OUT.journal`` the moment it is done (one flushed line:
  ``{"key": ..., "entry": {"status": "ok"|"error", "record": {...}}}``). A ``kill -9`` loses at most the
  requests in flight.
- The key is the record's position plus a fingerprint of its ``session_id`` and ``messages`` and of the
  run's settings that shape the answers (model, default parameters). A changed record, or the same set
  run with another model, never picks up a stale answer; stale entries are counted and ignored.
- On a rerun, a record journaled ``ok`` is not sent again. A record journaled ``error`` is not finished:
  it is resumed from its journaled state, so its filled samples and generated turns are kept and only the
  responses that ended in error are sent again, after every fresh record: failures that are the records'
  own (a prompt longer than the context, a parameter the model refuses) must not be the first requests
  the endpoint sees. A journal holding replies of this model from this endpoint tells the client the
  endpoint has served (:meth:`~scoring._client.health.EndpointHealth.has_served`), so those records failing
  again cannot stop the run; a key or model refused now still does.
- At the end OUT is written with :func:`formatkit._core.writers.atomic_writer`: every input record exactly
  once, in input order, its ``messages`` from the journal (its ``meta`` from the input as it is now).
  The journal is kept, so rerunning the finished command is a no-op that sends nothing; ``restart``
  discards it first.
- Inputs are streamed twice (run, then write); memory holds the records at work and 16 bytes per record
  (where its journal line is: :class:`SlotTable`).
- Only the last journal line of a position counts: a record changed, run, then changed back is sent again.
- A run holds an OS lock on its journal (:mod:`scoring._runner.lock`): a second run on the same output
  fails at once with :class:`~scoring._errors.OutputLockedError` naming the pid that holds it.
- Seed 001's ``endpoint_id`` in a response is read as ``model``.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypedDict, cast

import orjson

from formatkit._core.record import RecordDict, ResponseDict
from formatkit._core.writers import atomic_writer, dumps_line
from scoring._errors import RequestNotSent
from scoring._runner.journal import Journal, JournalSlot, journal_path
from scoring._runner.lock import OutputLock
from scoring._runner.progress import NullProgress, Progress
from scoring._runner.provenance import RunRecord, RunSummaryDict
from scoring._runner.requests import (
    alias_model,
    count_requests,
    error_kind_of,
    expand_samples,
    history,
    is_empty,
    is_open,
    max_tokens_of,
    open_turns,
    request_params,
)
from scoring._runner.runner import Runner

__all__ = ["DryRunPlan", "RunJob", "RunSummary", "SlotTable", "journal_path", "record_key", "settings_fingerprint"]

Source = Callable[[], Iterable[RecordDict]]


def settings_fingerprint(model: str, defaults: dict[str, object]) -> str:
    """What, besides the record, decides the answers: the model and the default parameters."""
    data = orjson.dumps({"model": model, "defaults": defaults}, option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def record_key(position: int, record: RecordDict, settings: str) -> str:
    """``position:fingerprint`` of the conversation (``session_id`` and ``messages``) under ``settings``."""
    data = orjson.dumps(
        {"session_id": record.get("session_id"), "messages": record.get("messages"), "settings": settings},
        option=orjson.OPT_SORT_KEYS,
    )
    return f"{position}:{hashlib.blake2b(data, digest_size=12).hexdigest()}"


def _responses(record: RecordDict) -> Iterator[ResponseDict]:
    for message in record.get("messages") or []:
        yield from message.get("responses") or []


def is_finished(record: RecordDict) -> bool:
    """Every response of the record has its content (or was scored already)."""
    return not any(is_open(response) for response in _responses(record))


class RunEntry(TypedDict):
    """A run's journal entry: the record as it stood when its last request was answered, and whether every
    response of it finished (``ok``) or one ended in error (sent again on a rerun)."""

    status: Literal["ok", "error"]
    record: RecordDict


class SlotTable:
    """Where the last journal line of each record position is: two arrays, 16 bytes per record.

    Keys are ``position:fingerprint``; the table is indexed by position only, and a reader checks the
    fingerprint of the line it gets (:meth:`RunJob._entry`), so an entry for a record that has changed
    since is never used.
    """

    def __init__(self) -> None:
        self._offsets = array("q")
        self._lengths = array("q")
        self.filled = 0

    @classmethod
    def from_journal(cls, journal: Journal) -> SlotTable:
        table = cls()
        for key, slot in journal.scan():
            head, _, _ = key.partition(":")
            if head.isdigit():
                table.put(int(head), slot)
        return table

    def put(self, position: int, slot: JournalSlot) -> None:
        if position >= len(self._offsets):
            grow = position + 1 - len(self._offsets)
            self._offsets.extend([-1] * grow)
            self._lengths.extend([0] * grow)
        if self._offsets[position] < 0:
            self.filled += 1
        self._offsets[position] = slot.offset
        self._lengths[position] = slot.length

    def get(self, position: int) -> JournalSlot | None:
        if position >= len(self._offsets) or self._offsets[position] < 0:
            return None
        return JournalSlot(self._offsets[position], self._lengths[position])


@dataclass
class RunSummary:
    """Counts over the output (this run and the runs it resumed)."""

    records: int = 0
    finished: int = 0
    with_errors: int = 0
    resumed: int = 0
    nothing_to_do: int = 0
    sent_records: int = 0
    sent_with_errors: int = 0
    requests: int = 0
    attempts: int = 0
    stale_journal_entries: int = 0
    #: Replies received with an empty (blank) ``content``: finished, but nothing to score.
    empty_replies: int = 0
    #: Replies cut off at the token limit (``finish_reason: length``).
    cut_off: int = 0
    errors_by_kind: Counter[str] = field(default_factory=Counter)
    tokens: Counter[str] = field(default_factory=Counter)
    #: What the client decided on its own during the run (streaming refused, ...), for the user.
    notes: list[str] = field(default_factory=list)
    #: What produced the output (:mod:`scoring._runner.provenance`), once it is written.
    run_record: RunRecord | None = None

    def add_output(self, record: RecordDict) -> None:
        self.records += 1
        if is_finished(record):
            self.finished += 1
        else:
            self.with_errors += 1
        for response in _responses(record):
            error = response.get("error")
            if isinstance(error, str) and is_open(response):
                self.errors_by_kind[error_kind_of(error)] += 1
            if is_empty(response):
                self.empty_replies += 1
            if response.get("finish_reason") == "length":
                self.cut_off += 1
            usage = response.get("usage")
            if isinstance(usage, dict):
                for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
                    value = usage.get(name)
                    if isinstance(value, int) and value >= 0:  # below zero (an old journal's): unknown
                        self.tokens[name] += value

    @property
    def all_content(self) -> bool:
        """Every record finished and every reply has content: what exit code 0 of ``run`` promises (an
        empty reply, e.g. a gateway turning a backend error into ``""``, is finished but not content)."""
        return self.with_errors == 0 and self.empty_replies == 0

    def to_dict(self) -> RunSummaryDict:
        return {
            "records": self.records,
            "finished": self.finished,
            "with_errors": self.with_errors,
            "resumed": self.resumed,
            "nothing_to_do": self.nothing_to_do,
            "sent_records": self.sent_records,
            "sent_with_errors": self.sent_with_errors,
            "requests": self.requests,
            "attempts": self.attempts,
            "stale_journal_entries": self.stale_journal_entries,
            "empty_replies": self.empty_replies,
            "cut_off": self.cut_off,
            "errors_by_kind": dict(self.errors_by_kind),
            "tokens": dict(self.tokens),
            "notes": list(self.notes),
        }


@dataclass
class DryRunPlan:
    """What a run would send."""

    first_request: dict[str, object] | None
    requests: int
    records_with_work: int
    already_finished: int
    records: int


class RunJob:
    """Runs every record of ``source`` (a callable giving a fresh iterable each call) into ``out``."""

    def __init__(
        self,
        runner: Runner,
        source: Source,
        out: Path,
        *,
        restart: bool = False,
        progress: Progress | None = None,
        total: int | None = None,
    ) -> None:
        self.runner = runner
        self.source: Source = lambda: (alias_model(record) for record in source())
        self.out = Path(out)
        self.journal = Journal(journal_path(self.out))
        self.restart = restart
        self.progress: Progress = progress or NullProgress()
        self.total = total
        self.settings = settings_fingerprint(runner.client.model, runner.defaults)
        self.summary = RunSummary()
        self._matched = 0
        self._proven: set[str] = set()  # endpoints a journaled reply showed serving

    # -- dry run -----------------------------------------------------------------------------------------

    def plan(self) -> DryRunPlan:
        """Count the requests a run would send (the journal is read, never written); the first body."""
        first: dict[str, object] | None = None
        requests = with_work = finished = records = 0
        for record, count in self.pending():
            records += 1
            if record is None:
                finished += 1
                continue
            if not count:
                continue
            with_work += 1
            requests += count
            if first is None:
                first = next(self.bodies(record))[0]
        return DryRunPlan(first, requests, with_work, finished, records)

    def pending(self) -> Iterator[tuple[RecordDict | None, int]]:
        """Each input record with the number of requests a run would send for it; None for a record the
        journal holds finished (the journal is read, never written)."""
        table = SlotTable() if self.restart else SlotTable.from_journal(self.journal)
        redo = bool(self.runner.retry_empty)
        try:
            for position, record in enumerate(self.source()):
                entry = self._entry(table, position, record_key(position, record, self.settings))
                if entry is not None:
                    if entry.get("status") == "ok" and not (redo and count_requests(entry["record"], redo_empty=True)):
                        yield None, 0
                        continue
                    record = entry["record"]
                expand_samples(record, self.runner.defaults)
                yield record, count_requests(record, redo_empty=redo)
        finally:
            self.journal.close()

    def bodies(self, record: RecordDict) -> Iterator[tuple[dict[str, object], int | None]]:
        """The body of every request ``record`` needs (each open response of each open turn), as sent, with the
        worst case of the earlier replies it sends back as history that the run writes first: their text is
        not known before the run (it is empty in the body), their ``max_tokens`` is (None: one has none)."""
        messages = record["messages"]
        written: dict[int, int | None] = {}  # an earlier turn the run answers first -> its max_tokens
        for turn, todo in open_turns(record, redo_empty=bool(self.runner.retry_empty)):
            earlier = [most for at, most in written.items() if at < turn]
            replayed = None if None in earlier else sum(m for m in earlier if m is not None)
            sent = [{"role": str(m["role"]), "content": str(m.get("content") or "")} for m in messages[:turn]]
            params: dict[str, object] = {}
            for index in todo:
                response = messages[turn]["responses"][index]
                params = request_params(self.runner.defaults, response.get("parameters"), index)
                yield self.runner.client.request_body(sent if written else history(messages, turn), params), replayed
            written[turn] = max_tokens_of(params)

    # -- the run -----------------------------------------------------------------------------------------

    async def run(self) -> RunSummary:
        """Run, journal, then write OUT. Raises ``EndpointUnavailableError`` (journal kept, OUT untouched),
        ``OutputLockedError`` when another run holds OUT (nothing touched)."""
        with OutputLock(self.journal.path):
            return await self._run()

    async def _run(self) -> RunSummary:
        if self.restart:
            self.journal.discard()
        table = SlotTable.from_journal(self.journal)
        self.journal.open_for_writing()  # a journal that cannot be written stops the run before any request
        journaled = table.filled
        sent_before = self.runner.client.requests_sent
        keys: dict[int, str] = {}
        self.progress.start(self.total)
        try:
            async for position, record, outcome in self.runner.run_many(self._work(table, keys)):
                key = keys.pop(position)
                if outcome.unsent and not outcome.changed:
                    continue  # stopping, and nothing was sent for it: as it was, nothing to journal
                entry: RunEntry = {"status": "ok" if is_finished(record) else "error", "record": record}
                table.put(position, self.journal.append_slot(key, entry))
                status = entry["status"]
                self.summary.sent_records += 1
                self.summary.sent_with_errors += status != "ok"
                self.summary.requests += outcome.requests
                self.progress.advance(error=status != "ok")
            if self.runner.client.stopping:  # Ctrl-C: what was in flight is journaled; OUT is not written
                raise RequestNotSent("the run is stopping: the output is not written")
        except BaseException:  # EndpointUnavailableError, Ctrl-C: what finished is in the journal
            self.summary.attempts = self.runner.client.requests_sent - sent_before
            self.summary.notes = list(self.runner.client.notes)
            self.progress.stop()
            self.journal.close()
            raise
        self.summary.attempts = self.runner.client.requests_sent - sent_before
        self.summary.notes = list(self.runner.client.notes)
        self.progress.stop()
        self.summary.stale_journal_entries = journaled - self._matched
        try:
            self._write(table)
        finally:
            self.journal.close()
        return self.summary

    def _entry(self, table: SlotTable, position: int, key: str) -> RunEntry | None:
        """The journaled entry of the record at ``position`` if it is for this very record, else None."""
        slot = table.get(position)
        if slot is None:
            return None
        found, entry = self.journal.read_item(slot)
        return cast(RunEntry, entry) if found == key else None  # written by _run above, read back as it was

    def _work(self, table: SlotTable, keys: dict[int, str]) -> Iterator[tuple[int, RecordDict]]:
        retried: list[int] = []  # records that ended in error before: sent after the fresh ones
        redo = bool(self.runner.retry_empty)
        for position, record in enumerate(self.source()):
            key = record_key(position, record, self.settings)
            entry = self._entry(table, position, key)
            if entry is not None:
                self._matched += 1
                self._note_served(entry["record"])
                if entry.get("status") == "ok" and not (redo and count_requests(entry["record"], redo_empty=True)):
                    self.summary.resumed += 1
                    self.progress.advance(resumed=True)
                    continue
                record = entry["record"]
            if not count_requests(record, redo_empty=redo):
                self.summary.nothing_to_do += 1
                self.progress.advance(resumed=True, error=not is_finished(record))
                continue
            keys[position] = key
            if entry is not None and entry.get("status") == "error":
                retried.append(position)
                continue
            yield position, record
        for position in retried:
            entry = self._entry(table, position, keys[position])
            if entry is not None:
                yield position, entry["record"]

    def _note_served(self, record: RecordDict) -> None:
        """A journaled reply of this model from one of the run's endpoints proves that endpoint can serve."""
        client = self.runner.client
        if len(self._proven) >= len(client.endpoints):
            return
        for response in _responses(record):
            endpoint = response.get("endpoint")
            if (
                isinstance(endpoint, str)
                and endpoint not in self._proven
                and isinstance(response.get("content"), str)
                and response.get("model") == client.model
                and client.has_served(endpoint)
            ):
                self._proven.add(endpoint)

    def _write(self, table: SlotTable) -> None:
        with atomic_writer(self.out) as handle:
            for position, record in enumerate(self.source()):
                entry = self._entry(table, position, record_key(position, record, self.settings))
                if entry is not None:
                    record = {**record, "messages": entry["record"]["messages"]}
                handle.write(dumps_line(record))
                self.summary.add_output(record)
