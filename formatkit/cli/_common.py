"""What every command shares: option types, exit codes, printing issues, loading inputs."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from enum import Enum
from typing import NoReturn

import typer

from formatkit._core.issues import Issue, Report

__all__ = [
    "EXIT_ERRORS",
    "EXIT_OK",
    "EXIT_USAGE",
    "ModeOption",
    "ProfileOption",
    "fail_usage",
    "print_report",
]

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2


class ModeOption(str, Enum):
    infer_eval = "infer-eval"
    infer_only = "infer-only"
    scored = "scored"


class ProfileOption(str, Enum):
    platform = "platform"
    none = "none"


def fail_usage(message: str) -> NoReturn:
    """Bad usage or an unreadable path: one line on stderr, exit code 2."""
    typer.echo(f"formatkit: error: {message}", err=True)
    raise typer.Exit(EXIT_USAGE)


def _issue_line(issue: Issue) -> str:
    label = "error  " if issue.severity == "error" else "warning"
    return f"  {label} {issue.place}: {issue.message} [{issue.code}]"


def print_report(report: Report, *, err: bool = False, quiet_valid: bool = False) -> None:
    """Issues a person can read: one line each with place, message and code, then a summary."""
    out = sys.stderr if err else sys.stdout
    for issue in report.issues:
        print(_issue_line(issue), file=out)
    for file in report.files:
        if file.valid and not file.issues and quiet_valid:
            continue
        fmt = file.format or "unknown format"
        status = "ok" if file.valid else "INVALID"
        print(
            f"{file.path}: {status} ({fmt}, {file.records} records, {file.errors} errors, {file.warnings} warnings)",
            file=out,
        )
        for issue in file.issues:
            print(_issue_line(issue), file=out)
    verdict = "valid" if report.valid else "invalid"
    print(f"{len(report.files)} file(s) {verdict}: {report.errors} error(s), {report.warnings} warning(s)", file=out)


def output_or_fail(output: str | os.PathLike[str]) -> None:
    """Refuse an output path that names a directory before any work is done (exit 2, one clear line)."""
    if os.path.isdir(output):
        fail_usage(f"{output}: is a directory; give -o the path of the file to write, not its folder")


def paths_or_fail(paths: Sequence[str]) -> list[str]:
    from formatkit._api.validate import check_path
    from formatkit._core.errors import UnreadablePathError

    for path in paths:
        try:
            check_path(path)
        except UnreadablePathError as exc:
            fail_usage(str(exc))
    return list(paths)
