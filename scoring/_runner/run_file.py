"""One call for a whole run: an evaluation set in, the canonical output with every response filled out.

    from scoring import EndpointOptions, RunOptions, run_file
    summary = run_file("set.xlsx", "out.jsonl", EndpointOptions("http://127.0.0.1:8000/v1", "qwen"),
                       RunOptions(defaults={"temperature": 0}, limit=10))

(or ``defaults=..., limit=10`` as keywords: every field of :class:`RunOptions` is one.)

It is what ``formatkit run`` does after validating the input: the records are streamed from the file
(or from a callable giving a fresh iterable each call), journaled and written as :class:`RunJob` says,
under an OS lock on the output. Raised: :class:`EndpointUnavailableError` (the endpoint cannot serve;
journal kept), :class:`OutputLockedError` (another run holds the output), :class:`RunInterrupted` on
SIGTERM, ``KeyboardInterrupt`` on Ctrl-C (both: journal kept, no temporary file left, OUT untouched).
The first Ctrl-C or SIGTERM sends no new request and lets the requests in flight land in the journal
for up to 10 s; a second one leaves at once (:mod:`scoring._runner.stopping`).
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from formatkit._core.record import RecordDict
from formatkit._core.writers import refuse_special
from scoring._client.options import with_fields
from scoring._client.pool import AnyClient, EndpointPool
from scoring._client.processes import ProcessClient
from scoring._runner.job import DryRunPlan, RunJob, RunSummary
from scoring._runner.options import EndpointOptions, RunFields, RunOptions
from scoring._runner.progress import Progress
from scoring._runner.provenance import (
    RunRecord,
    ShardRecord,
    endpoint_record,
    formatkit_version,
    now_iso,
    run_record_path,
    write_run_record,
)
from scoring._runner.runner import Runner
from scoring._runner.shard import Shard, ShardTally, shard_source
from scoring._runner.stopping import GracefulStop, Stopped

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["EndpointOptions", "RunOptions", "plan_file", "run_file"]

Records = Callable[[], Iterable[RecordDict]]


def _records(source: str | os.PathLike[str] | Records, mode: str, limit: int | None) -> Records:
    if callable(source):
        records = source
    else:
        from formatkit import iter_dicts

        path = source

        def records() -> Iterator[RecordDict]:
            return iter_dicts(path, mode=mode, profile="none")  # type: ignore[arg-type]

    if limit is None:
        return records
    return lambda: itertools.islice(records(), limit)


def _job(
    source: str | os.PathLike[str] | Records,
    output: str | os.PathLike[str],
    client: AnyClient | ProcessClient,
    options: RunOptions,
    progress: Progress | None = None,
    tallies: list[ShardTally] | None = None,
) -> RunJob:
    runner = Runner(client, defaults=options.defaults, retry_empty=options.retry_empty)
    total, limit, shard = options.total, options.limit, options.shard
    if total is not None and limit is not None:
        total = min(total, limit)
    records = _records(source, options.mode, limit)
    if shard is not None:
        records = shard_source(records, shard, tallies if tallies is not None else [])
        if total is not None:
            total = len(shard.positions(total))
    return RunJob(runner, records, Path(output), restart=options.restart, progress=progress, total=total)


def _sender(endpoint: EndpointOptions, processes: int) -> AnyClient | ProcessClient:
    """What the run sends through: the endpoint's own client(s), or worker processes sharing them."""
    shares = endpoint.shares(processes)
    if len(shares) == 1:
        return endpoint.sender()
    from scoring._runner.requests import error_text

    local = replace(endpoint, limits=replace(endpoint.limits, concurrency=1)).sender()  # names, never sends
    total = endpoint.limits.concurrency * len(endpoint.base_urls)
    return ProcessClient(local, [share.sender for share in shares], error_text, concurrency=total)


