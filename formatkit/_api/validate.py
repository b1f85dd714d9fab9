"""Validation: files in, a Report out, and the canonical records of the files that pass."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formatkit._building.record import build_record
from formatkit._core.draft import Draft
from formatkit._core.errors import InvalidFileError, UnreadablePathError
from formatkit._core.issues import Format, IssueSink, make_issue
from formatkit._core.messages import Msg
from formatkit._core.modes import MAX_FILES, MAX_ROWS, Mode, Profile
from formatkit._core.record import RecordDict, SourceDict
from formatkit._drivers import open_reader
from formatkit._rules.combined import CombinedIds, combined_ids

if TYPE_CHECKING:
    from formatkit._core.issue_models import FileReport, Issue, Report
    from formatkit._drivers.jsonl import PartStart

__all__ = [
    "Checked",
    "check_combined",
    "check_files",
    "check_path",
    "iter_dicts",
    "iter_records",
    "validate_file",
    "validate_files",
]

StrPath = str | os.PathLike[str]


def check_path(path: StrPath) -> Path:
    """The path as a Path, or UnreadablePathError when it is not a readable file (exit code 2)."""
    p = Path(path)
    if not p.exists():
        raise UnreadablePathError(f"{path}: no such file", "path.missing", path=str(path))
    if p.is_dir():
        raise UnreadablePathError(f"{path}: is a directory; name the files in it", "path.directory", path=str(path))
    if not os.access(p, os.R_OK):
        raise UnreadablePathError(f"{path}: permission denied", "path.denied", path=str(path))
    return p


class _Run:
    """One pass over one file: drafts → canonical records, issues in the sink."""

    def __init__(
        self,
        path: StrPath,
        mode: Mode,
        profile: Profile,
        fast: bool = True,
        sheet: str | None = None,
        start: PartStart | None = None,
        shape: str | None = None,
    ) -> None:
        self.path = check_path(path)
        self.name = str(path)
        self.mode = mode
        self.sink = IssueSink(self.name)
        #: Records given so far (a record's default session_id is its position); with ``start``, the records
        #: of the lines before the part read here.
        self.records = 0 if start is None else start.line - 1
        #: The source (file, line or sheet and rows) of the record yielded last: its place for cross-file rules.
        self.source: SourceDict = {}
        self.reader = open_reader(
            self.path,
            mode=mode,
            sink=self.sink,
            max_rows=MAX_ROWS if profile == "platform" else None,
            fast=fast,
            sheet=sheet,
            start=start,
            shape=shape,
        )

    def __iter__(self) -> Iterator[RecordDict]:
        if self.reader is None:
            return
        for draft in self.reader.drafts():
            if type(draft) is dict:  # built on the reader's fast path: it passed every rule
                self.source = draft["meta"]["source"]
                yield draft
                self.records += 1
                continue
            assert isinstance(draft, Draft)
            before = self.sink.errors
            record = build_record(draft, self.records, self.mode, self.sink)
            if self.sink.errors == before:
                self.source = draft.source
                yield record
            self.records += 1

    @property
    def format(self) -> Format | None:
        return self.reader.format if self.reader is not None else None

    def report(self) -> FileReport:
        from formatkit._core.issue_models import FileReport  # pydantic: only once there is a report to make

        return FileReport.build(self.name, self.format, self.records, self.sink.issues)


def validate_file(
    path: StrPath,
    *,
    mode: Mode = "infer-eval",
    profile: Profile = "platform",
    fast: bool = True,
    sheet: str | None = None,
    shape: str | None = None,
) -> FileReport:
    """Check one file; every problem is in the returned report (never raised). ``fast=False`` sends every
    row through the full rules (the same report; the tests compare the two paths). ``sheet``: the
    worksheet of a workbook to read, by name (default: the first; a jsonl file ignores it). ``shape``:
    the file is another tool's, one of :data:`formatkit.SHAPES` (``evalscope-qa``, ``inspect``, ...)."""
    run = _Run(path, mode, profile, fast, sheet, shape=shape)
    for _ in run:
        pass
    return run.report()


def upload_issues(paths: Sequence[StrPath], profile: Profile) -> list[Issue]:
    if profile == "platform" and len(paths) > MAX_FILES:
        return [
            make_issue(
                "too_many_files",
                Msg("too_many_files", count=len(paths), limit=MAX_FILES),
            )
        ]
    return []


