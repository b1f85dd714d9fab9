"""One table from the exceptions a command may end in to its exit code and what it prints.

A command runs its work inside :func:`exits` and catches nothing itself::

    with exits("run", lang, kept=lambda exc: kept(jobs, journal), output=output):
        summary = run_file(...)

When an exception escapes, the first row of :func:`failures` for that command whose types match it
decides: the exit code, the FileReport to print first (``report``: the exception's ``.report``, as
``validate`` prints it) and the message, a ``ui.<key>`` template of the message catalogues
(:mod:`formatkit.messages`, so ``--lang zh`` covers it) printed on stderr. An exception no row
names propagates unchanged, to :func:`formatkit.cli.main`, which applies the rows of ``*`` (the machine's
refusals: one line, never a traceback).

A template's fields are filled by name: ``error`` is the exception's text; any other field is the
command's context value of that name (called with the exception when it is a function, so a hint is
worded only when it is printed), else the exception's attribute of that name (``bought``, ``mode``).
Every text field is printed through :func:`formatkit.messages.escape_controls` (names and texts from a
file or a server cannot drive the terminal or forge a line); the exception's text and a merge's
``problems`` keep their own line breaks, each line escaped.

The table is built on first need: the fast path of ``convert`` imports neither scoring nor the
report's printer until something fails.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from typing import Any

from formatkit.cli._base import EXIT_ERRORS, EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_USAGE, echo

__all__ = ["Failure", "exits", "failure_of", "failures", "say"]


class Failure:
    """A row: a command (``*``: :func:`formatkit.cli.main`, around every command), the exceptions it
    catches (a subclass before its base), the exit code, the ``ui.`` key of the message (None: none) and
    whether the exception's FileReport is printed first. (A plain class: a NamedTuple or a dataclass costs
    a millisecond at every start.)"""

    __slots__ = ("code", "command", "key", "kinds", "report")

    def __init__(
        self, command: str, kinds: tuple[type[BaseException], ...], code: int, key: str | None, report: bool = False
    ) -> None:
        self.command = command
        self.kinds = kinds
        self.code = code
        self.key = key
        self.report = report

    def __repr__(self) -> str:
        names = ", ".join(kind.__name__ for kind in self.kinds)
        return f"Failure({self.command!r}, ({names}), {self.code}, {self.key!r})"


@functools.cache
def failures() -> tuple[Failure, ...]:
    """The table: every command's rows, in the order they are tried."""
    return (*_endpoint_rows(), *_file_rows())


def _endpoint_rows() -> tuple[Failure, ...]:
    """The rows of the commands that call an endpoint or read results: run, eval, score, report, judge-check."""
    from formatkit.errors import InvalidFileError, OutputBusyError
    from scoring.errors import (
        AnsweredSetError,
        BadLabelsError,
        EndpointSetupError,
        EndpointUnavailableError,
        JudgeSetupError,
        JudgeUnavailableError,
        MetricError,
        OtherModelResultsError,
        OutputLockedError,
        ProxyUnsupportedError,
        ResultsFileError,
        RunInterrupted,
        ScoringWorkerError,
    )

    interrupted = (KeyboardInterrupt,)
    terminated = (RunInterrupted,)
    # what no request can be built from (found when the client is made, before the first request): bad usage
    setup = tuple(
        row
        for command in ("run", "eval", "score")
        for row in (
            Failure(command, (ProxyUnsupportedError,), EXIT_USAGE, "proxy_unsupported"),
            Failure(command, (EndpointSetupError,), EXIT_USAGE, "failed"),
        )
    )
    return (
        *setup,
        # run IN -o OUT: the journal keeps what finished in every case
        Failure("run", (OutputLockedError,), EXIT_USAGE, "run.locked"),
        Failure("run", (EndpointUnavailableError,), EXIT_ERRORS, "run.stopped"),
        Failure("run", (OSError,), EXIT_ERRORS, "run.io_error"),
        Failure("run", terminated, EXIT_TERMINATED, "run.terminated"),
        Failure("run", interrupted, EXIT_INTERRUPTED, "run.interrupted"),
        # eval SET... -o DIR: every stage resumes on a rerun
        Failure("eval", (OutputLockedError, OutputBusyError), EXIT_USAGE, "eval.locked"),
        Failure("eval", (OtherModelResultsError,), EXIT_USAGE, "eval.other_model"),
        Failure("eval", (AnsweredSetError,), EXIT_USAGE, "eval.answered"),
        Failure("eval", (InvalidFileError,), EXIT_ERRORS, "eval.invalid", report=True),
        Failure("eval", (JudgeSetupError,), EXIT_USAGE, "failed"),
        Failure("eval", (JudgeUnavailableError,), EXIT_ERRORS, "eval.judge_stopped"),
        Failure("eval", (EndpointUnavailableError,), EXIT_ERRORS, "eval.run_stopped"),
        Failure("eval", terminated, EXIT_TERMINATED, "eval.terminated"),
        Failure("eval", interrupted, EXIT_INTERRUPTED, "eval.interrupted"),
        # score IN -o OUT: OUT is written only at the end; the judge's journal keeps its verdicts
        Failure("score", (MetricError, JudgeSetupError), EXIT_USAGE, "failed"),
        Failure("score", (InvalidFileError,), EXIT_ERRORS, None, report=True),
        Failure("score", (JudgeUnavailableError,), EXIT_ERRORS, "score.judge_stopped"),
        Failure("score", (ScoringWorkerError,), EXIT_ERRORS, "score.worker_failed"),
        Failure("score", (BadLabelsError,), EXIT_ERRORS, "labels.refused"),
        Failure("score", terminated, EXIT_TERMINATED, "score.terminated"),
        Failure("score", interrupted, EXIT_INTERRUPTED, "score.interrupted"),
        # report RESULTS...
        Failure("report", (ResultsFileError,), EXIT_USAGE, "failed"),
        # judge-check SCORED --human LABELS: a file that is neither results nor labels is bad usage
        Failure("judge-check", (ResultsFileError,), EXIT_USAGE, "failed"),
        Failure("judge-check", (InvalidFileError,), EXIT_USAGE, None, report=True),
    )


