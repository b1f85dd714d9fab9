"""The run record: what produced an output, written beside it as JSON (``OUT.run.json``; ``eval``: ``run.json``).

It holds what a reviewer needs to answer "what exactly produced this number": the formatkit version, when
the run started and finished (ISO 8601, UTC), the command line, the endpoint (its public URL: no user name,
password or secret query value), the model, the parameters sent by default and the client's settings, the
judge's model and template when one was used, and for a ``--shard K/N`` run which part of which input it
holds (what ``formatkit merge`` checks). Never an API key and never a header's value: headers are recorded
by name only, and the command line has every ``--header`` value masked.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import orjson

from formatkit._core.writers import atomic_writer
from scoring._client.url import public_url

if TYPE_CHECKING:
    from scoring._client.pool import EndpointReport
    from scoring._runner.options import EndpointOptions

__all__ = [
    "RUN_RECORD",
    "EndpointRecord",
    "JudgeRecord",
    "RunPart",
    "RunRecord",
    "RunSummaryDict",
    "ShardRecord",
    "formatkit_version",
    "now_iso",
    "read_run_record",
    "run_record_path",
    "safe_command",
    "write_run_record",
]

#: The name of ``eval``'s run record inside its directory.
RUN_RECORD = "run.json"
_SUFFIX = ".run.json"
#: Options whose value is secret (masked in the recorded command line): NAME=VALUE, the value masked.
_HEADER_OPTIONS = ("--header", "--judge-header")


class EndpointRecord(TypedDict):
    """The endpoint and the client's settings as recorded: no key, header names only."""

    base_url: str
    model: str
    stream: bool
    concurrency: int
    rpm: float | None
    timeout: float
    max_time: float | None
    max_retries: int
    headers: list[str]
    rename_params: dict[str, str]
    drop_params: list[str]
    api_key_sent: bool


class RunSummaryDict(TypedDict):
    """What a run did, by the numbers (:meth:`scoring._runner.job.RunSummary.to_dict`)."""

    records: int
    finished: int
    with_errors: int
    resumed: int
    nothing_to_do: int
    sent_records: int
    sent_with_errors: int
    requests: int
    attempts: int
    stale_journal_entries: int
    empty_replies: int
    cut_off: int
    errors_by_kind: dict[str, int]
    tokens: dict[str, int]
    notes: list[str]


class ShardRecord(TypedDict):
    """Which part of which input a ``--shard K/N`` output holds (what ``formatkit merge`` checks)."""

    part: str
    index: int
    count: int
    records: int
    input_records: int
    input_fingerprint: str


class _JudgeKeys(TypedDict):
    base_url: str
    model: str | None
    template: str
    scale: str


class JudgeRecord(_JudgeKeys, total=False):
    """The judge: its public URL, model, template and scale (never its key); a panel's judges (each its
    model and public URL) and how their verdicts were made one."""

    panel: list[dict[str, str]]
    aggregate: str


#: What ``score`` adds to the run record it carries along: the metric, when, and from which file.
ScoredRecord = TypedDict("ScoredRecord", {"metric": str, "finished": str, "from": str})


class RunRecord(TypedDict, total=False):
    """``OUT.run.json``: what produced an output. ``run`` writes the run's keys; ``score`` adds ``scored``
    and ``judge``; ``eval`` adds ``sets``; ``merge`` writes ``merged``, ``records``, ``input_fingerprint``
    and the ``parts`` with the keys they all share. Read back from disk, it is what the file holds."""

    formatkit_version: str
    started: str
    finished: str
    command: str | None
    base_url: str
    model: str
    parameters: dict[str, object]
    endpoint: EndpointRecord
    input: str | None
    output: str
    limit: int | None
    retry_empty: int
    summary: RunSummaryDict
    #: what ``--estimate`` says of the run before it (counted by the ratio), beside ``summary``'s tokens
    estimate: dict[str, object]
    shard: ShardRecord
    scored: ScoredRecord
    judge: JudgeRecord | None
    sets: list[str]
    merged: str
    records: int
    input_fingerprint: str
    parts: list[RunPart]
    endpoints: list[EndpointReport]
    processes: int


