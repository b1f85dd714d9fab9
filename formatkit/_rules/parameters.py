"""The ``parameters`` cell/field: a dict of inference parameters with known keys and ranges."""

from __future__ import annotations

import ast
import json
import math
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from formatkit._core.draft import Place
from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.suggest import did_you_mean_later

__all__ = [
    "KNOWN_PARAMETERS",
    "ParameterSpec",
    "check_parameters",
    "clean_parameters_text",
    "is_clean_parameters",
    "parameters_json_schema",
    "parse_parameters",
]


@dataclass(frozen=True)
class ParameterSpec:
    """One known parameter: its JSON type and range. Checks and the JSON Schema both derive from it."""

    kind: Literal["number", "integer", "boolean", "stop"]
    minimum: float | None = None
    maximum: float | None = None

    def problem(self, value: Any) -> str | None:
        """None when ``value`` is fine; else ``type:<expected>`` or ``range:<allowed>`` (in English)."""
        found = self.check(value)
        return None if found is None else f"{found[0]}:{found[1].render()}"

    def check(self, value: Any) -> tuple[Literal["type", "range"], Msg] | None:
        """None when ``value`` is fine; else ("type", what it must be) or ("range", what is allowed)."""
        if self.kind == "boolean":
            return None if isinstance(value, bool) else ("type", Msg("frag.expect.boolean"))
        if self.kind == "stop":
            if isinstance(value, str):
                return None
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return None if len(value) <= 4 else ("range", Msg("frag.expect.string_list_4"))
            return "type", Msg("frag.expect.string_or_list")
        if self.kind == "integer":
            # 1024.0 is an integer to JSON Schema too; 1024.5 is not.
            if isinstance(value, bool) or not (
                isinstance(value, int) or (isinstance(value, float) and value.is_integer())
            ):
                return "type", Msg("frag.expect.integer")
            if not -(2**63) <= value < 2**63:
                return "range", Msg("frag.expect.int64")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return "type", Msg("frag.expect.number")
        if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
            return "range", self.allowed_msg()
        return None

    def allowed(self) -> str:
        return self.allowed_msg().render()

    def allowed_msg(self) -> Msg:
        if self.maximum is None:
            return Msg("frag.expect.at_least", minimum=self.minimum)
        return Msg("frag.expect.between", minimum=self.minimum, maximum=self.maximum)

    def json_schema(self) -> dict[str, Any]:
        if self.kind == "boolean":
            return {"type": "boolean"}
        if self.kind == "stop":
            return {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "maxItems": 4}]}
        schema: dict[str, Any] = {"type": self.kind}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return schema


#: Known parameter names and their specs (FORMATS.md, "parameters").
KNOWN_PARAMETERS: dict[str, ParameterSpec] = {
    "temperature": ParameterSpec("number", 0, 2),
    "top_p": ParameterSpec("number", 0, 1),
    "max_tokens": ParameterSpec("integer", 1),
    "frequency_penalty": ParameterSpec("number", -2, 2),
    "presence_penalty": ParameterSpec("number", -2, 2),
    "logprobs": ParameterSpec("boolean"),
    "top_logprobs": ParameterSpec("integer", 0, 20),
    "stop": ParameterSpec("stop"),
    "n": ParameterSpec("integer", 1, 16),
    "seed": ParameterSpec("integer"),
}


def parameters_json_schema() -> dict[str, Any]:
    """The JSON Schema of a parameters object, from the same specs the checks use."""
    return {
        "type": "object",
        "properties": {name: spec.json_schema() for name, spec in KNOWN_PARAMETERS.items()},
        "additionalProperties": False,
    }


def parse_parameters(text: str) -> dict[str, Any] | None:
    """Parse a parameters cell written as JSON or as a Python dict literal; None if it is neither."""
    text = text.strip()
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return value if isinstance(value, dict) else None


