"""The pydantic models of issues and reports: Issue, FileReport, Report (the JSON of ``validate --json``).

They live apart from :mod:`formatkit._core.issues` (the sink every rule reports into) so that reading and
checking a file does not import pydantic: ~65 ms of every start, paid only when an issue is made or a
report is built (a clean file's records need neither).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from formatkit._core.codes import CODES, Severity
from formatkit._core.issue_parts import CAUSES, Format, safe_text
from formatkit._core.messages import DEFAULT_LANG, Msg

__all__ = ["FileReport", "Issue", "Report"]


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
    #: The template and fields the message was rendered from (None for an issue built from plain text,
    #: e.g. read back from JSON): what :meth:`translated` renders in another language.
    _template: Msg | None = PrivateAttr(default=None)

    @property
    def template(self) -> Msg | None:
        """The message's template key and fields, when the issue was made from one."""
        return self._template

    def translated(self, lang: str, variants: Mapping[str, str] | None = None) -> Issue:
        """This issue with its message in ``lang`` (itself when it has no template or lang is English).
        ``variants``: template keys said with another key of the same fields where the context asks for it
        (the CLI's commands without ``--sheet`` say their sheet hints without it)."""
        template = self._template
        if template is None:
            return self
        if variants and template.key in variants:
            template = Msg(variants[template.key], **template.params)
        elif lang == DEFAULT_LANG:
            return self
        copy = self.model_copy(update={"message": safe_text(template.render(lang))})
        copy._template = template
        return copy

    @property
    def place(self) -> str:
        """The place as a person reads it: ``set.xlsx, Sheet1!B7 (query)`` or ``set.jsonl, line 3, messages[0]``."""
        return self.place_in(DEFAULT_LANG)

    def place_in(self, lang: str) -> str:
        """:attr:`place` in ``lang`` (only the words "row" and "line" change)."""
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
            parts.append(Msg("ui.place_row", row=self.row).render(lang))
        if self.line is not None:
            parts.append(Msg("ui.place_line", line=self.line).render(lang))
        if self.field:
            parts.append(self.field)
        return ", ".join(parts)


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

    def translated(self, lang: str, variants: Mapping[str, str] | None = None) -> FileReport:
        """This report with every message in ``lang`` (``variants``: as :meth:`Issue.translated`)."""
        if lang == DEFAULT_LANG and not variants:
            return self
        return self.model_copy(update={"issues": [issue.translated(lang, variants) for issue in self.issues]})


def _issue_order(issue: Issue) -> tuple[int, int, str]:
    rank = 0 if issue.code in CAUSES else 1 if issue.severity == "error" else 2
    return (issue.row or issue.line or 0, rank, issue.column or issue.field or "")


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

    def translated(self, lang: str, variants: Mapping[str, str] | None = None) -> Report:
        """This report with every message in ``lang`` (codes, places and keys stay as they are; ``variants``:
        as :meth:`Issue.translated`)."""
        if lang == DEFAULT_LANG and not variants:
            return self
        return self.model_copy(
            update={
                "files": [file.translated(lang, variants) for file in self.files],
                "issues": [issue.translated(lang, variants) for issue in self.issues],
            }
        )

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
