"""Finding JSON objects inside a judge's prose, leniently and in bounded time.

A judge wraps its JSON in code fences and prose, leaves trailing commas, writes full-width punctuation or
Python-style quotes. :func:`json_objects` finds every object that can be read despite that. Braces are
paired in one pass; candidates are tried from the end of the text (the verdict that counts is the last)
under a fixed work budget, so a reply full of stray or nested braces cannot stall scoring.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from formatkit._core.record import JsonObject

__all__ = ["brace_pairs", "json_objects"]


#: Work limit of one search for JSON objects, in characters scanned or parsed: a reply full of stray
#: or deeply nested braces costs a bounded time. Candidates are tried from the end of the reply, so
#: the last verdict (the one that counts) is always within the limit.
_BUDGET = 2_000_000
_ATTEMPT_COST = 50


def brace_pairs(text: str) -> dict[int, int]:
    """Each ``{`` with the ``}`` that closes it, counting braces only (strings ignored), in one pass."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for match in re.finditer(r"[{}]", text):
        if match.group() == "{":
            stack.append(match.start())
        elif stack:
            pairs[stack.pop()] = match.start()
    return pairs


def _string_aware_end(text: str, start: int, limit: int) -> tuple[int | None, int]:
    """The ``}`` closing the ``{`` at ``start`` with braces inside JSON strings skipped, looking at no
    more than ``limit`` characters; returns it (or None) and how many characters were looked at."""
    depth = 0
    in_string = False
    escaped = False
    stop = min(len(text), start + limit)
    for i in range(start, stop):
        char = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i, i - start + 1
    return None, stop - start


_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_FULLWIDTH_JSON = str.maketrans({"“": '"', "”": '"', "：": ":", "，": ","})


def _loads(chunk: str) -> Any:
    """Parse one JSON object leniently: as is, without trailing commas, with full-width punctuation
    made ASCII, and finally as a Python literal (single quotes). None when nothing works."""
    try:
        return json.loads(chunk, strict=False)
    except ValueError:
        pass
    no_commas = _TRAILING_COMMA.sub(r"\1", chunk)
    for attempt in (no_commas, no_commas.translate(_FULLWIDTH_JSON)):
        try:
            return json.loads(attempt, strict=False)
        except ValueError:
            continue
    if "'" in chunk and len(chunk) <= 20_000:
        try:
            return ast.literal_eval(no_commas)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return None


def json_objects(text: str) -> list[tuple[int, int, JsonObject]]:
    """Every JSON object in ``text`` as ``(start, end, object)``, in order of position.

    Outermost objects only: an object inside another that parses is part of it (an object that does not
    parse is searched for objects inside it). Braces inside JSON strings are handled; the search stops
    after a bounded amount of work, keeping the objects nearest the end.
    """
    pairs = brace_pairs(text)
    starts = [m.start() for m in re.finditer("{", text)]
    found: list[tuple[int, int, JsonObject]] = []
    budget = _BUDGET
    for start in reversed(starts):
        if budget <= 0:
            break
        ends: list[int] = []
        if start in pairs:
            ends.append(pairs[start])
        string_end, scanned = _string_aware_end(text, start, budget)
        budget -= scanned
        if string_end is not None and string_end not in ends:
            ends.insert(0, string_end)
        for end in ends:
            budget -= end - start + 1 + _ATTEMPT_COST
            value = _loads(text[start : end + 1])
            if isinstance(value, dict):
                # objects found before (later in the text) that lie inside this one are part of it;
                # they are the most recent ones, at the tail of the list
                while found and found[-1][0] <= end:
                    found.pop()
                found.append((start, end + 1, value))
                break
    found.reverse()
    return found