def check_parameters(raw: Any, place: Place, sink: IssueSink) -> dict[str, Any]:
    """Validate a raw parameters value (dict, text or None); return the usable dict (possibly empty)."""
    if raw is None:
        return {}
    text: str | None = None
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        text = raw
        parsed = _parse_cached(raw)
        if parsed is None:
            sink.add(
                "invalid_parameters",
                Msg("invalid_parameters", text=_clip(raw), hint=_full_width_hint(raw)),
                **place,
            )
            return {}
        raw = parsed
    if isinstance(raw, dict):
        fingerprint = _cache_key(raw)
        if fingerprint is not None and fingerprint in _CLEAN:
            if text is not None and len(_CLEAN_TEXT) < _CLEAN_LIMIT:
                _CLEAN_TEXT[text] = dict(raw)
            return raw
    else:
        sink.add(
            "invalid_parameters",
            Msg("invalid_parameters.type", type=type(raw).__name__),
            **place,
        )
        return {}
    good: dict[str, Any] = {}
    for key, value in raw.items():
        spec = KNOWN_PARAMETERS.get(key)
        where = _with_key(place, key)
        if spec is None:
            sink.add(
                "unknown_parameter",
                Msg("unknown_parameter", key=key, hint=did_you_mean_later(str(key), KNOWN_PARAMETERS)),
                **where,
            )
            continue
        problem = spec.check(value)
        if problem is None:
            good[key] = value
        elif problem[0] == "type":
            sink.add(
                "invalid_parameter_type",
                Msg(
                    "invalid_parameter_type",
                    key=key,
                    expected=problem[1],
                    value=json.dumps(value, ensure_ascii=False),
                ),
                **where,
            )
        else:
            sink.add(
                "parameter_out_of_range",
                Msg("parameter_out_of_range", key=key, value=value, allowed=problem[1]),
                **where,
            )
    if fingerprint is not None and len(good) == len(raw) and len(_CLEAN) < _CLEAN_LIMIT:
        _CLEAN.add(fingerprint)
        if text is not None and len(_CLEAN_TEXT) < _CLEAN_LIMIT:
            _CLEAN_TEXT[text] = dict(good)
    return good


def is_clean_parameters(raw: dict[str, Any], text: bytes | None = None) -> bool:
    """Whether :func:`check_parameters` already found this very dict clean (it then returns it unchanged,
    reporting nothing). False means "not known", not "bad": the full check decides. ``text``: the dict's
    ``orjson.dumps`` when the caller already has it (the jsonl reader does)."""
    fingerprint = _cache_key(raw) if text is None else text
    return fingerprint is not None and fingerprint in _CLEAN


def clean_parameters_text(text: str) -> dict[str, Any] | None:
    """What :func:`check_parameters` returns for a parameters cell it already found clean (a fresh dict
    each time, as there); None when the text is not known clean, and the full check decides."""
    parsed = _CLEAN_TEXT.get(text)
    return None if parsed is None else dict(parsed)


#: Parameter dicts already found clean, by their exact JSON text (sets repeat the same cell on every
#: row, so this turns the per-row check into one lookup). Bounded: only a few distinct dicts are usual.
_CLEAN: set[bytes] = set()
_CLEAN_LIMIT = 4096


_PARSED: dict[str, dict[str, Any] | None] = {}
#: Parameter cells (the text) found clean, with what check_parameters returned for them.
_CLEAN_TEXT: dict[str, dict[str, Any]] = {}


def _parse_cached(text: str) -> dict[str, Any] | None:
    """parse_parameters with a bounded memo: a Python-dict cell costs ~20 µs to parse each time."""
    if text in _PARSED:
        parsed = _PARSED[text]
    else:
        parsed = parse_parameters(text)
        if len(_PARSED) < _CLEAN_LIMIT:
            _PARSED[text] = parsed
    return None if parsed is None else dict(parsed)  # a record never shares its dict with another


def _cache_key(raw: dict[str, Any]) -> bytes | None:
    try:
        return orjson.dumps(raw)
    except (TypeError, orjson.JSONEncodeError):
        return None


def _with_key(place: Place, key: object) -> Place:
    if place.get("field"):
        return {**place, "field": f"{place['field']}.{key}"}
    return place


#: Punctuation a Chinese input method types in place of JSON's.
_FULL_WIDTH = {"“": '"', "”": '"', "‘": "'", "’": "'", "，": ",", "：": ":", "｛": "{", "｝": "}"}


def _full_width_hint(text: str) -> Msg | str:
    """Name the full-width punctuation that makes a parameters text unreadable, if any."""
    found = [ch for ch in _FULL_WIDTH if ch in text]
    if not found:
        return ""
    return Msg("frag.full_width", found=[Msg("frag.full_width_char", char=ch, plain=_FULL_WIDTH[ch]) for ch in found])


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
