"""Repairs of a jsonl file, each with exactly one right answer:

- a byte-order mark: removed; a GBK (or UTF-16) file: decoded and written as UTF-8 (the encoding named
  by :func:`formatkit._reading.jsonl_lines.guess_encoding`, the one validate's message names);
- ``parameters`` written as a string (a Python dict, JSON, a Chinese input method's punctuation,
  ``key=value``): written as the JSON object it stands for;
- spaces around a string ``session_id``: trimmed, unless that would make two ids equal;
- a key in another case or full-width (``Prompt``, ``ａｎｓｗｅｒ``) or an alias (``message``, ``query``): renamed
  to the format's name, through the key tables of :mod:`formatkit._rules.jsonl`, unless the line holds
  that name already.

Only the lines a repair changes are written anew (key order kept, Chinese unescaped); every other line is
kept byte for byte, and lines that are not JSON objects are left for validate to report. The file is held
in memory (``formatkit fix`` is for sets a person edits, 1,000 lines on the platform).
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

from formatkit._fixing.changes import Change, Repaired, shown
from formatkit._reading.jsonl_lines import guess_encoding, wide_encoding
from formatkit._rules.jsonl import ALIASES, MULTI_KEYS, SINGLE_KEYS
from formatkit._rules.parameters import parse_parameters, repair_parameters_text

__all__ = ["repair_jsonl", "repair_jsonl_file"]

_BOM = b"\xef\xbb\xbf"


def repair_jsonl_file(source: Path) -> Repaired:
    """The repaired copy of the jsonl file ``source`` (see :func:`repair_jsonl`)."""
    data, changes = repair_jsonl(source.read_bytes())
    return Repaired(data, changes, [])


def repair_jsonl(data: bytes) -> tuple[bytes, list[Change]]:
    """The repaired bytes of a jsonl file and the changes made."""
    changes: list[Change] = []
    text = _decode(data, changes)
    if text is None:
        return data, changes
    lines = _split(text)
    objects = [_object(line) for line in lines]
    ids = [obj.get("session_id") for obj in objects if obj is not None]
    taken = {i for i in ids if isinstance(i, (str, int)) and not isinstance(i, bool)}
    out: list[str] = []
    for number, (line, obj) in enumerate(zip(lines, objects, strict=True), start=1):
        if obj is None:
            out.append(line)
            continue
        found = _repair_line(obj, number, taken)
        if not found:
            out.append(line)
            continue
        changes += found
        ending = line[len(line.rstrip("\r\n")) :]
        out.append(json.dumps(obj, ensure_ascii=False) + (ending or ""))
    return "".join(out).encode("utf-8"), changes


def _decode(data: bytes, changes: list[Change]) -> str | None:
    wide = wide_encoding(data)
    if wide is not None:
        try:
            text = data.decode(wide[1])
        except UnicodeDecodeError:
            return None  # not what its first bytes say: validate reports not_utf8
        changes.append(Change(code="reencoded", data={"encoding": wide[0], "sample": _sample(text)}))
        return text
    if data.startswith(_BOM):
        changes.append(Change(code="bom_removed", line=1))
        data = data[len(_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    name = guess_encoding(data)
    codec = {"GBK": "gb18030", "GB18030": "gb18030", "Big5": "big5", "Shift-JIS": "shift_jis"}.get(name)
    if codec is None:
        return None  # no certain reading: validate reports not_utf8
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        return None
    changes.append(Change(code="reencoded", data={"encoding": name, "sample": _sample(text)}))
    return text


_NON_ASCII = re.compile(r"[^\x00-\x7f]{1,24}")


def _sample(text: str) -> str:
    """Some decoded non-ASCII text, so the user sees at once whether the encoding was guessed right."""
    found = _NON_ASCII.search(text)
    return found.group() if found else ""


def _split(text: str) -> list[str]:
    """Lines split at \\n only, as the reader splits them (str.splitlines would also split at U+2028 or
    U+0085, which JSON strings may hold as they are)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


class _Unsure(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, object]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise _Unsure("duplicate key")  # rewriting the line would silently drop one value
    return dict(pairs)


def _refuse(name: str) -> Any:
    raise _Unsure(name)


def _object(line: str) -> dict[str, object] | None:
    if not line.strip():
        return None
    try:
        value = json.loads(line, object_pairs_hook=_no_duplicates, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _repair_line(obj: dict[str, object], line: int, taken: set[Any]) -> list[Change]:
    changes = _keys(obj, line)
    parameters = obj.get("parameters")
    if isinstance(parameters, str) and parameters.strip():
        parsed = parse_parameters(parameters) or repair_parameters_text(parameters)
        if parsed is not None:
            obj["parameters"] = parsed
            after = json.dumps(parsed, ensure_ascii=False)
            changes.append(
                Change(
                    code="parameters_rewritten",
                    data={"before": shown(parameters), "after": after},
                    line=line,
                    field="parameters",
                )
            )
    sid = obj.get("session_id")
    if isinstance(sid, str) and sid.strip() and sid.strip() != sid and sid.strip() not in taken:
        obj["session_id"] = sid.strip()
        taken.add(sid.strip())
        changes.append(
            Change(
                code="id_trimmed",
                data={"before": shown(sid), "after": shown(sid.strip())},
                line=line,
                field="session_id",
            )
        )
    return changes


def _fold(key: str) -> str:
    return unicodedata.normalize("NFKC", key).strip().casefold()


def _keys(obj: dict[str, object], line: int) -> list[Change]:
    """Rename keys that name a key of the line's shape only after case-folding/NFKC, or as an alias."""
    folded = {key: _fold(key) for key in obj}
    multi = any(name in ("messages", "message") for name in folded.values())
    allowed = MULTI_KEYS if multi else SINGLE_KEYS
    renames: dict[str, tuple[str, str]] = {}
    for key, name in folded.items():
        if key in allowed:
            continue
        if name in allowed:
            renames[key] = (name, "normalized")
        elif name in ALIASES and ALIASES[name] in allowed:
            renames[key] = (ALIASES[name], "alias")
    targets = [name for name, _ in renames.values()]
    renames = {
        key: (name, how)
        for key, (name, how) in renames.items()
        if name not in obj and targets.count(name) == 1  # never two keys into one
    }
    if not renames:
        return []
    items = list(obj.items())
    obj.clear()
    for key, value in items:
        obj[renames[key][0] if key in renames else key] = value
    return [
        Change(code="key_renamed", data={"before": key, "after": name, "how": how}, line=line, field=key)
        for key, (name, how) in renames.items()
    ]
