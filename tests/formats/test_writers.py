"""atomic_writer: all or nothing, and the file gets ordinary permissions."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from formatkit._core.writers import atomic_writer


def test_new_file_gets_the_umask_default_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        with atomic_writer(tmp_path / "out.jsonl") as handle:
            handle.write(b"x\n")
    finally:
        os.umask(old)
    assert (tmp_path / "out.jsonl").stat().st_mode & 0o777 == 0o644


def test_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old\n")
    target.chmod(0o640)
    with atomic_writer(target) as handle:
        handle.write(b"new\n")
    assert target.read_bytes() == b"new\n" and target.stat().st_mode & 0o777 == 0o640


def test_failure_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old\n")
    with pytest.raises(RuntimeError), atomic_writer(target) as handle:
        handle.write(b"half")
        raise RuntimeError("boom")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_line_writer_writes_exactly_what_it_is_given(tmp_path: Path) -> None:
    from formatkit._core.writers import LineWriter

    lines = [f"{i}:{'x' * (i % 3000)}\n".encode() for i in range(3000)]  # several blocks
    target = tmp_path / "out.jsonl"
    with atomic_writer(target) as raw, LineWriter(raw, sync_every=1 << 20) as handle:
        for line in lines:
            handle.write(line)
    assert target.read_bytes() == b"".join(lines)


def test_line_writer_error_in_its_thread_reaches_the_caller(tmp_path: Path) -> None:
    from formatkit._core.writers import LineWriter

    class Full:
        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

        def fileno(self) -> int:
            raise OSError("no file")

        def flush(self) -> None:
            pass

    with pytest.raises(OSError, match="No space"), LineWriter(Full()) as handle:  # type: ignore[arg-type]
        for _ in range(5000):
            handle.write(b"y" * 1000)
