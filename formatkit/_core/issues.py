"""Issues are data: what is wrong, where, and how to fix it. A Report groups them per file.

The rules report into an :class:`IssueSink`; the models (:class:`Issue`, :class:`FileReport`,
:class:`Report`) are pydantic classes in :mod:`formatkit._core.issue_models`, imported from here on first use
(``from formatkit._core.issues import Report`` works as before), so that a file with nothing to report
is read and converted without importing pydantic."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from formatkit._core.codes import CODES, Code
from formatkit._core.issue_parts import CAUSES, Format, safe_text
from formatkit._core.messages import Msg

if TYPE_CHECKING:
    from formatkit._core.issue_models import FileReport as FileReport
    from formatkit._core.issue_models import Issue as Issue
    from formatkit._core.issue_models import Report as Report

__all__ = [
    "CAUSES",
    "KEEP_PER_CODE",
    "FileReport",
    "Format",
    "Issue",
    "IssueSink",
    "KeptIssues",
    "Report",
    "make_issue",
]


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


def make_issue(code: Code, message: Msg, **place: Any) -> Issue:
    """An Issue whose severity comes from the code catalogue (an unknown code is a bug: KeyError). A
    :class:`Msg` is rendered in English here and kept, to be rendered in another language on demand."""
    from formatkit._core.issue_models import Issue

    severity, _ = CODES[code]
    template = message if type(message) is Msg else None
    text = message.render() if template is not None else message
    issue = Issue(
        severity=severity, code=safe_text(code), message=safe_text(text), **{k: safe_text(v) for k, v in place.items()}
    )
    if template is not None:
        issue._template = template
    return issue


class KeptIssues(list["Issue"]):
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

    def add(self, code: Code, message: Msg, **place: Any) -> None:
        """Count an issue and keep it (rendering its message) while fewer than ``keep`` of its code are."""
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


_MODELS = ("FileReport", "Issue", "Report")


def __getattr__(name: str) -> Any:
    """The models, imported on first use (see the module docstring)."""
    if name in _MODELS:
        from formatkit._core import issue_models

        return getattr(issue_models, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
