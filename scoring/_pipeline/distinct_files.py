"""Results files given twice: the same file under another spelling or a link, or a byte-for-byte copy of one
given before. Read twice, its records would be counted twice (n doubled, every interval narrowed), so
``report`` reads each file once and says which it left out."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["Repeat", "distinct_files"]


@dataclass(frozen=True)
class Repeat:
    """A path left out: ``how`` it repeats ``first`` (``same_file``: the very file; ``same_content``: a copy)."""

    path: str
    first: str
    how: Literal["same_file", "same_content"]


def distinct_files(paths: Sequence[str]) -> tuple[list[str], list[Repeat]]:
    """The paths with each file once, in the order given, and the repeats left out. Only files of the same
    size are read to compare; two files that differ in one byte are two files."""
    kept: list[str] = []
    repeats: list[Repeat] = []
    files: dict[tuple[int, int], str] = {}  # (device, inode) -> the path given first
    sizes: dict[int, list[str]] = {}  # a regular file's size -> the paths kept with it
    digests: dict[str, bytes] = {}
    for path in paths:
        info = os.stat(path)
        first = files.get((info.st_dev, info.st_ino))
        if first is not None:
            repeats.append(Repeat(path, first, "same_file"))
            continue
        files[(info.st_dev, info.st_ino)] = path
        if stat.S_ISREG(info.st_mode):
            same_size = sizes.setdefault(info.st_size, [])
            if same_size:
                mine = digests[path] = _digest(path)
                copy = next((p for p in same_size if _digest_once(p, digests) == mine), None)
                if copy is not None:
                    repeats.append(Repeat(path, copy, "same_content"))
                    continue
            same_size.append(path)
        kept.append(path)
    return kept, repeats


def _digest_once(path: str, digests: dict[str, bytes]) -> bytes:
    """``path``'s digest, read once (``setdefault(p, _digest(p))`` read every same-size file again for each
    new one: 400 results files of one size were 80,000 reads)."""
    if path not in digests:
        digests[path] = _digest(path)
    return digests[path]


def _digest(path: str) -> bytes:
    hasher = hashlib.blake2b()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(block)
    return hasher.digest()
