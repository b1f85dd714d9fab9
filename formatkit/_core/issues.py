"""Issues are data: what is wrong, where, and how to fix it. A Report groups them per file."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from formatkit._core.codes import CODES, Code, Severity

__all__ = ["KEEP_PER_CODE", "FileReport", "Format", "Issue", "IssueSink", "KeptIssues", "Report", "make_issue"]

Format = Literal["excel-single-turn", "excel-multi-turn", "jsonl-single-turn", "jsonl-multi-turn", "canonical"]

PLACE_FIELDS = ("file", "sheet", "row", "column", "line", "field")


def _keep_default() -> int:
    try:
        return max(1, int(os.environ.get("FORMATKIT_KEEP_ISSUES", "")))
    except ValueError:
        return 1000


#: Issues kept in memory per code and file; every issue is counted. Settable per sink, or for a whole
#: process with the environment variable FORMATKIT_KEEP_ISSUES (5 MB of blank lines would otherwise be
#: five million Issue objects, gigabytes).
KEEP_PER_CODE = _keep_default()
_SURROGATES = re.compile("[\ud800-\udfff]")


class Issue(BaseModel):
    """One problem found in a file, at an exact place."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    severity: Severity
    code: str = Field(description="Stable snake_case code; see formatkit.CODES.")
    message: str = Field(description="What is wrong, where, and how to fix it.")
    file: str | None = None
    sheet: str | None = None
    row: int | None = Field(default=None, description="Excel row number as Excel shows it.")
    column: str | None = Field(default=None, description='Column letter and header, e.g. "A (session_id)".')
    line: int | None = Field(default=None, description="1-based jsonl line number.")
    field: str | None = Field(default=None, description="JSON path inside the line, e.g. messages[2].role.")

    @property
    def place(self) -> str:
        """The place as a person reads it: ``set.xlsx, Sheet1!B7 (query)`` or ``set.jsonl:3 messages[0]``."""
        parts: list[str] = []
        if self.file:
            parts.append(self.file)
        if self.sheet is not None:
            cell = self.sheet
            if self.row is not None or self.column is not None:
                letter = (self.column or "").split(" ")[0]
                cell += f"!{letter}{self.row if self.row is not None else ''}"
                if self.column and " " in self.column:
                    cell += " " + self.column.split(" ", 1)[1]
            parts.append(cell)
        elif self.row is not None:
            parts.append(f"row {self.row}")
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.field:
            parts.append(self.field)
        return ", ".join(parts)


def make_issue(code: Code, message: str, **place: Any) -> Issue:
    """An Issue whose severity comes from the code catalogue (an unknown code is a bug: KeyError)."""
    severity, _ = CODES[code]
    return Issue(severity=severity, code=_safe(code), message=_safe(message), **{k: _safe(v) for k, v in place.items()})


def _safe(value: Any) -> Any:
    """Text that any UTF-8 output can hold: a lone surrogate (from a jsonl escape) is written as its escape."""
    if type(value) is str and not value.isascii() and _SURROGATES.search(value):
        return _SURROGATES.sub(lambda m: f"\\u{ord(m.group()):04x}", value)
    return value


class KeptIssues(list[Issue]):
    """The issues kept for a file, with the count of every issue found, per code (kept or not)."""

    counts: dict[str, int]

    def __init__(self) -> None:
        super().__init__()
        self.counts = {}


class IssueSink:
    """Collects issues for one file; every reader and rule appends here instead of raising."""

    def __init__(self, file: str, *, keep: int | None = None) -> None:
        self.file = file
        self.keep = KEEP_PER_CODE if keep is None else keep
        self.issues = KeptIssues()
        self.errors = 0

    def room(self, code: Code) -> int:
        """How many more issues of ``code`` will be kept."""
        return max(0, self.keep - self.issues.counts.get(code, 0))

    def add(self, code: Code, message: str, **place: Any) -> None:
        counts = self.issues.counts
        seen = counts.get(code, 0)
        counts[code] = seen + 1
        if CODES[code][0] == "error":
            self.errors += 1
        if seen >= self.keep:
            return  # counted, not kept: memory stays bounded however many there are
        place.setdefault("file", self.file)
        self.issues.append(make_issue(code, message, **place))

    def count(self, code: Code, more: int) -> None:
        """Count ``more`` issues of ``code`` that are not kept (past :meth:`room`)."""
        self.issues.counts[code] = self.issues.counts.get(code, 0) + more
        if CODES[code][0] == "error":
            self.errors += more

    def extend(self, issues: Iterable[Issue]) -> None:
        counts = self.issues.counts
        for issue in issues:
            seen = counts.get(issue.code, 0)
            counts[issue.code] = seen + 1
            if issue.severity == "error":
                self.errors += 1
            if seen < self.keep:
                self.issues.append(issue)


class FileReport(BaseModel):
    """The outcome of validating one file."""

    model_config = ConfigDict(defer_build=True)

    path: str
    valid: bool
    format: Format | None = None
    records: int = 0
    errors: int = 0
    warnings: int = 0
    issues: list[Issue] = Field(default_factory=list)
    counts: dict[str, int] = Field(
        default_factory=dict, description="Every issue found, per code; issues lists the first ones of each."
    )
    omitted: int = Field(default=0, description="Issues counted but not listed (past the number kept per code).")

    @classmethod
    def build(cls, path: str, fmt: Format | None, records: int, issues: Sequence[Issue]) -> FileReport:
        counts = dict(getattr(issues, "counts", None) or {})
        if not counts:
            for issue in issues:
                counts[issue.code] = counts.get(issue.code, 0) + 1
        errors = sum(n for code, n in counts.items() if CODES[code][0] == "error")
        total = sum(counts.values())
        # Built from data this module made (no validation to do): model_construct skips building the
        # pydantic validator, which a convert with no issue would otherwise pay for at every start.
        return cls.model_construct(
            path=path,
            valid=errors == 0,
            format=fmt,
            records=records,
            errors=errors,
            warnings=total - errors,
            issues=sorted(issues, key=_issue_order),
            counts=dict(sorted(counts.items())),
            omitted=total - len(issues),
        )


def _issue_order(issue: Issue) -> tuple[int, int, str]:
    return (issue.row or issue.line or 0, 0 if issue.severity == "error" else 1, issue.column or issue.field or "")


class Report(BaseModel):
    """The outcome of validating one or more files (the JSON of ``formatkit validate --json``)."""

    model_config = ConfigDict(defer_build=True)

    valid: bool
    files: list[FileReport] = Field(default_factory=list)
    issues: list[Issue] = Field(
        default_factory=list, description="Issues about the upload as a whole (e.g. too many files)."
    )

    @classmethod
    def build(cls, files: Sequence[FileReport], issues: Sequence[Issue] = ()) -> Report:
        valid = all(f.valid for f in files) and not any(i.severity == "error" for i in issues)
        return cls.model_construct(valid=valid, files=list(files), issues=list(issues))

    @property
    def errors(self) -> int:
        return sum(f.errors for f in self.files) + sum(1 for i in self.issues if i.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(f.warnings for f in self.files) + sum(1 for i in self.issues if i.severity == "warning")

    def all_issues(self) -> list[Issue]:
        return [*self.issues, *(i for f in self.files for i in f.issues)]

    def flatten(self, fields: Sequence[str] = ("code", "row", "column", "line", "field")) -> list[list[Any]]:
        """Issues as rows of the named fields — handy in tests and notebooks."""
        return [[getattr(issue, name) for name in fields] for issue in self.all_issues()]
