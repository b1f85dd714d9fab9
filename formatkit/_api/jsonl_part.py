"""``convert`` of a large jsonl file on two cores: a second process reads the later part of the file while
this one reads the first, and its records are used only when the whole file is proven to give exactly what
one process reading it alone gives.

Reading a jsonl file is one pass in which each line depends on the lines before it in few ways: the file's
shape (its first line's), the position a line without a session_id takes as its id, the ids given before
it, and the issues already found (how many are kept). When every line of the first part gave one record,
without an id of its own and with nothing to report, the lines after it are read from that state alone:
the part's first line is record ``line - 1`` of a single-turn file, no id was given, nothing is kept. So:

1. :meth:`LaterPart.start` picks a line boundary a little past the middle of the file and starts a worker,
   a fresh interpreter running :func:`main` (never a fork of this process, never a ``multiprocessing``
   spawn, so a user's script without a ``__main__`` guard is not run again) with this process's import
   path (:func:`formatkit._core.interpreter.worker_command`: not ``python -m``, which imports first from
   the current folder). The worker reads the file from the boundary as
   :class:`~formatkit._drivers.jsonl.PartStart` says, writes the records to a temporary file beside the
   output and stops at the first line that breaks the state above (an issue of any kind, a session_id
   given): its part is then read here, as one process would.
2. This process reads the first part. At its last line, :meth:`LaterPart.join` checks the state above
   (``JsonlReader.clean``); if it holds and the worker finished clean, the worker's records are copied
   into the output and counted, and reading stops there. Otherwise the worker is stopped and this process
   reads on from the boundary itself: the output and the report are those of one process either way.

Used only where it pays: a regular file of at least :data:`MIN_BYTES`, at least two usable cores, one
input, no row limit (``--profile none``), the fast path on, and ``FORMATKIT_WORKERS`` not set to ``1``; and
only where ``sys.executable`` is a Python to start (not in a frozen application).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from formatkit._core.formats import input_format
from formatkit._core.interpreter import python_can_start, worker_command
from formatkit._core.modes import Mode
from formatkit._core.writers import WRITE_BUFFER, dumps_line

if TYPE_CHECKING:
    import subprocess

    from formatkit._api.validate import _Run

__all__ = ["MIN_BYTES", "LaterPart", "main"]

#: Smaller files are read by one process: below ~30 MB a worker's start-up (~0.15 s) eats what it saves.
MIN_BYTES = 32 << 20
#: Bytes the worker's part is shorter than this process's: it starts ~0.15 s later (a fresh interpreter).
_LEAD = 8 << 20
_CHUNK = 1 << 20


#: Linux's CPU quota of this process's control group (cgroup v2; v1 keeps it in two files): a container
#: started with ``--cpus=1`` sees every core of the machine but may use one.
_QUOTAS = ("/sys/fs/cgroup/cpu.max", ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu/cpu.cfs_period_us"))


def _usable_cores(quotas: tuple[Any, ...] = _QUOTAS) -> int:
    """The cores this process may keep busy: those it may run on, at most its control group's CPU quota
    (rounded down: a quota of 1.5 cores leaves no whole core for a second process)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
    for place in quotas:
        try:
            if isinstance(place, str):
                quota, period = Path(place).read_text().split()[:2]
            else:
                quota, period = (Path(p).read_text().strip() for p in place)
            if quota not in ("max", "-1"):
                return max(1, min(cores, int(quota) // int(period)))
            break
        except (OSError, ValueError):
            continue
    return cores


def _boundary(handle: IO[bytes], size: int) -> int | None:
    """The offset of the first line that starts at or after ~the middle of the file (plus the lead); None
    when no line starts there. The line the middle falls in is skipped a block at a time, as the reader
    skips a line too long (a file of one 2 GB line, a JSON array saved as .jsonl, is not read into memory)."""
    handle.seek(min(size - 1, size // 2 + _LEAD))
    while True:  # to the end of the line the offset falls in
        block = handle.readline(_CHUNK)
        if not block or block[-1:] == b"\n":
            break
    offset = handle.tell()
    return offset if offset < size else None


def _lines_before(path: str, offset: int) -> int:
    """The line breaks before ``offset``, found with memchr (``find``, one call per line: ~4x faster on the
    long lines of evaluation sets than ``count``), a block at a time into one buffer (memory stays flat; a
    memory map would add the pages it touched to this process's resident size)."""
    buffer = bytearray(_CHUNK)
    count = 0
    left = offset
    with open(path, "rb", buffering=0) as handle:
        while left > 0:
            size = handle.readinto(buffer)
            if not size:
                break
            end = min(size, left)
            left -= end
            find = buffer.find
            position = find(b"\n", 0, end)
            while position >= 0:
                count += 1
                position = find(b"\n", position + 1, end)
    return count


class LaterPart:
    """The worker reading a jsonl file's later part, and what is needed to use or drop its records."""

    def __init__(self, process: subprocess.Popen[bytes], spool: Path) -> None:
        self._process = process
        self._spool = spool
        #: The last line of the first part: reading here pauses after it (:meth:`join`). Unreachable until
        #: the worker has counted the lines before its part and said how many.
        self.boundary = sys.maxsize
        self._result: bytes = b""
        self._listener = threading.Thread(target=self._listen, name="formatkit-part", daemon=True)
        self._listener.start()

    def _listen(self) -> None:
        """The worker's two lines: the count of the lines before its part (as soon as it has it), then its
        result; the pipe is read here so that this process never waits on it while it reads."""
        stdout = self._process.stdout
        assert stdout is not None
        first = stdout.readline()
        if first.strip().isdigit():
            self.boundary = int(first)
        self._result = stdout.read()

    @classmethod
    def start(cls, run: _Run, output: str | os.PathLike[str], *, meta: bool, max_rows: int | None) -> LaterPart | None:
        """The worker for ``run``'s file, started; None where one process reads the file (see the module)."""
        path = run.path
        if (
            max_rows is not None
            or not _in_parts(path)
            or os.environ.get("FORMATKIT_WORKERS") == "1"
            or _usable_cores() < 2
            or not getattr(run.reader, "fast", False)
            or not python_can_start()
        ):
            return None
        spool = None
        try:
            size = path.stat().st_size
            if size < MIN_BYTES or not path.is_file():
                return None
            with path.open("rb") as handle:
                offset = _boundary(handle, size)
            if offset is None:
                return None
            import subprocess  # here: ~6 ms of every convert's start otherwise
            import tempfile

            fd, spool = tempfile.mkstemp(prefix=f".{Path(output).name}.", suffix=".part", dir=Path(output).parent)
            os.close(fd)
            command = [
                *worker_command("formatkit._api.jsonl_part"),
                run.name,
                str(offset),
                run.mode,
                spool,
                "meta" if meta else "no-meta",
            ]
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
        except OSError:
            if spool is not None:
                with contextlib.suppress(OSError):
                    os.unlink(spool)
            return None
        return cls(process, Path(spool))

    def join(self, run: _Run, handle: IO[bytes]) -> bool:
        """At the first part's last line: when it was clean and so was the worker's part, copy the worker's
        records into ``handle`` after this process's, count them in ``run`` and return True (stop reading);
        otherwise stop the worker and return False (read on)."""
        reader: Any = run.reader
        if not (reader.clean and reader.rows == self.boundary and run.source.get("line") == self.boundary):
            self.close()
            return False
        self._listener.join()
        records = _records_of(self._process.wait(), self._result)
        if records is None:
            self.close()
            return False
        handle.flush()
        with self._spool.open("rb") as part:
            _copy(part, handle)
        reader.add_clean_part(self.boundary + 1, records)
        run.records = self.boundary + records
        self.close()
        return True

    def close(self) -> None:
        """Stop the worker if it still runs and remove its file."""
        try:
            if self._process.poll() is None:
                self._process.kill()
                self._process.wait()
            self._listener.join()
            if self._process.stdout is not None:
                self._process.stdout.close()
        finally:
            with contextlib.suppress(OSError):
                self._spool.unlink()


def _records_of(code: int | None, out: bytes) -> int | None:
    if code != 0:
        return None
    try:
        result = orjson.loads(out)
    except orjson.JSONDecodeError:
        return None
    records = result.get("records") if isinstance(result, dict) else None
    return records if type(records) is int and records >= 0 else None


def _copy(source: IO[bytes], target: IO[bytes]) -> None:
    """All of ``source`` (the worker's finished part) to the end of ``target`` (flushed): in the kernel where
    it can, and whatever it did not copy through memory, from where it stopped (a copy that fails after a
    first block must not write that block twice; one that copies nothing, where a file system says 0 for
    "not this way", must not lose the rest)."""
    size = os.fstat(source.fileno()).st_size
    copied = 0
    copy_range = getattr(os, "copy_file_range", None)
    if copy_range is not None:
        with contextlib.suppress(OSError):  # not between these file systems: through memory
            while copied < size:
                done = copy_range(source.fileno(), target.fileno(), size - copied)
                if not done:
                    break
                copied += done
    if copied < size:
        source.seek(copied)
        while block := source.read(_CHUNK):
            target.write(block)


def _read_part(name: str, offset: int, mode: Mode, spool: str, meta: bool) -> int | None:
    """Read the file's part from ``offset`` into ``spool``: its record count, or None at the first line that
    breaks the clean state (see the module). Says first how many lines come before the part."""
    from formatkit._api.validate import _Run
    from formatkit._drivers.jsonl import JsonlReader, PartStart

    lines_before = _lines_before(name, offset)
    sys.stdout.write(f"{lines_before}\n")
    sys.stdout.flush()
    run = _Run(name, mode, "none", start=PartStart(offset, lines_before + 1, "jsonl-single-turn"))
    reader = run.reader
    assert isinstance(reader, JsonlReader)
    counts = run.sink.issues.counts
    parent = os.getppid()
    with open(spool, "wb", buffering=WRITE_BUFFER) as out:
        write = out.write
        for record in run:
            if counts:
                return None
            if not meta:
                record.pop("meta", None)
            write(dumps_line(record))
            if not run.records & 0x1FFF and os.getppid() != parent:
                out.close()
                os.unlink(spool)  # the process that started this one is gone: nobody will read the part
                return None
    if not reader.clean:
        return None
    return run.records - lines_before


def _in_parts(path: Path) -> bool:
    """Whether ``path``'s format may be read in two parts (``parts`` in the table of input formats)."""
    known = input_format(path)
    return known is not None and known.parts


def main(argv: list[str] | None = None) -> int:
    """The worker (see :func:`formatkit._core.interpreter.worker_command`), given ``FILE OFFSET MODE SPOOL
    meta|no-meta``. Prints the number of lines before OFFSET, then ``{"records": N}`` and exits 0 when its
    part is clean; exits 1 otherwise (the caller reads the part itself), removing SPOOL when no one is left
    to."""
    name, offset, mode, spool, meta = sys.argv[1:] if argv is None else argv
    try:
        records = _read_part(name, int(offset), mode, spool, meta == "meta")  # type: ignore[arg-type]
        if records is None:
            return 1
        sys.stdout.write(orjson.dumps({"records": records}).decode())
        sys.stdout.flush()
    except BrokenPipeError:  # the caller is gone
        with contextlib.suppress(OSError):
            os.unlink(spool)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
