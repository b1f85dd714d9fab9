"""The ``formatkit`` command: a thin layer over the library API.

Every command is defined once, with typer, in its own module (:mod:`formatkit.cli._app` builds the
application). :func:`main` first offers the arguments to the fast path (:mod:`formatkit.cli._fast`), which
runs ordinary ``convert`` and ``validate`` invocations through the same bodies without importing typer;
everything else -- help, usage errors, every other command -- goes to typer. ``app`` is built on first use
(``from formatkit.cli import app``), so importing this package costs nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from formatkit.cli._app import app as app

__all__ = ["app", "main"]

#: Set (to anything but empty) to send every invocation to typer: the tests compare both paths with it.
TYPER_ONLY = "_FORMATKIT_TYPER_ONLY"


def __getattr__(name: str) -> Any:
    if name == "app":
        from formatkit.cli._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """The ``formatkit`` command. Bad input is reported by each command; what is left here is the
    machine refusing (a full disk, a read-only or missing directory, a path that is a file): one line
    and exit 1, never a traceback; an output another command is writing: one line and exit 2, as ``run``
    (the rows ``*`` of :func:`formatkit.cli._failures.failures`)."""
    from formatkit.cli._failures import exits

    _text_everywhere()
    with exits("*"):
        code = None
        if not os.environ.get(TYPER_ONLY):
            from formatkit.cli._fast import run

            code = run(sys.argv[1:])
        if code is None:
            from formatkit.cli._app import app

            app()
        else:
            raise SystemExit(code)


def _text_everywhere() -> None:
    """Standard streams that cannot hold Chinese (a Windows redirect in cp1252, ``PYTHONIOENCODING=latin-1``,
    ASCII) write UTF-8 instead, replacing what cannot be encoded: file names, messages and dataset names
    are Chinese as often as not, and such a stream ended a report in a UnicodeEncodeError traceback,
    through every command. Streams that can hold it (UTF-8, GBK, GB18030, ...) are left as they are."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        try:
            "中文，：".encode(encoding or "ascii")
        except (UnicodeEncodeError, LookupError):
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                with contextlib.suppress(OSError, ValueError):  # not reconfigurable: left as it was
                    reconfigure(encoding="utf-8", errors="replace")
