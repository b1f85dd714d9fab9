"""Writing outputs: atomic file replacement, one writer per output, and canonical jsonl lines.

Every output is written by :func:`atomic_writer` (a temporary file renamed over it) under
:func:`output_lock`, an exclusive OS lock on a hidden file beside it (``.NAME.lock``): two commands writing
one output can no longer both finish and silently lose one result; the second stops at once with
:class:`~formatkit._core.errors.OutputBusyError`. A command whose work comes before the write (scoring with a
judge, converting) takes the lock at its start, so the second one stops before doing any work; the lock is
re-entrant within the thread that holds it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from formatkit._core.errors import OutputBusyError, OutputError
from formatkit._core.record import RecordDict

__all__ = [
    "WRITE_BUFFER",
    "atomic_writer",
    "dumps_line",
    "hold_lock_file",
    "lock_holder",
    "open_no_follow",
    "output_lock",
    "refuse_special",
    "save_workbook",
]

#: errno values that mean the disk (or the user's quota) is full: the output, not the input, is the problem.
_FULL = {errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}


def dumps_line(record: RecordDict) -> bytes:
    """One jsonl line: UTF-8 (Chinese stays readable, never escaped), key order kept, newline ended."""
    return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


#: Set by the command line's SIGTERM handler. A signal handler's exception can be lost (raised while a
#: finalizer runs, Python reports it as unraisable and goes on), so the writer also checks this before it
#: puts an output in place: a terminated command never leaves a finished-looking output behind.
TERMINATED = threading.Event()


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """Write to a temporary file beside ``path`` and rename it over ``path`` only on success.

    On any exception the temporary file is removed and an existing ``path`` is left untouched. A ``path``
    that is not a regular file is refused by :func:`output_lock` (see :func:`refuse_special`).
    """
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{target}: cannot write there ({exc.strerror or exc})") from exc
    with output_lock(target):
        yield from _write_atomically(target)


def refuse_special(target: Path) -> None:
    """OutputError when ``target`` exists and is not a regular file (a device such as /dev/null or
    /dev/full, a named pipe, a socket): an output is put in place by renaming a new file over the old one,
    which would replace the device itself (run as root, ``-o /dev/null`` left a plain file in its place)."""
    try:
        mode = os.stat(target).st_mode
    except OSError:  # not there (or not reachable): the write says what is wrong
        return
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise OutputError(
            f"{target}: is not a regular file (a device, a pipe or a socket); formatkit writes an output by "
            "replacing the file, which would replace that too: name a file to write"
        )


#: The write buffer of every output. A canonical line is ~1.5 KB: with the default 8 KiB buffer a
#: 100,000-line convert made ~20,000 write calls; in 1 MiB blocks it makes ~150, 0.1 s less on tmpfs and
#: on disk. (A writer thread that took blocks off the caller cost more than it saved: the hand-over and the
#: GIL it needed back after each write added ~3 µs of CPU per line, 0.3 s per 100,000 lines.)
WRITE_BUFFER = 1 << 20


def _write_atomically(target: Path) -> Iterator[IO[bytes]]:
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"{target}: cannot write there ({exc.strerror or exc})") from exc
    try:
        handle = os.fdopen(fd, "wb", buffering=WRITE_BUFFER)
        try:
            try:
                yield handle
            except OSError as exc:
                if exc.errno in _FULL:  # a full disk met while writing: the output's problem, said in one line
                    raise OutputError(f"{target}: cannot write it ({exc.strerror or exc})") from exc
                raise
            try:
                handle.flush()
                os.fsync(handle.fileno())
                handle.close()
            except OSError as exc:  # a full disk shows here at the latest
                raise OutputError(f"{target}: cannot write it ({exc.strerror or exc})") from exc
        finally:
            # On an error, closing would flush the buffer again and raise a second error in place of the first.
            with contextlib.suppress(OSError):
                handle.close()
        if TERMINATED.is_set():
            raise SystemExit(128 + 15)  # SIGTERM arrived and its exception was swallowed: stop here
        try:
            # mkstemp creates the file 0600; give it the mode the file had, or the umask's default.
            os.chmod(tmp, _mode_for(target))
            os.replace(tmp, target)
        except OSError as exc:
            raise OutputError(f"{target}: cannot put it in place ({exc.strerror or exc})") from exc
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def save_workbook(workbook: Any, path: str | os.PathLike[str]) -> None:
    """Save an openpyxl workbook atomically. It is built in memory first: saved straight into the file, a
    full disk left openpyxl's zip and row writers half done, and their finalizers printed tracebacks after
    the one-line error."""
    import io

    buffer = io.BytesIO()
    workbook.save(buffer)
    with atomic_writer(path) as handle:
        handle.write(buffer.getbuffer())


_HELD: dict[str, tuple[int, int]] = {}  # lock file -> (thread id, depth): re-entrant in its thread
_HELD_GUARD = threading.Lock()


@contextlib.contextmanager
def output_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the exclusive lock of the output ``path`` (see the module docstring); OutputBusyError at once
    when another process (or thread) holds it. The lock file is removed when released."""
    target = Path(path)
    refuse_special(target)  # before a lock file is made beside it (in /dev, say)
    lock = str(target.with_name(f".{target.name}.lock"))
    me = threading.get_ident()
    with _HELD_GUARD:
        held = _HELD.get(lock)
        if held is not None and held[0] == me:
            _HELD[lock] = (me, held[1] + 1)
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield
        finally:
            with _HELD_GUARD:
                owner, depth = _HELD[lock]
                _HELD[lock] = (owner, depth - 1)
        return
    with _HELD_GUARD:
        if lock in _HELD:
            raise OutputBusyError(f"{target} is being written by another thread of this process")
    handle = hold_lock_file(lock, target)
    with _HELD_GUARD:
        _HELD[lock] = (me, 1)
    try:
        yield
    finally:
        with _HELD_GUARD:
            del _HELD[lock]
        if handle is not None:
            with contextlib.suppress(OSError):
                os.unlink(lock)  # while still locked: a waiting process then sees a new file, not this one
            with contextlib.suppress(OSError):  # a pid still buffered on a full disk
                handle.close()


