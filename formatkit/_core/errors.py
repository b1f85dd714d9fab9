"""Runtime errors of formatkit. Bad *content* never raises (it becomes Issues); these are for callers.

FormatkitError
├── UnreadablePathError   a path that is missing, a directory, or not readable (CLI exit 2)
├── InvalidFileError      a file whose records were asked for has errors; carries its FileReport
└── OutputError           an output could not be written (nothing partial is left behind)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from formatkit._core.issues import FileReport

__all__ = ["FormatkitError", "InvalidFileError", "OutputError", "UnreadablePathError"]


class FormatkitError(Exception):
    """Base of every error formatkit raises on purpose."""


class UnreadablePathError(FormatkitError):
    """The path cannot be read at all."""


class InvalidFileError(FormatkitError):
    """The file has validation errors; ``report`` holds them all."""

    def __init__(self, report: FileReport) -> None:
        self.report = report
        super().__init__(f"{report.path}: {report.errors} error(s); run `formatkit validate` to see them")


class OutputError(FormatkitError):
    """Writing an output failed."""
