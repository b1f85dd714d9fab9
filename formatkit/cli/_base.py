"""What every command shares that needs no typer: exit codes, the option choices, printing a line as
``typer.echo`` prints it, and the usage checks done before any work.

The bodies of ``convert`` and ``validate`` (:mod:`formatkit.cli._convert`, :mod:`formatkit.cli._validate`)
are built on this module alone, so the fast path of :func:`formatkit.cli.main` runs them without importing
typer (:mod:`formatkit.cli._fast`); :mod:`formatkit.cli._common` re-exports it for the other commands.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import re
import sys
from collections.abc import Sequence
from enum import Enum
from typing import NoReturn, TextIO

__all__ = [
    "EXIT_ERRORS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "ModeOption",
    "ProfileOption",
    "echo",
    "fail_usage",
    "output_or_fail",
    "paths_or_fail",
    "standard_stream",
    "terminate_cleanly",
]

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2
#: Ctrl+C and SIGTERM: 128 + the signal's number, as a shell reports a process a signal ended.
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class ModeOption(str, Enum):
    infer_eval = "infer-eval"
    infer_only = "infer-only"
    scored = "scored"


class ProfileOption(str, Enum):
    platform = "platform"
    none = "none"


# click's (typer's) echo, for text: the same ANSI pattern it strips, the same fallback stream.
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")
_fixed: dict[int, tuple[TextIO, TextIO]] = {}


def echo(message: str = "", *, err: bool = False) -> None:
    """Write ``message`` and a newline as ``typer.echo`` (click's echo) writes text: to stdout (stderr with
    ``err``), colour codes stripped unless the stream is a terminal, flushed at once; a stream whose encoding
    is ASCII (or missing) is written through its buffer in UTF-8 with ``errors="replace"``, as click does.
    The fast path and the typer path must print byte for byte the same (tests/cli/test_fast_path.py)."""
    stream = standard_stream(err)
    if stream is None:  # no standard stream (pythonw)
        return
    out = message + "\n"
    if not _isatty(stream) and not type(stream).__module__.startswith("ipykernel."):
        out = _ANSI.sub("", out)
    stream.write(out)
    stream.flush()


def standard_stream(err: bool = False) -> TextIO | None:
    """stdout (stderr with ``err``) to write text to, as click picks it: the stream itself, or, when its
    encoding is ASCII or missing (``PYTHONIOENCODING=ascii``, a bare pipe on an old system), a UTF-8 writer
    on its buffer that replaces what cannot be encoded, so Chinese text is written, never a traceback."""
    return _text_stream(sys.stderr if err else sys.stdout)


def _text_stream(stream: TextIO | None) -> TextIO | None:
    if stream is None:
        return None
    encoding = getattr(stream, "encoding", None)
    if getattr(stream, "errors", None) is not None and not _is_ascii(encoding or "ascii"):
        return stream
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # click, too, keeps the stream as it is then
        return stream
    cached = _fixed.get(id(stream))
    if cached is not None and cached[0] is stream:
        return cached[1]
    wrapper = _NonClosingTextIOWrapper(buffer, sys.getdefaultencoding(), "replace", line_buffering=True)
    _fixed[id(stream)] = (stream, wrapper)
    return wrapper


class _NonClosingTextIOWrapper(io.TextIOWrapper):
    """Leaves the standard stream's buffer open when it goes away (as click's own wrapper)."""

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.detach()


def _is_ascii(encoding: str) -> bool:
    try:
        return codecs.lookup(encoding).name == "ascii"
    except LookupError:
        return False


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except Exception:
        return False


def fail_usage(message: str, *, lang: str | None = None) -> NoReturn:
    """Bad usage or an unreadable path: one line on stderr, exit code 2 (a SystemExit, which typer and the
    fast path both let through as the process's exit code). ``lang``: the language of the line's "error"
    (None: English, as the messages given here without a language are)."""
    if lang is None:
        echo(f"formatkit: error: {message}", err=True)
    else:
        from formatkit.messages import ui

        echo(ui("usage.error", lang, message=message), err=True)
    raise SystemExit(EXIT_USAGE)


def terminate_cleanly() -> None:
    """Make SIGTERM unwind like Ctrl+C (SystemExit 143 instead of an instant death), so the temporary
    files of an output being written are removed by their cleanup code, not left behind."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    from formatkit._cli_support import TERMINATED

    def handler(signum: int, frame: object) -> None:
        TERMINATED.set()  # in case this exception is lost inside a finalizer: the writer checks it too
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def output_or_fail(output: str | os.PathLike[str]) -> None:
    """Refuse an output path that names a directory before any work is done (exit 2, one clear line)."""
    if os.path.isdir(output):
        fail_usage(f"{output}: is a directory; give -o the path of the file to write, not its folder")


def paths_or_fail(paths: Sequence[str], *, read_twice: str | None = None, lang: str | None = None) -> list[str]:
    """The paths, or exit 2 on the first that cannot be read (said in ``lang``; None: the locale's).
    ``read_twice``: the command's name when it reads its input more than once (validate first, then work):
    a named pipe, readable once, is refused with what to do instead of being found empty the second time."""
    import stat

    from formatkit._cli_support import check_path
    from formatkit.errors import UnreadablePathError

    for path in paths:
        try:
            check_path(path)
        except UnreadablePathError as exc:
            if exc.template is None:
                fail_usage(str(exc))
            from formatkit.messages import escape_controls, locale_lang, ui

            said = lang or locale_lang()
            fields = {name: escape_controls(value) for name, value in exc.fields.items()}
            fail_usage(ui(exc.template, said, **fields), lang=said)
        if read_twice is not None and not stat.S_ISREG(os.stat(path).st_mode):
            fail_usage(
                f"{path}: is a pipe, not a file; `formatkit {read_twice}` reads its input twice (it checks it "
                f"first): save it to a file, e.g. `cat {path} > set.jsonl`, or use `formatkit validate`/`convert`, "
                "which read once"
            )
    return list(paths)
