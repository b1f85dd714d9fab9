"""One call for a whole run: an evaluation set in, the canonical output with every response filled out.

    from scoring import EndpointOptions, run_file
    summary = run_file("set.xlsx", "out.jsonl", EndpointOptions("http://127.0.0.1:8000/v1", "qwen"),
                       defaults={"temperature": 0}, limit=10)

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
from dataclasses import dataclass, field
from pathlib import Path

from formatkit._core.record import Parameters, RecordDict
from formatkit._core.writers import refuse_special
from scoring._client.http import ChatClient
from scoring._runner.job import DryRunPlan, RunJob, RunSummary
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

__all__ = ["EndpointOptions", "plan_file", "run_file"]

Records = Callable[[], Iterable[RecordDict]]


@dataclass
class EndpointOptions:
    """Where and how requests go (see :class:`~scoring._client.http.ChatClient` for each option).

    The API key is ``api_key`` when given, else read from the environment variable ``api_key_env``
    (``OPENAI_API_KEY`` by default, as ``formatkit run --api-key-env`` and ``JudgeOptions`` do; cleaned of the
    ``\\r`` a CRLF ``.env`` leaves) when the client is made; ``api_key_env=None`` sends no key."""

    base_url: str
    model: str
    api_key: str | None = None
    concurrency: int = 8
    rpm: float | None = None
    timeout: float = 60.0
    max_time: float | None = None
    max_retries: int = 5
    stream: bool = True
    headers: dict[str, str] = field(default_factory=dict)
    rename_params: dict[str, str] = field(default_factory=dict)
    drop_params: tuple[str, ...] = ()
    backoff_base: float = 0.5
    unavailable_after: int = 3
    rate_limit_window: float = 60.0
    api_key_env: str | None = "OPENAI_API_KEY"

    def key(self) -> str | None:
        """The key sent: ``api_key``, else the one in ``$api_key_env`` (None: none)."""
        if self.api_key is not None or not self.api_key_env:
            return self.api_key
        from scoring._client.http import clean_api_key

        return clean_api_key(os.environ.get(self.api_key_env))[0]

    def client(self) -> ChatClient:
        return ChatClient(
            self.base_url,
            self.model,
            api_key=self.key(),
            concurrency=self.concurrency,
            rpm=self.rpm,
            timeout=self.timeout,
            max_time=self.max_time,
            max_retries=self.max_retries,
            stream=self.stream,
            headers=self.headers,
            rename_params=self.rename_params,
            drop_params=self.drop_params,
            backoff_base=self.backoff_base,
            unavailable_after=self.unavailable_after,
            rate_limit_window=self.rate_limit_window,
        )


def _records(source: str | os.PathLike[str] | Records, mode: str, limit: int | None) -> Records:
    if callable(source):
        records = source
    else:
        from formatkit._api.validate import iter_dicts

        path = source

        def records() -> Iterator[RecordDict]:
            return iter_dicts(path, mode=mode, profile="none")  # type: ignore[arg-type]

    if limit is None:
        return records
    return lambda: itertools.islice(records(), limit)


def _job(
    source: str | os.PathLike[str] | Records,
    output: str | os.PathLike[str],
    client: ChatClient,
    *,
    defaults: Parameters | None,
    restart: bool,
    limit: int | None,
    retry_empty: int,
    mode: str,
    progress: Progress | None = None,
    total: int | None = None,
    shard: Shard | None = None,
    tallies: list[ShardTally] | None = None,
) -> RunJob:
    runner = Runner(client, defaults=defaults, retry_empty=retry_empty)
    if total is not None and limit is not None:
        total = min(total, limit)
    records = _records(source, mode, limit)
    if shard is not None:
        records = shard_source(records, shard, tallies if tallies is not None else [])
        if total is not None:
            total = len(shard.positions(total))
    return RunJob(runner, records, Path(output), restart=restart, progress=progress, total=total)


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
    *,
    defaults: Parameters | None = None,
    restart: bool = False,
    limit: int | None = None,
    retry_empty: int = 0,
    mode: str = "infer-eval",
    shard: Shard | None = None,
) -> DryRunPlan:
    """What :func:`run_file` would send (the first request body, the counts); nothing is sent."""
    client = endpoint.client()
    try:
        job = _job(
            source,
            output,
            client,
            defaults=defaults,
            restart=restart,
            limit=limit,
            retry_empty=retry_empty,
            mode=mode,
            shard=shard,
        )
        return job.plan()
    finally:
        asyncio.run(client.aclose())


def run_file(
    source: str | os.PathLike[str] | Records,
    output: str | os.PathLike[str],
    endpoint: EndpointOptions,
    *,
    defaults: Parameters | None = None,
    restart: bool = False,
    limit: int | None = None,
    retry_empty: int = 0,
    mode: str = "infer-eval",
    progress: Progress | None = None,
    total: int | None = None,
    started: Callable[[RunJob], None] | None = None,
    shard: Shard | None = None,
    command: str | None = None,
    run_record: bool = True,
) -> RunSummary:
    """Run every pending response of ``source`` (a file, or a callable giving records) into ``output``.

    ``limit``: only the first N records (a smoke run; the output holds those N). ``retry_empty``: ask an
    empty reply again up to N times (journaled records with empty replies are asked again too).
    ``started`` is called with the job before anything is sent (to read its summary after a stop).
    ``shard``: only that part of the records (:class:`~scoring._runner.shard.Shard`; after ``limit``).
    Once the output is written, its run record (:mod:`scoring._runner.provenance`) is written beside it as
    ``OUT.run.json`` (``run_record=False``: not written; ``command``: the command line to record) and is
    kept in the summary's ``run_record``.
    """
    refuse_special(Path(output))  # before the journal and its lock are made beside it
    if run_record:  # written once every request is paid for: refused before the first
        refuse_special(run_record_path(Path(output)))
    started_at = now_iso()
    tallies: list[ShardTally] = []
    client = endpoint.client()
    job = _job(
        source,
        output,
        client,
        defaults=defaults,
        restart=restart,
        limit=limit,
        retry_empty=retry_empty,
        mode=mode,
        progress=progress,
        total=total,
        shard=shard,
        tallies=tallies,
    )
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
    record: RunRecord = {
        "formatkit_version": formatkit_version(),
        "started": started_at,
        "finished": now_iso(),
        "command": command,
        "base_url": endpoint_record(endpoint)["base_url"],
        "model": endpoint.model,
        "parameters": dict(defaults or {}),
        "endpoint": endpoint_record(endpoint),
        "input": None if callable(source) else str(source),
        "output": Path(output).name,
        "limit": limit,
        "retry_empty": retry_empty,
        "summary": summary.to_dict(),
    }
    if shard is not None and tallies:
        record["shard"] = shard_record(shard, tallies[-1], summary.records)
    summary.run_record = record
    if run_record:
        write_run_record(run_record_path(output), record)
    return summary
