"""Reading the small side files a command takes (``--dimensions``, ``--judge-template``), bounded.

A path to ``/dev/zero``, a FIFO or a multi-gigabyte file must not be read until memory runs out or block
for ever: only regular files are read, and no more than ``limit`` bytes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from formatkit._core.errors import SmallFileError

__all__ = ["SMALL_FILE_LIMIT", "SmallFileError", "read_small_file"]

#: Side files are a few kilobytes; a megabyte is far beyond any real one.
SMALL_FILE_LIMIT = 1024 * 1024


def read_small_file(path: str | os.PathLike[str], *, limit: int = SMALL_FILE_LIMIT) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes."""
    p = Path(path)
    try:
        mode = p.stat().st_mode
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file (a device, a pipe or a socket)"
            raise SmallFileError(f"{p}: {kind}; give the path of a file")
        with p.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise SmallFileError(f"{p}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise SmallFileError(f"{p}: larger than {limit // 1024} KiB; this should be a small file")
    return data
