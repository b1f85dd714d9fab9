"""Runtime errors of formatkit. Bad *content* never raises (it becomes Issues); these are for callers.

FormatkitError
├── UnreadablePathError   a path that is missing, a directory, or not readable (CLI exit 2)
├── RepairError           ``fix`` could not open a file validate reads
│   └── RepairRefusedError  a workbook past the bounds fix rewrites (merged ranges, cell styles)
├── InvalidFileError      a file whose records were asked for has errors; carries its FileReport
│   └── SheetReadBackError  the workbook ``export_excel`` would write does not read back (nothing written)
└── OutputError           an output could not be written (nothing partial is left behind)
    └── OutputBusyError   another process is writing the same output (CLI exit 2, as ``run``'s lock)
SmallFileError            (ValueError) a side file (--dimensions, a judge template) that is not a small regular file
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from formatkit._core.issues import FileReport
    from formatkit._core.messages import Msg
    from formatkit._core.modes import Mode

__all__ = [
    "FormatkitError",
    "InvalidFileError",
    "OutputBusyError",
    "OutputError",
    "RepairError",
    "RepairRefusedError",
    "SheetReadBackError",
    "SmallFileError",
    "UnreadablePathError",
]


class FormatkitError(Exception):
    """Base of every error formatkit raises on purpose."""


class UnreadablePathError(FormatkitError):
    """The path cannot be read at all. ``template``: the catalogue's ``ui.`` key saying so in any language
    (the command line prints it in ``--lang``), ``fields`` its fields; None: only the English text."""

    def __init__(self, text: str, template: str | None = None, **fields: str) -> None:
        super().__init__(text)
        self.template = template
        self.fields = fields


class InvalidFileError(FormatkitError):
    """The file has validation errors; ``report`` holds them all."""

    def __init__(self, report: FileReport) -> None:
        self.report = report
        super().__init__(f"{report.path}: {report.errors} error(s); run `formatkit validate` to see them")


class SheetReadBackError(InvalidFileError):
    """The workbook export would write does not read back in ``mode`` (nothing was written); ``report``
    holds what the reader said."""

    def __init__(self, report: FileReport, mode: Mode) -> None:
        super().__init__(report)
        self.mode = mode


class RepairError(FormatkitError):
    """``fix`` could not open a file that ``validate`` reads without an error (nothing was written): the
    message says why; ``source`` and ``output`` are filled by :func:`formatkit.fix_file`."""

    def __init__(self, message: str, *, source: str = "", output: str = "") -> None:
        self.source = source
        self.output = output
        super().__init__(message)


class RepairRefusedError(RepairError):
    """``fix`` refused a workbook past the bounds it can rewrite in time and memory (merged ranges or cell
    styles by the hundred thousand): ``why`` (a catalogue message) names the range or the count and what to
    do; nothing was written."""

    def __init__(self, why: Msg, *, source: str = "", output: str = "") -> None:
        self.why = why
        super().__init__(why.render("en"), source=source, output=output)


class OutputError(FormatkitError):
    """Writing an output failed."""


class SmallFileError(ValueError):
    """A side file that is not a regular file, is too large, or cannot be read; the message says which."""


class OutputBusyError(OutputError):
    """Another process holds the output's lock; ``pid`` is its process id when known."""

    def __init__(self, message: str, *, pid: int | None = None) -> None:
        self.pid = pid
        super().__init__(message)
