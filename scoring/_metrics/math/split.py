"""Splitting answers outside brackets (shared by the comparator and the partial-credit rules)."""

from __future__ import annotations

import re

__all__ = ["COMMA", "split_top_level"]

COMMA = re.compile(r"\s*[,，]\s*")


def split_top_level(text: str, separators: re.Pattern[str]) -> list[str]:
    """Split outside brackets on ``separators``."""
    out: list[str] = []
    depth = 0
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = separators.match(text, i)
            if m and m.end() > i:
                out.append(text[start:i])
                start = i = m.end()
                continue
        i += 1
    out.append(text[start:])
    return [p.strip() for p in out if p.strip()]