def shard_record(shard: Shard, tally: ShardTally, records: int) -> ShardRecord:
    """The run record's ``shard``: which part of which input (what ``formatkit merge`` checks)."""
    return {
        "part": shard.label,
        "index": shard.index,
        "count": shard.count,
        "records": records,
        "input_records": tally.records,
        "input_fingerprint": tally.fingerprint,
    }


def plan_file(
    source: str | os.PathLike[str] | Records,
    output: str | os.PathLike[str],
    endpoint: EndpointOptions,
    options: RunOptions | None = None,
    **fields: Unpack[RunFields],
) -> DryRunPlan:
    """What :func:`run_file` would send (the first request body, the counts); nothing is sent."""
    run = with_fields(options, RunOptions, fields)
    client = endpoint.sender()
    try:
        return _job(source, output, client, run).plan()
    finally:
        asyncio.run(client.aclose())


def run_file(
    source: str | os.PathLike[str] | Records,
    output: str | os.PathLike[str],
    endpoint: EndpointOptions,
    options: RunOptions | None = None,
    *,
    progress: Progress | None = None,
    started: Callable[[RunJob], None] | None = None,
    **fields: Unpack[RunFields],
) -> RunSummary:
    """Run every pending response of ``source`` (a file, or a callable giving records) into ``output``.

    ``options`` (:class:`~scoring._runner.options.RunOptions`) says what is sent and which records; each
    of its fields may be given as a keyword instead (``limit=10``), over ``options``. ``limit``: only the
    first N records (a smoke run; the output holds those N). ``retry_empty``: ask an empty reply again up
    to N times (journaled records with empty replies are asked again too). ``shard``: only that part of
    the records (:class:`~scoring._runner.shard.Shard`; after ``limit``). ``progress`` is told of every
    record; ``started`` is called with the job before anything is sent (to read its summary after a stop).
    Once the output is written, its run record (:mod:`scoring._runner.provenance`) is written beside it as
    ``OUT.run.json`` (``run_record=False``: not written; ``command``: the command line to record) and is
    kept in the summary's ``run_record``.
    """
    run = with_fields(options, RunOptions, fields)
    refuse_special(Path(output))  # before the journal and its lock are made beside it
    if run.run_record:  # written once every request is paid for: refused before the first
        refuse_special(run_record_path(Path(output)))
    started_at = now_iso()
    tallies: list[ShardTally] = []
    client = _sender(endpoint, run.processes)
    job = _job(source, output, client, run, progress, tallies)
    if started is not None:
        started(job)
    note = getattr(progress, "note", None)
    if callable(note):  # said above the progress bar, at once
        client.on_notice = note
    stop = GracefulStop()
    stop.watch(client)

    async def main() -> RunSummary:
        try:
            return await stop.guard(job.run())
        finally:
            await client.aclose()

    try:
        summary = asyncio.run(main())
    except Stopped as stopped:
        raise GracefulStop.error(stopped) from None
    used = endpoint_record(endpoint)
    # What was used, not what was asked: a server that refused streaming (or whose streaming was broken
    # while plain requests worked) was asked without it from then on (the client's notes say why).
    used["stream"] = used["stream"] and client.stream
    record: RunRecord = {
        "formatkit_version": formatkit_version(),
        "started": started_at,
        "finished": now_iso(),
        "command": run.command,
        "base_url": used["base_url"],
        "model": endpoint.model,
        "parameters": dict(run.defaults or {}),
        "endpoint": used,
        "input": None if callable(source) else str(source),
        "output": Path(output).name,
        "limit": run.limit,
        "retry_empty": run.retry_empty,
        "summary": summary.to_dict(),
    }
    if isinstance(client, ProcessClient):
        record["processes"] = client.processes
        merged = client.report()
        if merged is not None:
            record["endpoints"] = merged
    if isinstance(client, EndpointPool):  # several endpoints: what each one did
        record["endpoints"] = client.report()
    if run.shard is not None and tallies:
        record["shard"] = shard_record(run.shard, tallies[-1], summary.records)
    summary.run_record = record
    if run.run_record:
        write_run_record(run_record_path(output), record)
    return summary