def _file_rows() -> tuple[Failure, ...]:
    """The rows of the commands that write files (export, merge, convert, fix), then any command's."""
    from formatkit.errors import (
        FormatkitError,
        InvalidFileError,
        OutputBusyError,
        OutputError,
        RepairError,
        RepairRefusedError,
        SheetReadBackError,
        UnreadablePathError,
    )
    from scoring.errors import MergeError

    return (
        # export RESULTS -o OUT.xlsx: nothing is written unless the sheet reads back
        Failure("export", (SheetReadBackError,), EXIT_ERRORS, "export.read_back", report=True),
        Failure("export", (OutputBusyError,), EXIT_USAGE, "failed_nothing_written"),
        Failure("export", (InvalidFileError,), EXIT_ERRORS, None, report=True),
        Failure("export", (OutputError, OSError), EXIT_ERRORS, "export.not_written"),
        # merge PART... -o OUT
        Failure("merge", (MergeError,), EXIT_ERRORS, "merge.refused"),
        Failure("merge", (OutputError,), EXIT_ERRORS, "merge.not_written"),
        # convert PATH... -o OUT (its body also runs on the fast path, without typer); "output": the
        # check of -o before any work (a folder, a spreadsheet's name, an input) is bad usage
        Failure("output", (OutputError,), EXIT_USAGE, "failed"),
        Failure("convert", (OutputBusyError,), EXIT_USAGE, "failed_nothing_written"),
        Failure("convert", (OutputError, OSError), EXIT_ERRORS, "convert.not_written"),
        # fix IN -o OUT: a file validate reads that fix cannot open is refused, saying why (nothing
        # written); a path or output it cannot use is bad usage
        Failure("fix", (RepairRefusedError,), EXIT_ERRORS, "fix.refused"),
        Failure("fix", (RepairError,), EXIT_ERRORS, "fix.cannot_repair"),
        Failure("fix", (UnreadablePathError, OutputError, OSError), EXIT_USAGE, "failed"),
        # any command: the machine refusing (a full disk, a read-only folder), or an output another
        # command is writing (exit 2, as run's lock)
        Failure("*", (OutputBusyError,), EXIT_USAGE, "failed_nothing_written"),
        Failure("*", (FormatkitError, OSError), EXIT_ERRORS, "failed"),
    )


def failure_of(command: str, exc: BaseException) -> Failure | None:
    """The first of ``command``'s rows that names ``exc`` (``*``: the rows :func:`formatkit.cli.main`
    applies around every command)."""
    for row in failures():
        if row.command == command and isinstance(exc, row.kinds):
            return row
    return None


def say(key: str, lang: str | None, source: object = None, /, **context: Any) -> str:
    """The ``ui.<key>`` template in ``lang`` (None: the locale's), its fields filled as the module
    docstring says, ``source`` standing for the exception (any object whose attributes fill the fields
    the context does not: a run's summary, a merge's outcome); only the fields the template names are
    computed. The commands print every other line of theirs with it too, so ``--lang`` covers them."""
    import string

    from formatkit.messages import catalogue, locale_lang, ui

    lang = lang or locale_lang()
    template = catalogue(lang).get(f"ui.{key}") or catalogue("en")[f"ui.{key}"]
    fields: dict[str, object] = {}
    for _text, name, _spec, _conversion in string.Formatter().parse(template):
        if name is None or name in fields:
            continue
        if name == "error":
            value = str(source)
        elif name in context:
            value = context[name]
            value = value(source) if callable(value) else value
        else:
            value = getattr(source, name)
        fields[name] = _printable(name, value)
    return ui(key, lang, **fields)


#: Fields whose text is several lines by design (a worker's failing frame, a merge's list of problems).
_LINES = frozenset({"error", "problems"})


def _printable(name: str, value: Any) -> Any:
    """A field's value as the terminal may show it: text (a str, a path) with its control characters
    escaped; numbers as they are."""
    from formatkit.messages import escape_controls

    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        return value
    if name in _LINES:
        return "\n".join(escape_controls(line) for line in value.split("\n"))
    return escape_controls(value)


@contextlib.contextmanager
def exits(command: str, lang: str | None = None, /, **context: Any) -> Iterator[None]:
    """Run the block; an exception :func:`failures` names for ``command`` ends the command with its exit
    code (SystemExit) after printing what its row says; any other propagates. ``context``: the fields of
    the messages (``shown``: issues listed per code when a report is printed)."""
    try:
        yield
    except BaseException as exc:
        row = failure_of(command, exc) if not isinstance(exc, SystemExit) else None
        if row is None:
            raise
        if row.report:
            from formatkit import Report
            from formatkit.cli._printing import DEFAULT_SHOWN, print_report

            shown: int | None = context.get("shown", DEFAULT_SHOWN)
            print_report(Report.build([exc.report], []), err=True, shown=shown, lang=lang)  # type: ignore[attr-defined]
        if row.key is not None:
            echo(say(row.key, lang, exc, **context), err=True)
        raise SystemExit(row.code) from None