class RunPart(RunRecord, total=False):
    """A merged part's own run record, with the part's file name."""

    path: str


#: The distribution's name on the package index (the import package and the command are ``formatkit``;
#: ``formatkit`` on PyPI is an unrelated project).
DISTRIBUTION = "formatkit-eval"


def formatkit_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # pragma: no cover - a source tree without installed metadata
        import formatkit

        return str(getattr(formatkit, "__version__", "unknown"))


def now_iso() -> str:
    """Now, ISO 8601 in UTC to the millisecond (``2026-11-24T07:05:17.123+00:00``)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def run_record_path(output: str | os.PathLike[str]) -> Path:
    """Where ``run`` keeps the run record of ``output``: ``OUT.run.json`` beside it."""
    out = Path(output)
    return out.with_name(out.name + _SUFFIX)


def _mask_header(value: str) -> str:
    name, sep, _ = value.partition("=")
    return f"{name}=***" if sep else "***"


def safe_command(argv: Sequence[str]) -> str:
    """The command line as a shell would read it, every ``--header`` value masked and URLs made public."""
    words: list[str] = []
    mask_next = False
    for word in argv:
        if mask_next:
            words.append(_mask_header(word))
            mask_next = False
            continue
        option, eq, value = word.partition("=")
        if option in _HEADER_OPTIONS:
            if eq:
                words.append(f"{option}={_mask_header(value)}")
            else:
                words.append(word)
                mask_next = True
            continue
        if word.startswith(("http://", "https://")):
            word = public_url(word)
        elif eq and value.startswith(("http://", "https://")):
            word = f"{option}={public_url(value)}"
        words.append(word)
    return shlex.join(words)


def endpoint_record(endpoint: EndpointOptions) -> EndpointRecord:
    """An :class:`~scoring._runner.options.EndpointOptions` as recorded: no key, header names only."""
    limits, dialect = endpoint.limits, endpoint.dialect
    return {
        "base_url": public_url(endpoint.base_url),
        "model": endpoint.model,
        "stream": dialect.stream,
        "concurrency": limits.concurrency,
        "rpm": limits.rpm,
        "timeout": limits.timeout,
        "max_time": limits.max_time,
        "max_retries": endpoint.retry.max_retries,
        "headers": sorted(dialect.headers),
        "rename_params": dict(dialect.rename_params),
        "drop_params": list(dialect.drop_params),
        "api_key_sent": endpoint.api_key is not None,
    }


def write_run_record(path: str | os.PathLike[str], record: RunRecord) -> None:
    """Write ``record`` as indented JSON (Chinese kept as it is), atomically."""
    with atomic_writer(Path(path)) as handle:
        handle.write(orjson.dumps(record, option=orjson.OPT_INDENT_2) + b"\n")


def read_run_record(path: str | os.PathLike[str]) -> RunRecord | None:
    """The run record at ``path``; None when there is none or it is not a JSON object."""
    try:
        data: RunRecord = orjson.loads(Path(path).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


#: The files of an ``eval`` directory its ``run.json`` speaks for.
EVAL_OUTPUTS = ("answered.jsonl", "scored.jsonl")


def run_records_of(path: str | os.PathLike[str]) -> list[RunRecord]:
    """The run records behind a results file: its own ``PATH.run.json`` (a merged file's: its parts'),
    or for an ``eval`` output the directory's ``run.json``; none when there is no record."""
    file = Path(path)
    record = read_run_record(run_record_path(file))
    if record is None and file.name in EVAL_OUTPUTS:
        record = read_run_record(file.parent / RUN_RECORD)
    if record is None:
        return []
    parts = record.get("parts")
    if isinstance(parts, list):
        return [part for part in parts if isinstance(part, dict)]
    return [record]
