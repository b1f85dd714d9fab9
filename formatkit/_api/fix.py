"""``formatkit fix``: a repaired copy of a set, the changes made, and the validation of the copy.

The input is never written: the copy goes to another path, atomically (or, with ``dry_run``, to a
temporary file that is validated and removed). What no repair can settle with certainty stays for the
copy's validation report to say.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from formatkit._api.validate import check_path, validate_file
from formatkit._core.errors import RepairError, RepairRefusedError, UnreadablePathError
from formatkit._core.formats import input_format, load
from formatkit._core.issues import FileReport
from formatkit._core.modes import Mode, Profile
from formatkit._core.writers import atomic_writer
from formatkit._fixing.changes import Change

__all__ = ["FixResult", "fix_file", "fixed_suffix"]

#: Codes that mean the input could not be read at all: nothing to repair (the report says why).
_UNREADABLE = ("unreadable_file", "empty_file", "unsupported_extension")

StrPath = str | os.PathLike[str]


class FixResult(BaseModel):
    """What ``fix`` did: the changes, notes on what the copy could not keep, whether the copy was written,
    and the validation report of the copy (of the input itself when it could not be read at all)."""

    source: str
    output: str
    written: bool
    changes: list[Change] = Field(default_factory=list)
    notes: list[Change] = Field(default_factory=list)
    report: FileReport
    errors_before: int = Field(description="Errors validate found in the input.")
    readable: bool = Field(default=True, description="False when no repair could read the input (report is its own).")

    @property
    def valid(self) -> bool:
        return self.report.valid

    def document(self, lang: str) -> dict[str, Any]:
        """The JSON document ``formatkit fix --json`` prints (and ``formatkit serve``'s ``/v1/fix`` answers
        within its own): every field, each change and note with its ``message`` in ``lang``, and ``valid``."""
        data = self.model_dump(mode="json")
        for key in ("changes", "notes"):
            for item, change in zip(data[key], getattr(self, key), strict=True):
                item["message"] = change.message(lang)
        data["valid"] = self.valid
        return data


def fixed_suffix(path: StrPath) -> str:
    """The extension of the repaired copy: .xlsx for a workbook (an .xls is rewritten as .xlsx), .jsonl (the
    ``fixed`` of :data:`formatkit._core.formats.INPUT_FORMATS`); a file fix does not repair keeps its own."""
    known = input_format(path)
    return known.fixed if known is not None and known.fixed is not None else Path(path).suffix.lower()


def fix_file(
    path: StrPath,
    output: StrPath,
    *,
    dry_run: bool = False,
    mode: Mode = "infer-eval",
    profile: Profile = "platform",
) -> FixResult:
    """Write a repaired copy of ``path`` to ``output`` (nothing with ``dry_run``) and validate the copy.

    UnreadablePathError for a missing input, an output that is the input, or an output of another kind
    (``.xlsx`` for a workbook, ``.jsonl`` for jsonl); RepairError (nothing written) when the repair of its
    format cannot open an input validate reads without an error (a format without one is left to validate)."""
    source = check_path(path)
    target = Path(output)
    _check_output(source, target)
    # The reader's guards first (zip bombs, stray far cells, encryption, damage): a file validate cannot
    # read is not handed to openpyxl either.
    before = validate_file(source, mode=mode, profile=profile)
    if any(code in before.counts for code in _UNREADABLE):
        return _unrepaired(path, output, before)
    known = input_format(source)
    if known is None or known.repair is None:  # a kind fix does not repair: left to validate (CONTRIBUTING)
        return _unrepaired(path, output, before)
    try:
        repaired = load(known.repair)(source)
        if repaired is None:
            raise RepairError("its repair could not read it")
    except RepairRefusedError as exc:  # past the bounds fix rewrites: refused, whatever validate found
        raise RepairRefusedError(exc.why, source=str(path), output=str(output)) from None
    except RepairError as exc:
        if not before.valid:  # a file no repair can open, and validate's report says why
            return _unrepaired(path, output, before)
        # validate reads it without an error: "nothing written" and exit 0 would claim a repair that
        # did not happen; say that it could not be repaired, and why
        raise RepairError(str(exc), source=str(path), output=str(output)) from exc
    data, changes, notes = repaired
    with _written(target, data, dry_run) as written:
        report = validate_file(written, mode=mode, profile=profile)
    if dry_run:
        report = _renamed(report, str(written), str(target))
    return FixResult(
        source=str(path),
        output=str(output),
        written=not dry_run,
        changes=changes,
        notes=notes,
        report=report,
        errors_before=before.errors,
    )


def _check_output(source: Path, target: Path) -> None:
    if target.exists() and (target.is_dir() or os.path.samefile(source, target)):
        what = "a directory" if target.is_dir() else "the input itself"
        raise UnreadablePathError(f"{target}: is {what}; give -o the path of a new file (fix never writes its input)")
    known = input_format(source)
    wanted = fixed_suffix(source)
    if known is not None and known.fixed is not None and target.suffix.lower() != wanted:
        raise UnreadablePathError(f"{target}: the repaired copy of {source.name} is a {wanted} file; name it *{wanted}")


def _unrepaired(path: StrPath, output: StrPath, before: FileReport) -> FixResult:
    """An input no repair can read (damaged, another kind): its own report, nothing written."""
    return FixResult(
        source=str(path), output=str(output), written=False, report=before, errors_before=before.errors, readable=False
    )


@contextlib.contextmanager
def _written(target: Path, data: bytes, dry_run: bool) -> Iterator[Path]:
    """The copy on disk: at ``target`` (atomically), or for a dry run in a temporary folder, removed after."""
    if not dry_run:
        with atomic_writer(target) as handle:
            handle.write(data)
        yield target
        return
    folder = tempfile.mkdtemp(prefix="formatkit-fix-")
    try:
        path = Path(folder) / target.name
        path.write_bytes(data)
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _renamed(report: FileReport, temporary: str, name: str) -> FileReport:
    """A dry run's report, naming the output it would have written instead of the temporary file."""
    issues = [issue.model_copy(update={"file": name}) if issue.file == temporary else issue for issue in report.issues]
    return report.model_copy(update={"path": name, "issues": issues})
