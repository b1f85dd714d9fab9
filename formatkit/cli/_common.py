"""What every command shares: option types, exit codes, printing issues, loading inputs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from enum import Enum
from typing import Any, NoReturn

import typer

from formatkit.cli._printing import print_report

__all__ = [
    "EXIT_ERRORS",
    "EXIT_OK",
    "EXIT_USAGE",
    "ModeOption",
    "ProfileOption",
    "fail_usage",
    "lang_option",
    "print_report",
    "terminate_cleanly",
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


def lang_option() -> Any:
    """``--lang en|zh``: the language of the messages about a file (codes and JSON keys never change)."""
    return typer.Option(
        None,
        "--lang",
        metavar="en|zh",
        callback=_check_lang,
        help="Language of the messages (default: the locale, LC_ALL / LC_MESSAGES / LANG).",
    )


def _check_lang(value: str | None) -> str | None:
    if value is None:
        return None
    from formatkit._core.messages import languages, resolve_lang

    lang = resolve_lang(value)
    if lang is None:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(languages())}")
    return lang


def terminate_cleanly() -> None:
    """Make SIGTERM unwind like Ctrl+C (SystemExit 143 instead of an instant death), so the temporary
    files of an output being written are removed by their cleanup code, not left behind."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    from formatkit._core.writers import TERMINATED

    def handler(signum: int, frame: object) -> None:
        TERMINATED.set()  # in case this exception is lost inside a finalizer: the writer checks it too
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def output_or_fail(output: str | os.PathLike[str]) -> None:
    """Refuse an output path that names a directory before any work is done (exit 2, one clear line)."""
    if os.path.isdir(output):
        fail_usage(f"{output}: is a directory; give -o the path of the file to write, not its folder")


def paths_or_fail(paths: Sequence[str], *, read_twice: str | None = None) -> list[str]:
    """The paths, or exit 2 on the first that cannot be read. ``read_twice``: the command's name when it
    reads its input more than once (validate first, then work): a named pipe, readable once, is refused
    with what to do instead of being found empty the second time."""
    import stat

    from formatkit._api.validate import check_path
    from formatkit._core.errors import UnreadablePathError

    for path in paths:
        try:
            check_path(path)
        except UnreadablePathError as exc:
            fail_usage(str(exc))
        if read_twice is not None and not stat.S_ISREG(os.stat(path).st_mode):
            fail_usage(
                f"{path}: is a pipe, not a file; `formatkit {read_twice}` reads its input twice (it checks it "
                f"first): save it to a file, e.g. `cat {path} > set.jsonl`, or use `formatkit validate`/`convert`, "
                "which read once"
            )
    return list(paths)
