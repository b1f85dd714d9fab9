"""jsonl at the byte level: UTF-8, byte-order mark, blank lines, strict JSON, one object per line.

Parsing takes orjson's fast path and falls back to the standard library only to classify an error or
to find the duplicate keys that a fast parser silently merges. Memory holds one line at a time.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from formatkit._core.codes import Code
from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg

__all__ = ["MAX_DEPTH", "MAX_LINE_BYTES", "guess_encoding", "iter_json_lines", "wide_encoding"]

#: The longest line read (bytes). A record past it (a 2 GB file with no line break) is one issue at its line,
#: skipped in blocks of this size, instead of a MemoryError; 64 MiB holds a 128k-token context many times.
MAX_LINE_BYTES = 64 << 20

#: The deepest a line may nest arrays and objects, the line's own object counting as one: orjson writes no
#: deeper (it reads 1,024 levels, so a deeper line would pass the reader and fail in every writer).
MAX_DEPTH = 254
#: The shortest compact JSON of a value nested MAX_DEPTH levels deep (an opener and a closer a level).
_DEEP_BYTES = 2 * MAX_DEPTH

_BOM = b"\xef\xbb\xbf"
_INT_LIMIT = 2**63
#: Digits to "0", so that a run of 19 digits is one substring search (a regex costs 2-4 µs a line).
_ZEROS = bytes.maketrans(b"123456789", b"000000000")
_RUN = b"0" * 19


def _big_number(dumped: bytes) -> bool:
    """Whether orjson's output of a value may hold a number at or beyond 2**63: a run of 19 digits, or a
    positive exponent (orjson writes 2**200, read as a float, as 1.6069380442589903e+60)."""
    return b"e+" in dumped or _RUN in dumped.translate(_ZEROS)


_SURROGATE = re.compile("[\ud800-\udfff]")


class _NonFinite(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonFinite(name)


def _pairs_with_duplicates(found: list[str]) -> Any:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, object]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                found.append(key)
            seen.add(key)
        return dict(pairs)

    return hook


def wide_encoding(data: bytes) -> tuple[str, str] | None:
    """UTF-32 or UTF-16, as iconv names it, and Python's codec for it: by the byte-order mark (UTF-32's
    FF FE 00 00 starts as UTF-16's FF FE does), else by where the zero bytes of the first characters fall
    (JSON text starts with ASCII, which these encodings pad with zeros; UTF-8 text holds no zero byte
    there). None for any other bytes."""
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32", "utf-32"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16", "utf-16"
    head = data[:4]
    if len(head) < 4 or 0 not in head:
        return None
    if head[1:] == b"\x00\x00\x00":
        return "UTF-32LE", "utf-32-le"
    if head[:3] == b"\x00\x00\x00":
        return "UTF-32BE", "utf-32-be"
    if head[1] == head[3] == 0:
        return "UTF-16LE", "utf-16-le"
    if head[0] == head[2] == 0:
        return "UTF-16BE", "utf-16-be"
    return None


def guess_encoding(data: bytes) -> str:
    """Name the encoding non-UTF-8 bytes most likely are (Chinese files are usually GBK)."""
    wide = wide_encoding(data)
    if wide is not None:
        return wide[0]
    for name in ("gbk", "gb18030", "big5", "shift_jis"):
        try:
            data.decode(name)
        except UnicodeDecodeError:
            continue
        return {"gbk": "GBK", "gb18030": "GB18030", "big5": "Big5", "shift_jis": "Shift-JIS"}[name]
    return "Latin-1 or another single-byte encoding"


def _may_have_duplicates(raw: bytes, value: Any, dumps: dict[str, bytes] | None = None) -> bool:
    """Cheap and sound: every key in the text is followed by exactly one ``:`` outside strings, and
    ``:`` inside strings is never escaped by orjson. So the text holds more colons than its compact
    re-serialisation exactly when it has keys (or values) the parsed data dropped — a duplicate —
    or a colon written as an escape; both go to the exact check. A number that may lie beyond 64 bits
    (see :func:`_dumped_colons`) goes there too."""
    colons = raw.count(b":")
    if colons == 0:
        return False
    # The escape search only where there is an escape at all (a one-byte search is a fast memchr).
    return colons != _dumped_colons(value, dumps) or (b"\\" in raw and b"\\u003" in raw)


def _dumped_colons(value: Any, dumps: dict[str, bytes] | None = None) -> int:
    """``orjson.dumps(value).count(b":")`` without serialising a line's long texts: one colon per key,
    plus the colons inside keys and values (orjson never escapes a colon; numbers, booleans and null
    hold none). Only nested objects and arrays, usually small, are serialised.

    -1 (never a count) when a number may lie at or beyond 2**63: orjson reads a longer integer as a float
    (2**200 becomes 1.6e60) and one up to 2**64 as an int, so the exact parse must look at the line.

    ``dumps``, when given, receives the compact JSON of each nested object serialised here, by key (the
    rules reuse it: a parameters object's text is its cache key, see is_clean_parameters); arrays are
    left out.

    A line nested past :data:`MAX_DEPTH` levels gives -1 too (orjson refuses to write it), so that the
    exact check reports it."""
    if type(value) is not dict:
        try:
            dumped = orjson.dumps(value)
        except orjson.JSONEncodeError:  # nested past orjson's limit: the exact check says so, at the line
            return -1
        return -1 if _big_number(dumped) else dumped.count(b":")
    count = len(value)
    for key, item in value.items():
        if ":" in key:
            count += key.count(":")
        kind = type(item)
        if kind is str:
            if ":" in item:  # a fast search; counting walks the whole text (Chinese uses "：" anyway)
                count += item.count(":")
        elif kind is list:
            # Written inside a one-element tuple, so that orjson refuses it from MAX_DEPTH levels on, where the
            # line's object could not be written: the exact check then says so, at the line. The two brackets
            # hold no colon and no digit: the count and the screen are the same; these bytes are not kept.
            try:
                dumped = orjson.dumps((item,))
            except orjson.JSONEncodeError:
                return -1
            nested = _nested_colons(dumped)
            if nested < 0:
                return -1
            count += nested
        elif kind is dict:
            try:
                dumped = orjson.dumps(item)
            except orjson.JSONEncodeError:  # nested past orjson's limit: the exact check says so, at the line
                return -1
            if len(dumped) >= _DEEP_BYTES and _too_deep_to_write(item):
                return -1
            nested = _nested_colons(dumped)
            if nested < 0:
                return -1
            count += nested
            if dumps is not None:
                dumps[key] = dumped
        elif (kind is int or kind is float) and not -9.2e18 < item < 9.2e18:
            return -1
    return count


def _too_deep_to_write(item: Any) -> bool:
    """Whether an object orjson just wrote is one level too deep to be written inside the line's object (it
    nests MAX_DEPTH levels itself). Asked only of objects long enough to nest that deep."""
    try:
        orjson.dumps((item,))
    except orjson.JSONEncodeError:
        return True
    return False


def _depth_past(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` levels deep (itself one), without
    recursion: a line orjson reads may nest 1,024 levels, past Python's recursion limit."""
    stack: list[tuple[Any, int]] = [(value, 1)] if type(value) is dict or type(value) is list else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in node.values() if type(node) is dict else node:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return False