def hold_lock_file(lock: str | os.PathLike[str], target: Path) -> IO[bytes] | None:
    """The lock file ``lock`` of ``target``, open, locked and naming this process; None where the file system
    has no locks (then nothing is enforced). OutputBusyError (with the holder's pid) when another holds it.
    Closing the file releases the lock."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{target}: cannot write there ({exc.strerror or exc})") from exc
    for _ in range(100):
        try:
            handle = open_no_follow(lock, "a+b")
        except OutputError:
            raise
        except OSError as exc:
            raise OutputError(f"{target}: cannot write there ({exc.strerror or exc})") from exc
        try:
            _lock_exclusive(handle)
        except BlockingIOError:
            pid = lock_holder(handle)
            handle.close()
            who = f"process {pid}" if pid is not None else "another process"
            raise OutputBusyError(
                f"{target} is being written by another formatkit command ({who}); wait for it to finish, or "
                "write to another file",
                pid=pid,
            ) from None
        except OSError:  # no locking on this file system (some network mounts)
            handle.close()
            return None
        try:  # the holder before us may have removed the file after we opened it: lock the file in place
            same = os.path.samestat(os.fstat(handle.fileno()), os.stat(lock))
        except FileNotFoundError:
            same = False
        if same:
            with contextlib.suppress(OSError):  # the pid only helps a message; a full disk must not stop here
                handle.seek(0)
                handle.truncate()
                handle.write(str(os.getpid()).encode())
                handle.flush()
            return handle
        handle.close()
    raise OutputBusyError(f"{target}: its lock file keeps changing; another command is writing it")


def lock_holder(handle: IO[bytes]) -> int | None:
    """The process id a lock file names (its holder writes it), or None."""
    with contextlib.suppress(OSError):
        handle.seek(0)
        text = handle.read(32).decode("ascii", "replace").strip()
        return int(text) if text.isdigit() else None
    return None


def _lock_exclusive(handle: IO[bytes]) -> None:
    """Exclusive and non-blocking: BlockingIOError when another process holds it."""
    if sys.platform == "win32":  # pragma: no cover - Windows only
        import msvcrt

        handle.seek(0)
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError as exc:
            raise BlockingIOError(str(exc)) from exc
    else:
        import fcntl

        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS = {
    "ab": os.O_WRONLY | os.O_APPEND | os.O_CREAT,
    "a+b": os.O_RDWR | os.O_APPEND | os.O_CREAT,
    "r+b": os.O_RDWR,
}


def open_no_follow(path: str | os.PathLike[str], mode: str) -> IO[bytes]:
    """Open a file formatkit keeps beside an output (a journal, a lock) for writing, refusing a symbolic link
    planted at its path: writing through one would append to, or truncate, whatever it points at."""
    try:
        fd = os.open(path, _OPEN_FLAGS[mode] | _NO_FOLLOW, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise OutputError(
                f"{path}: is a symbolic link; formatkit does not write through one (remove it and run again)"
            ) from None
        raise
    return os.fdopen(fd, mode)
