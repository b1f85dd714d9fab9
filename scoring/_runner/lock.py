"""An exclusive OS lock on an output, so two runs can never write the same journal and output.

The lock is ``flock`` (``msvcrt.locking`` on Windows) on a small file beside the journal
(``OUT.journal.lock``) that holds the owner's pid; the operating system releases it when the process
ends in any way (``kill -9`` included), so a stale lock file never blocks a later run.

    with OutputLock(journal_path(out)):    # OutputLockedError(pid=...) when another run holds it
        ...
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import TracebackType
from typing import IO

from formatkit._core.errors import OutputBusyError
from formatkit._core.writers import hold_lock_file
from scoring._errors import OutputLockedError

__all__ = ["OutputLock", "lock_path"]


def lock_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".lock")


class OutputLock:
    """Held from :meth:`acquire` (or ``with``) to :meth:`release`."""

    def __init__(self, journal: Path) -> None:
        self.path = lock_path(Path(journal))
        self._handle: IO[bytes] | None = None

    def acquire(self) -> OutputLock:
        try:
            self._handle = hold_lock_file(self.path, self.path)
        except OutputBusyError as exc:
            who = f"process {exc.pid}" if exc.pid is not None else "another process"
            raise OutputLockedError(
                f"{self.path.name.removesuffix('.journal.lock')} is being written by another run ({who} holds "
                f"{self.path}); wait for it to finish or stop it",
                pid=exc.pid,
            ) from None
        return self

    def release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is None:
            return
        with contextlib.suppress(OSError):
            handle.truncate(0)
        handle.close()  # closing releases the lock

    def __enter__(self) -> OutputLock:
        return self.acquire()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