#: :func:`_nested_colons` of small nested values already screened, by their compact JSON: a set repeats
#: one parameters object on every line, so its screen becomes one lookup. Bounded in entries and size.
_NESTED: dict[bytes, int] = {}
_NESTED_LIMIT = 4096
_NESTED_SIZE = 512


def _nested_colons(dumped: bytes) -> int:
    """``dumped.count(b":")``, or -1 when :func:`_big_number` says it may hold a number beyond 64 bits."""
    known = _NESTED.get(dumped)
    if known is None:
        known = -1 if _big_number(dumped) else dumped.count(b":")
        if len(dumped) <= _NESTED_SIZE and len(_NESTED) < _NESTED_LIMIT:
            _NESTED[dumped] = known
    return known


# Python's JSON decoder messages (json.decoder, json.scanner) → their frag.json_error.* keys.
_DECODER_MESSAGES = {
    "Expecting value": "value",
    "Expecting property name enclosed in double quotes": "property_name",
    "Expecting ',' delimiter": "comma",
    "Expecting ':' delimiter": "colon",
    "Extra data": "extra_data",
    "Unterminated string starting at": "unterminated_string",
    "Invalid control character at": "control_character",
    "Invalid \\escape": "escape",
    "Invalid \\uXXXX escape": "unicode_escape",
}