def validate_files(
    paths: Sequence[StrPath],
    *,
    mode: Mode = "infer-eval",
    profile: Profile = "platform",
    sheet: str | None = None,
    shape: str | None = None,
) -> Report:
    """Check several files as one upload (``sheet``: the worksheet to read in each workbook, by name): each
    file's rules, and what ``convert`` of them together would break (a session_id used twice in one dataset
    across the files)."""
    return check_files(paths, mode=mode, profile=profile, sheet=sheet, shape=shape).report()


def check_files(
    paths: Sequence[StrPath],
    *,
    mode: Mode = "infer-eval",
    profile: Profile = "platform",
    sheet: str | None = None,
    shape: str | None = None,
) -> Checked:
    """:func:`validate_files`, with its outcome as a :class:`Checked` (the report built only when asked for)."""
    for path in paths:
        check_path(path)
    ids = combined_ids(len(paths))
    runs = []
    for path in paths:
        run = _Run(path, mode, profile, sheet=sheet, shape=shape)
        for record in run:
            if ids is not None:
                check_combined(ids, run, record)
        runs.append(run)
    return Checked(runs, upload_issues(paths, profile))


class Checked:
    """What a validate or a convert found, before it is made a :class:`Report`: each file's run, and the
    issues of the upload as a whole. The report's models are pydantic (~65 ms to import); files with
    nothing to report need only :attr:`clean` and :meth:`summaries` to say so, and the command line asks
    for :meth:`report` only when there is more to say."""

    def __init__(self, runs: list[_Run], upload: list[Issue]) -> None:
        self._runs = runs
        self._upload = upload
        #: No file has an error and the upload as a whole is allowed (a convert wrote its output).
        self.valid = all(run.sink.errors == 0 for run in runs) and not any(i.severity == "error" for i in upload)

    @property
    def clean(self) -> bool:
        """Nothing at all to report: no error, no warning, in any file or about the upload."""
        return not self._upload and all(not run.sink.issues.counts for run in self._runs)

    @property
    def records(self) -> int:
        return sum(run.records for run in self._runs)

    def summaries(self) -> list[tuple[str, str | None, int]]:
        """Each file's path (as given), format and record count: what its report's line says of a clean file."""
        return [(run.name, run.format, run.records) for run in self._runs]

    def report(self) -> Report:
        from formatkit._core.issue_models import Report

        return Report.build([run.report() for run in self._runs], self._upload)

    def document(self, lang: str) -> str:
        """The JSON document ``formatkit validate --json`` prints (and ``formatkit serve``'s ``/v1/validate``
        answers): the report with every message in ``lang``, indented, Chinese unescaped."""
        return self.report().translated(lang).model_dump_json(indent=2)


def check_combined(ids: CombinedIds, run: _Run, record: RecordDict) -> bool:
    """The record against the ones read before it from this and the earlier files (see CombinedIds)."""
    return ids.check(record, run.name, run.source, run.sink)


def iter_dicts(
    path: StrPath,
    *,
    mode: Mode = "infer-eval",
    profile: Profile = "none",
    meta: bool = True,
    fast: bool = True,
    warnings: list[Issue] | None = None,
) -> Iterator[RecordDict]:
    """Yield the canonical records of one file as plain data, streaming.

    Records are yielded as they pass; when the file turns out to hold errors, InvalidFileError is raised
    at the end with the full report. Validate first (:func:`validate_file`) to know before reading.
    ``warnings``, when given, receives the file's warnings once every record is read.
    """
    run = _Run(path, mode, profile, fast)
    for record in run:
        if not meta:
            record.pop("meta", None)
        yield record
    report = run.report()
    if warnings is not None:
        warnings.extend(issue for issue in report.issues if issue.severity == "warning")
    if not report.valid:
        raise InvalidFileError(report)


def iter_records(
    path: StrPath, *, mode: Mode = "infer-eval", profile: Profile = "none", meta: bool = True
) -> Iterator[Any]:
    """Like :func:`iter_dicts`, as :class:`formatkit._core.models.Record` objects."""
    from formatkit._core.models import Record

    for data in iter_dicts(path, mode=mode, profile=profile, meta=meta):
        yield Record.model_validate(data)
