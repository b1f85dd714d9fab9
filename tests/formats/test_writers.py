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