def _parse_slow(text: str, line: int, sink: IssueSink) -> tuple[bool, Any]:
    duplicates: list[str] = []
    # Without its line break: an object cut short is then reported at the column where it stops on
    # this line, not at "column 1" of a line 2 that exists only inside the error message.
    text = text.rstrip("\r\n")
    try:
        value = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_pairs_with_duplicates(duplicates))
    except _NonFinite as exc:
        sink.add(
            "non_finite_number",
            Msg("non_finite_number", value=str(exc)),
            line=line,
        )
        return False, None
    except RecursionError:  # deeper than Python's json reader goes (orjson reads up to 1,024 levels)
        sink.add("nested_too_deep", Msg("nested_too_deep", limit=MAX_DEPTH), line=line)
        return False, None
    except ValueError as exc:
        detail: str | Msg = str(exc)
        if isinstance(exc, json.JSONDecodeError):
            # the decoder's words, as a template of their own so they are translated too
            known = _DECODER_MESSAGES.get(exc.msg)
            detail = Msg(f"frag.json_error.{known}") if known else exc.msg
        where = Msg("frag.at_column", column=exc.colno) if isinstance(exc, json.JSONDecodeError) else ""
        hint = Msg("frag.json_one_object")
        stripped = text.strip()
        if stripped.endswith(",") and _parses(stripped[:-1]):
            hint = Msg("frag.json_trailing_comma_line")
        elif _TRAILING_COMMA.search(stripped):
            hint = Msg("frag.json_trailing_comma")
        elif stripped.endswith(",") or stripped.startswith(("[", "]")):
            hint = Msg("frag.json_array")
        sink.add("invalid_json", Msg("invalid_json", detail=detail, where=where, hint=hint), line=line)
        return False, None
    if _depth_past(value, MAX_DEPTH):  # before the recursive checks below, and any writer, meet it
        sink.add("nested_too_deep", Msg("nested_too_deep", limit=MAX_DEPTH), line=line)
        return False, None
    problem = _unrepresentable(value, "")
    if problem is not None:
        code, field, message = problem
        sink.add(code, message, line=line, field=field or None)
        return False, None
    for key in dict.fromkeys(duplicates):
        sink.add(
            "duplicate_key",
            Msg("duplicate_key", key=key),
            line=line,
            field=key,
        )
    return True, value


def _unrepresentable(value: Any, path: str) -> tuple[Code, str, Msg] | None:
    """The first lone surrogate or out-of-range integer in a parsed line: (code, field, message)."""
    if type(value) is str:
        found = _SURROGATE.search(value)
        if found is None:
            return None
        escape = f"\\u{ord(found.group()):04x}"
        message = (
            Msg("lone_surrogate", field=path, escape=escape) if path else Msg("lone_surrogate.string", escape=escape)
        )
        return "lone_surrogate", path, message
    if type(value) is int:
        if -_INT_LIMIT <= value < _INT_LIMIT:
            return None
        digits = len(str(abs(value)))
        message = (
            Msg("number_too_large", field=path, digits=digits)
            if path
            else Msg("number_too_large.number", digits=digits)
        )
        return "number_too_large", path, message
    if type(value) is dict:
        for key, item in value.items():
            name = f"{path}.{key}" if path else key
            if _SURROGATE.search(key):
                return _unrepresentable(key, name)
            found_item = _unrepresentable(item, name)
            if found_item is not None:
                return found_item
    elif type(value) is list:
        for index, item in enumerate(value):
            found_item = _unrepresentable(item, f"{path}[{index}]")
            if found_item is not None:
                return found_item
    return None


def _blank_lines(first: int, count: int, sink: IssueSink) -> None:
    """One issue per blank line, kept up to the sink's limit and only counted beyond it."""
    kept = min(count, sink.room("blank_line"))
    for blank in range(first, first + kept):
        sink.add("blank_line", Msg("blank_line"), line=blank)
    if count > kept:
        sink.count("blank_line", count - kept)


