"""Conversion: any valid input files → one canonical jsonl, written atomically."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from formatkit._api.jsonl_part import LaterPart
from formatkit._api.validate import Checked, StrPath, _Run, check_combined, check_path, upload_issues
from formatkit._core.modes import MAX_ROWS, Mode, Profile
from formatkit._core.writers import atomic_writer, dumps_line, output_lock, refuse_special
from formatkit._rules.combined import combined_ids

if TYPE_CHECKING:
    from formatkit._core.issue_models import Report

__all__ = ["check_output", "convert", "run_conversion"]


class _Abort(Exception):
    pass


#: Spreadsheet names: convert writes jsonl, so a ``-o set.xlsx`` would be a jsonl file Excel cannot open.
_SPREADSHEET_SUFFIXES = (".xlsx", ".xls", ".xlsm", ".csv")


def check_output(output: StrPath, inputs: Sequence[StrPath] = ()) -> None:
    """Refuse, before any work, an output that is a directory, named like a spreadsheet, or one of the
    ``inputs``."""
    from formatkit._core.errors import OutputError

    if any(Path(p).resolve() == Path(output).resolve() for p in inputs if os.path.exists(output)):
        raise OutputError(f"{output}: the output would overwrite an input file")
    if os.path.isdir(output):
        raise OutputError(f"{output}: is a directory; name the .jsonl file to write")
    refuse_special(Path(output))
    if Path(output).suffix.lower() in _SPREADSHEET_SUFFIXES:
        raise OutputError(
            f"{output}: convert writes canonical jsonl, not a spreadsheet; name the output .jsonl "
            "(then `formatkit export OUT.jsonl -o OUT.xlsx` gives a spreadsheet to read)"
        )


def convert(
    paths: Sequence[StrPath],
    output: StrPath,
    *,
    mode: Mode = "infer-eval",
    profile: Profile = "platform",
    meta: bool = True,
    fast: bool = True,
    sheet: str | None = None,
    shape: str | None = None,
) -> Report:
    """Validate ``paths`` and write their records to ``output`` as canonical jsonl, in input order.
    ``fast=False`` sends every row through the full rules (the same bytes; the tests compare the two).

    Validation and writing happen in one pass; the output is renamed into place only when no file
    has an error, so on failure nothing is written and an existing output is left untouched. The files
    are checked as one output too: a session_id used twice in one dataset across them (or, with
    ``meta=False``, anywhere in the output) is an error at the later record's place, so the output always
    passes ``validate``. ``shape``: the files are another tool's, one of :data:`formatkit.SHAPES`.
    """
    return run_conversion(
        paths, output, mode=mode, profile=profile, meta=meta, fast=fast, sheet=sheet, shape=shape
    ).report()


def run_conversion(
    paths: Sequence[StrPath],
    output: StrPath,
    *,
    mode: Mode = "infer-eval",
    profile: Profile = "platform",
    meta: bool = True,
    fast: bool = True,
    sheet: str | None = None,
    shape: str | None = None,
) -> Checked:
    """:func:`convert`, with its outcome as a :class:`~formatkit._api.validate.Checked` (the report built
    only when asked for)."""
    for path in paths:
        check_path(path)
    check_output(output, paths)
    runs: list[_Run] = []
    failed = False
    ids = combined_ids(len(paths), by_dataset=meta)
    max_rows = MAX_ROWS if profile == "platform" else None
    try:
        with output_lock(output), atomic_writer(output) as handle:
            for path in paths:
                run = _Run(path, mode, profile, fast, sheet, shape=shape)
                # A large jsonl file's later part may be read by a second process (see jsonl_part).
                single = len(paths) == 1 and shape is None
                part = LaterPart.start(run, output, meta=meta, max_rows=max_rows) if single else None
                try:
                    for record in run:
                        if ids is not None and not check_combined(ids, run, record):
                            failed = True
                        if not meta:
                            record.pop("meta", None)
                        if not failed:
                            handle.write(dumps_line(record))
                        if part is not None and run.source.get("line", 0) >= part.boundary:
                            if part.join(run, handle):
                                break  # the rest of the file was read by the worker
                            part = None
                finally:
                    if part is not None:
                        part.close()
                failed = failed or run.sink.errors > 0
                runs.append(run)
            result = Checked(runs, upload_issues(paths, profile))
            if not result.valid:
                raise _Abort
    except _Abort:
        pass
    return result
