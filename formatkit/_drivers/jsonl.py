"""jsonl files: read the lines, detect the file's shape and run the jsonl rules over each line.

The rules themselves (docs/pages/reference/formats.md) live in :mod:`formatkit._rules.jsonl`, one function per
rule; this driver only walks the lines, keeps the file's state (its shape, the session ids seen, the records
handed out) and turns each line that passes into a Draft, or on the fast path into its canonical record.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from formatkit._building.record import clean_target
from formatkit._core.draft import Draft, Place
from formatkit._core.issues import Format, IssueSink
from formatkit._core.messages import Msg
from formatkit._core.modes import Mode
from formatkit._core.record import JsonObject, MessageDict, ReadSource, RecordDict
from formatkit._reading.jsonl_lines import iter_json_lines
from formatkit._rules import jsonl as rules
from formatkit._rules.canonical import check_canonical
from formatkit._rules.jsonl import detect_shape
from formatkit._rules.parameters import is_clean_parameters
from formatkit._rules.results import JSONL_RESULT_KEYS

__all__ = ["JsonlReader", "PartStart", "detect_shape"]


@dataclass(frozen=True)
class PartStart:
    """Where a later part of a jsonl file begins, as the lines before it left the reader when they gave
    one record each and nothing to report: the byte offset and number of the part's first line, and the
    file's shape (its first line's). Read from there, the part gives the bytes and issues that reading the
    whole file gives for its lines, if the lines before it were indeed that clean (the caller checks)."""

    offset: int
    line: int
    format: Format


class JsonlReader:
    """Reads a jsonl file line by line (memory stays flat).

    ``start`` reads only the part of the file from there on (see :class:`PartStart`); another process reads
    the lines before it."""

    def __init__(
        self,
        path: Path,
        *,
        mode: Mode,
        sink: IssueSink,
        max_rows: int | None,
        fast: bool = True,
        sheet: str | None = None,
        start: PartStart | None = None,
    ) -> None:
        """``sheet`` (a workbook's worksheet) does not apply to jsonl: ignored."""
        self.path = path
        #: Build a row that passes every rule on cheap checks straight into its record (same bytes).
        self.fast = fast
        self.mode = mode
        self.sink = sink
        self.max_rows = max_rows
        self.format: Format | None = None
        self.rows = 0
        self._session_ids = rules.SessionIds()
        self._name = str(path)
        self._stem = path.stem
        #: Drafts and records handed out so far: a fast record's default session_id (its position).
        self._yielded = 0
        self._start = start
        if start is not None:
            # the lines before: one record each, nothing given, nothing reported
            self.format = start.format
            self.rows = self._yielded = start.line - 1

    @property
    def clean(self) -> bool:
        """Whether every line read so far gave one record, none with a session_id of its own, and nothing
        was reported (the sink is empty): after line N, the state in which the part of the file after it may
        be read elsewhere (see :class:`PartStart`); after a part, that nothing in it breaks that state."""
        return (
            self.format == "jsonl-single-turn"
            and self.rows == self._yielded
            and not self.sink.issues.counts
            and not self._session_ids.given
        )

    def add_clean_part(self, first_line: int, records: int) -> None:
        """Account for ``records`` lines from ``first_line`` on, read elsewhere from this reader's state (see
        PartStart) with nothing reported: one record each, none with a session_id."""
        self._session_ids.default_run(self._yielded, records, first_line)
        self._yielded += records
        self.rows += records

    def drafts(self) -> Iterator[Draft | RecordDict]:
        sink = self.sink
        status = self.path.stat()
        # A named pipe (or /dev/stdin) says size 0 whatever it holds: it is read; "empty" only for a file.
        if stat.S_ISREG(status.st_mode) and status.st_size == 0:
            sink.add("empty_file", Msg("empty_file.jsonl"), line=None)
            return
        fast = self.fast
        dumps: dict[str, bytes] = {}  # the reader's compact JSON of the line's nested values
        # The fast path's names, looked up once: it runs for every line of a clean file.
        plain_single, is_clean, build_target = rules.plain_single, is_clean_parameters, clean_target
        default_id, max_rows, mode = self._session_ids.default, self.max_rows, self.mode
        dataset, name = self._stem, self._name
        start = (0, 1) if self._start is None else (self._start.offset, self._start.line)
        for line, value in iter_json_lines(self.path, sink, dumps, start=start):
            self.rows += 1
            if (
                fast
                and self.format == "jsonl-single-turn"
                and type(value) is dict
                and (max_rows is None or self.rows <= max_rows)
            ):
                # The line is of the file's shape (a line with "messages" fails plain_single and takes
                # the full checks, where detect_shape sees it). A line that passes every rule on cheap
                # checks becomes its canonical record here, built as build_record builds it from the
                # line's Draft (the same bytes; fast=False compares); anything else goes on below.
                fields = plain_single(value)
                if fields is not None:
                    prompt, system, answer, response, parameters = fields
                    if parameters is None:
                        parameters = {}
                        clean = True
                    else:
                        clean = is_clean(parameters, dumps.get("parameters"))
                    target = build_target(mode, answer, response, parameters) if clean else None
                    if target is not None:
                        user: MessageDict = {"role": "user", "content": prompt}
                        position = self._yielded
                        default_id(position, line, sink)
                        self._yielded = position + 1
                        yield {
                            "session_id": position,
                            "messages": [{"role": "system", "content": system}, user, target]
                            if system and not system.isspace()
                            else [user, target],
                            "meta": {
                                "dataset": dataset,
                                "source": {"file": name, "format": "jsonl-single-turn", "line": line},
                            },
                        }
                        continue
            if not rules.check_line_count(self.rows, self.max_rows, line, sink):
                break  # the platform refuses the file: reading on would only cost time and memory
            if not rules.check_object(value, line, sink):
                continue
            shape = detect_shape(value, self.format) or self.format or "jsonl-single-turn"
            if self.format is None:
                self.format = shape
            elif not rules.check_shape(shape, self.format, line, sink):
                continue
            draft = self._draft(value, line)
            if draft is not None:
                if draft.session_id is None and draft.canonical is None:
                    self._session_ids.default(self._yielded, line, sink)
                self._yielded += 1
                yield draft
        rules.check_no_records(self.rows, sink)

    def _draft(self, obj: JsonObject, line: int) -> Draft | None:
        """One line through every rule of its shape: its Draft, or None when no record can be built."""
        sink = self.sink
        source: ReadSource = {"file": self._name, "format": self.format, "line": line, "dataset": self._stem}
        if self.format == "jsonl-single-turn":
            # The common case checked in one go: keys all known, values all of the right types. Only a
            # filter: anything else goes through the full checks below, where every rule runs.
            fields = rules.plain_single(obj)
            if fields is not None:
                prompt, system, answer, response, parameters = fields
                user: MessageDict = {"role": "user", "content": prompt}
                turns: list[MessageDict] = (
                    [{"role": "system", "content": system}, user] if system and not system.isspace() else [user]
                )
                return rules.line_draft(line, None, turns, answer, response, parameters, source, None)
        if self.format == "canonical":
            record = check_canonical(obj, self.mode, sink, line=line)
            if record is None:
                return None
            # A canonical file may hold several sets (convert writes them into one): an id is unique in its set.
            meta = record.get("meta")
            dataset = meta.get("dataset") if isinstance(meta, dict) else None
            self._session_ids.check(record.get("session_id"), line, sink, dataset if isinstance(dataset, str) else None)
            return Draft(
                session_id=record.get("session_id"),
                history=[],
                reference=None,
                reference_place={"line": line},
                response=None,
                response_place={"line": line},
                parameters=None,
                parameters_place={"line": line},
                source=source,
                canonical=record,
            )
        allowed = rules.SINGLE_KEYS if self.format == "jsonl-single-turn" else rules.MULTI_KEYS
        fields_ = rules.map_keys(obj, allowed, self.format, line, sink)
        session_id = rules.session_id_field(fields_.get("session_id"), line, sink)
        if session_id is not None:
            self._session_ids.check(session_id, line, sink)
        if self.format == "jsonl-single-turn":
            history = rules.single_history(fields_, line, sink)
        else:
            history = rules.multi_history(fields_, line, sink)
        reference = rules.check_text(fields_, "answer", line, sink, required=False)
        response = rules.check_text(fields_, "response", line, sink, required=False)
        meta = rules.check_meta_field(fields_.get("meta"), line, sink)
        parameters = rules.check_parameters_field(fields_.get("parameters"), line, sink)
        if history is None:
            return None
        draft = rules.line_draft(line, session_id, history, reference, response, parameters, source, meta)
        # seed 001's result keys (score, analysis, usage, error, model/endpoint_id) go into the response
        results: dict[str, tuple[Any, Place]] = {
            k: (fields_[k], {"line": line, "field": k}) for k in JSONL_RESULT_KEYS if k in fields_
        }
        if results:
            draft.results = results
        return draft
