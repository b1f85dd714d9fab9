"""Reports a person can act on: the verdict of each file first, then its issues grouped by code.

A 5,000-row file with 3,000 errors prints a handful of lines, not 3,003: each code once with its count and
its first places (``--all`` lists every kept issue; ``--json`` always does). Errors come before warnings,
and problems that decide the whole file (too many rows, an unreadable file, a missing column) before the
per-cell ones. Control characters from the files (terminal escapes in a key, a role or a cell) are
printed escaped, so a crafted file cannot fake or hide a line. Colour only on a terminal (and never with
NO_COLOR); long lines wrap to the terminal's width there, by display width (:mod:`formatkit.cli._wrap`).
Every word is a template of the message catalogue, in the language asked for (``--lang``, else the locale).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from formatkit._cli_support import CAUSES
from formatkit.cli._base import standard_stream
from formatkit.cli._wrap import display_width, wrap
from formatkit.codes import describe
from formatkit.messages import Msg, escape_controls, locale_lang, ui

if TYPE_CHECKING:
    from formatkit import FileReport, Issue, Report

__all__ = ["DEFAULT_SHOWN", "escape_controls", "print_clean", "print_report"]

#: Issues listed per code unless --max-issues or --all says otherwise.
DEFAULT_SHOWN = 5
#: Codes that decide the whole file, listed first.
FILE_LEVEL = (
    "too_many_files",
    "unsupported_extension",
    "unreadable_file",
    "empty_file",
    "no_records",
    "too_many_rows",
    "not_utf8",
    "missing_column",
    "mixed_shapes",
    "mixed_session_ids",
    "extra_sheet",
)


#: The messages that say "read it with --sheet", and what each says instead where the command has no --sheet
#: (fix, run, score, eval): only validate and convert pass ``sheet_option``.
NO_SHEET_OPTION = {
    key: f"{key}.no_sheet_option"
    for key in ("extra_sheet", "no_records.first_sheet_empty", "no_records.first_sheet_not_data")
}


class _Style:
    def __init__(self, out: TextIO, lang: str) -> None:
        tty = hasattr(out, "isatty") and out.isatty()
        self.colour = tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
        self.width = shutil.get_terminal_size((100, 24)).columns if tty else 0
        self.lang = lang

    def paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour else text

    def emit(self, line: str, out: TextIO, indent: int) -> None:
        if self.width and self.width > indent + 20 and display_width(line) > self.width:
            line = "\n".join(wrap(line, self.width, indent))
        print(line, file=out)

    def text(self, key: str, **params: object) -> str:
        return ui(key, self.lang, **params)


def _label(severity: str, style: _Style) -> str:
    if severity == "error":
        return style.paint(_pad(style.text("error"), 7), "1;31")
    return style.paint(_pad(style.text("warning"), 7), "33")


def _pad(text: str, columns: int) -> str:
    return text + " " * max(0, columns - display_width(text))


def _groups(issues: Sequence[Issue]) -> list[tuple[str, list[Issue]]]:
    by_code: dict[str, list[Issue]] = {}
    for issue in issues:
        by_code.setdefault(issue.code, []).append(issue)

    def order(item: tuple[str, list[Issue]]) -> tuple[int, int, int]:
        # Problems of the whole file first, then causes (a warning that explains errors), then the rest.
        code, _ = item
        level = FILE_LEVEL.index(code) if code in FILE_LEVEL else len(FILE_LEVEL)
        error = describe(code)[0] == "error"
        rank = 0 if error and code in FILE_LEVEL else 1 if code in CAUSES else 2 if error else 3
        return (rank, level, list(by_code).index(code))

    return sorted(by_code.items(), key=order)


def _print_issues(
    issues: Sequence[Issue], counts: dict[str, int], out: TextIO, style: _Style, shown: int | None
) -> None:
    for code, group in _groups(issues):
        total = max(counts.get(code, 0), len(group))
        label = _label(group[0].severity, style)
        if total == 1:
            issue = group[0]
            line = f"  {label} {escape_controls(issue.place_in(style.lang))}: {escape_controls(issue.message)} [{code}]"
            style.emit(line, out, 10)
            continue
        summary = Msg(f"summary.{code}").render(style.lang)
        style.emit(f"  {label} {style.paint(code, '1')} ×{total:,}: {summary}", out, 10)
        limit = len(group) if shown is None else min(shown, len(group))
        for issue in group[:limit]:
            style.emit(f"      {escape_controls(issue.place_in(style.lang))}: {escape_controls(issue.message)}", out, 8)
        rest = total - limit
        if rest > 0:
            more = style.text("more_all" if limit < len(group) else "more_kept", count=rest)
            style.emit(f"      {more}", out, 8)


def print_report(
    report: Report,
    *,
    err: bool = False,
    quiet_valid: bool = False,
    shown: int | None = DEFAULT_SHOWN,
    lang: str | None = None,
    sheet_option: bool = False,
) -> None:
    """The report for a person: per file its verdict line, then its issues grouped by code, each code with
    its count and its first ``shown`` places (None: every kept issue); then a one-line summary. ``lang``:
    the language of every message (None: the locale's, see :func:`formatkit._core.messages.locale_lang`);
    ``sheet_option``: the command takes ``--sheet``, so a message may say to read a sheet with it."""
    out = standard_stream(err)  # typer.echo's choice: on an ASCII stream, UTF-8 rather than a traceback
    if out is None:
        return
    lang = lang or locale_lang()
    report = report.translated(lang, None if sheet_option else NO_SHEET_OPTION)
    style = _Style(out, lang)
    counts: dict[str, int] = {}
    for issue in report.issues:
        counts[issue.code] = counts.get(issue.code, 0) + 1
    _print_issues(report.issues, counts, out, style, shown)
    for file in report.files:
        if file.valid and not file.issues and quiet_valid:
            continue
        _print_file(file, out, style, shown)
    _verdict(report.valid, len(report.files), report.errors, report.warnings, out, style)


def print_clean(
    files: Sequence[tuple[str, str | None, int]],
    *,
    err: bool = False,
    quiet_valid: bool = False,
    lang: str | None = None,
) -> None:
    """What :func:`print_report` prints for files with nothing to report, given each one's path, format and
    record count (``Checked.summaries``), without a Report: its models are pydantic, ~65 ms to import for
    a few lines."""
    out = standard_stream(err)
    if out is None:
        return
    style = _Style(out, lang or locale_lang())
    if not quiet_valid:
        for path, fmt, records in files:
            style.emit(_file_head(path, True, fmt, records, 0, 0, style), out, 2)
    _verdict(True, len(files), 0, 0, out, style)


def _file_head(path: str, valid: bool, fmt: str | None, records: int, errors: int, warnings: int, style: _Style) -> str:
    status = style.paint(style.text("ok"), "32") if valid else style.paint(style.text("invalid_file"), "1;31")
    return style.text(
        "file_head",
        path=escape_controls(path),
        status=status,
        format=fmt or style.text("unknown_format"),
        records=records,
        errors=errors,
        warnings=warnings,
    )


def _verdict(valid: bool, files: int, errors: int, warnings: int, out: TextIO, style: _Style) -> None:
    line = style.text("verdict_valid" if valid else "verdict_invalid", files=files, errors=errors, warnings=warnings)
    style.emit(style.paint(line, "1;32" if valid else "1;31"), out, 2)


def _print_file(file: FileReport, out: TextIO, style: _Style, shown: int | None) -> None:
    head = _file_head(file.path, file.valid, file.format, file.records, file.errors, file.warnings, style)
    style.emit(head, out, 2)
    _print_issues(file.issues, file.counts, out, style, shown)
