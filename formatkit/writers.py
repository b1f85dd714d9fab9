"""Writing outputs: atomic file replacement and canonical jsonl lines."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

__all__ = ["atomic_writer", "dumps_line"]


def dumps_line(record: dict[str, Any]) -> bytes:
    """One jsonl line: UTF-8 (Chinese stays readable, never escaped), key order kept, newline ended."""
    return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """Write to a temporary file beside ``path`` and rename it over ``path`` only on success.

    On any exception the temporary file is removed and an existing ``path`` is left untouched.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates the file 0600; give it the mode the file had, or the umask's default.
        os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