def _size(count: int) -> str:
    return f"{count >> 20} MiB" if count >= 1 << 20 else f"{count >> 10} KiB"


def _too_long(handle: Any, number: int, read: int, limit: int, sink: IssueSink) -> None:
    """Skip the rest of a line longer than ``limit`` (a block at a time) and report it once."""
    while True:
        block = handle.readline(limit)
        read += len(block)
        if not block or block[-1:] == b"\n":
            break
    sink.add("line_too_long", Msg("line_too_long", size=read, limit=_size(limit)), line=number)


_TRAILING_COMMA = re.compile(r",\s*[}\]]")


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def iter_json_lines(
    path: Path, sink: IssueSink, dumps: dict[str, bytes] | None = None, *, start: tuple[int, int] = (0, 1)
) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for each line that parses; report every other line.

    ``dumps``, when given, holds for the line just yielded the compact JSON (``orjson.dumps``) of nested
    top-level objects the duplicate-key check serialised, by key; a key may be missing (then serialise it
    yourself). It is emptied before each line.

    ``start``: the byte offset to read from (the start of a line) and that line's number, to read the part of
    a file that begins there (the checks of the file's first line, a byte-order mark, UTF-16, apply to line 1
    only)."""
    bad_encoding_line: int | None = None
    bad_encoding_count = 0
    blank_start = 0
    blank_count = 0
    limit = MAX_LINE_BYTES
    offset, first_line = start
    with path.open("rb") as handle:
        status = os.fstat(handle.fileno())
        if offset:
            handle.seek(offset)
        # A file smaller than the bound cannot hold a longer line: it is read by the file's own iterator
        # (the bounded readline costs ~0.2 µs more a line); a larger file, or a pipe, by blocks of the bound.
        small = stat.S_ISREG(status.st_mode) and status.st_size < limit
        lines = handle if small else iter(functools.partial(handle.readline, limit), b"")
        for number, raw in enumerate(lines, start=first_line):
            if len(raw) >= limit and raw[-1:] != b"\n":
                _too_long(handle, number, len(raw), limit, sink)
                continue
            if number == 1 and (raw.startswith((b"\xff\xfe", b"\xfe\xff")) or 0 in raw[:4]):
                # UTF-16 (Windows "Unicode") or UTF-32: every line break is two or four bytes, so reading it
                # line by line as UTF-8 would add a bogus invalid_json per line. The one error is the encoding.
                wide = wide_encoding(raw)
                if wide is not None:
                    bad_encoding_line, bad_encoding_count, encoding = 1, 1, wide[0]
                    break
            if number == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
                sink.add("utf8_bom", Msg("utf8_bom"), line=1)
            if (not raw or raw[0] != 0x7B) and not raw.strip():  # most lines start with "{": skip the copy
                if not blank_count:
                    blank_start = number
                blank_count += 1
                continue
            if blank_count:
                _blank_lines(blank_start, blank_count, sink)
                blank_count = 0
            if dumps:
                dumps.clear()
            try:
                value = orjson.loads(raw)  # validates UTF-8 too
            except orjson.JSONDecodeError:
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    if bad_encoding_line is None:
                        bad_encoding_line = number
                        encoding = guess_encoding(raw)
                    bad_encoding_count += 1
                    continue
                ok, value = _parse_slow(text, number, sink)
            else:
                ok = True
                kind = type(value)
                if (kind is dict or kind is list) and _may_have_duplicates(raw, value, dumps):
                    ok, value = _parse_slow(raw.decode("utf-8"), number, sink)
                    if dumps:
                        dumps.clear()
            if ok:
                yield number, value
    # Blank lines at the very end are common and harmless: only trailing whitespace, no warning.
    if bad_encoding_line is not None:
        more = Msg("frag.lines_in_all", count=bad_encoding_count) if bad_encoding_count > 1 else ""
        sink.add(
            "not_utf8",
            Msg("not_utf8", encoding=encoding, more=more, iconv=encoding.split()[0]),
            line=bad_encoding_line,
        )
