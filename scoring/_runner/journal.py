"""An append-only journal of finished work: one JSON line per entry, flushed as soon as it is written.

A rerun reads it back to skip what is done. It survives ``kill -9`` at any moment: a line is written with
one ``write`` call and flushed to the operating system, so at worst the last line is torn; a torn last
line is ignored by :meth:`Journal.load` and cut off before the next append. The same key may appear more
than once (an entry redone after an error): the last line wins.

Line format: ``{"key": KEY, "entry": {...}}`` (UTF-8, Chinese unescaped).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, NamedTuple, TypedDict, cast

import orjson

from formatkit._core.writers import open_no_follow

__all__ = ["Journal", "JournalSlot", "journal_path"]


def journal_path(out: Path) -> Path:
    """The journal of the output ``out`` (a run's, or a judge's verdicts'): ``OUT.journal`` beside it."""
    return out.with_name(out.name + ".journal")


class _Line(TypedDict):
    """One line of the journal file."""

    key: str
    entry: dict[str, object]


class JournalSlot(NamedTuple):
    """Where the last line of a key sits in the journal file."""

    offset: int
    length: int


class Journal:
    """Append-only, crash-tolerant store of ``key → entry``."""

    def __init__(self, path: Path, *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._out: IO[bytes] | None = None
        self._reader: IO[bytes] | None = None

    # -- reading -----------------------------------------------------------------------------------------

    def _lines(self) -> Iterator[tuple[int, bytes, _Line]]:
        """(offset, raw line, parsed) for every whole, valid line; torn or foreign lines are skipped."""
        if not self.path.exists():
            return
        offset = 0
        with self.path.open("rb") as handle:
            for raw in handle:
                start, offset = offset, offset + len(raw)
                if not raw.endswith(b"\n"):
                    continue
                try:
                    data = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(data, dict) and isinstance(data.get("key"), str) and isinstance(data.get("entry"), dict):
                    yield start, raw, cast(_Line, data)

    def load(self) -> dict[str, dict[str, object]]:
        """Every key with its last entry. Tolerant of a torn last line (left by ``kill -9``)."""
        return {data["key"]: data["entry"] for _, _, data in self._lines()}

    def index(self) -> dict[str, JournalSlot]:
        """Every key with the place of its last line, without keeping the entries in memory."""
        return {data["key"]: JournalSlot(start, len(raw)) for start, raw, data in self._lines()}

    def scan(self) -> Iterator[tuple[str, JournalSlot]]:
        """Every valid line in file order as (key, slot), entries not kept (a key may come more than once)."""
        for start, raw, data in self._lines():
            yield data["key"], JournalSlot(start, len(raw))

    def read(self, slot: JournalSlot) -> dict[str, object]:
        """The entry stored at ``slot`` (from :meth:`index`, :meth:`scan` or :meth:`append_slot`)."""
        return self.read_item(slot)[1]

    def read_item(self, slot: JournalSlot) -> tuple[str, dict[str, object]]:
        """(key, entry) stored at ``slot``."""
        if self._out is not None:
            self._out.flush()
        if self._reader is None:
            self._reader = self.path.open("rb")
        self._reader.seek(slot.offset)
        data: _Line = orjson.loads(self._reader.read(slot.length))
        return data["key"], data["entry"]

    # -- writing -----------------------------------------------------------------------------------------

    def append(self, key: str, entry: Mapping[str, object]) -> None:
        """Write one line and flush it (and fsync when asked) before returning."""
        out = self._open()
        out.write(orjson.dumps({"key": key, "entry": entry}, option=orjson.OPT_APPEND_NEWLINE))
        out.flush()
        if self.fsync:
            os.fsync(out.fileno())

    def append_slot(self, key: str, entry: Mapping[str, object]) -> JournalSlot:
        """Like :meth:`append`, and return where the line went (for :meth:`read`)."""
        out = self._open()
        offset = out.tell()
        line = orjson.dumps({"key": key, "entry": entry}, option=orjson.OPT_APPEND_NEWLINE)
        out.write(line)
        out.flush()
        if self.fsync:
            os.fsync(out.fileno())
        return JournalSlot(offset, len(line))

    def _open(self) -> IO[bytes]:
        if self._out is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._cut_torn_tail()
            self._out = open_no_follow(self.path, "ab")
        return self._out

    def _cut_torn_tail(self) -> None:
        """Truncate a last line without its newline, so the next line starts clean."""
        if not self.path.exists():
            return
        with open_no_follow(self.path, "r+b") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return
            block = 65536
            pos = size
            while pos > 0:
                start = max(0, pos - block)
                handle.seek(start)
                chunk = handle.read(pos - start)
                cut = chunk.rfind(b"\n")
                if cut >= 0:
                    handle.truncate(start + cut + 1)
                    return
                pos = start
            handle.truncate(0)

    def close(self) -> None:
        for handle in (self._out, self._reader):
            if handle is not None:
                handle.close()
        self._out = None
        self._reader = None

    def open_for_writing(self) -> None:
        """Open the journal for appending now, so a journal that cannot be written (a read-only directory,
        a symbolic link planted at its path) stops the run before any request is sent."""
        self._open()

    def discard(self) -> None:
        """Forget everything: close and delete the journal file."""
        self.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
