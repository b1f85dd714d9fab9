"""The ``parameters`` cell/field: a dict of inference parameters with known keys and ranges."""

from __future__ import annotations

import ast
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from formatkit._core.draft import Place
from formatkit._core.issues import IssueSink
from formatkit._core.messages import Later, Msg
from formatkit._core.suggest import did_you_mean_later

__all__ = [
    "KNOWN_PARAMETERS",
    "ParameterSpec",
    "check_parameters",
    "clean_parameters_text",
    "is_clean_parameters",
    "parameters_json_schema",
    "parse_parameters",
    "repair_parameters_text",
]


@dataclass(frozen=True)
class ParameterSpec:
    """One known parameter: its JSON type and range. Checks and the JSON Schema both derive from it."""

    kind: Literal["number", "integer", "boolean", "stop", "object"]
    minimum: float | None = None
    maximum: float | None = None
    #: The minimum itself is not allowed (``repetition_penalty`` > 0).
    exclusive: bool = False
    #: One value allowed below the minimum (``top_k`` -1: no limit).
    also: int | None = None
    #: A serving engine's parameter (vLLM, SGLang), not OpenAI's: accepted with a warning, sent as written.
    engine: bool = False

    def problem(self, value: Any) -> str | None:
        """None when ``value`` is fine; else ``type:<expected>`` or ``range:<allowed>`` (in English)."""
        found = self.check(value)
        return None if found is None else f"{found[0]}:{found[1].render()}"

    def check(self, value: Any) -> tuple[Literal["type", "range"], Msg] | None:
        """None when ``value`` is fine; else ("type", what it must be) or ("range", what is allowed)."""
        if self.kind == "boolean":
            return None if isinstance(value, bool) else ("type", Msg("frag.expect.boolean"))
        if self.kind == "object":
            return None if isinstance(value, dict) else ("type", Msg("frag.expect.object_example"))
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
        if self.also is not None and value == self.also:
            return None
        low = self.minimum
        if (low is not None and (value < low or (self.exclusive and value == low))) or (
            self.maximum is not None and value > self.maximum
        ):
            return "range", self.allowed_msg()
        return None

    def allowed(self) -> str:
        return self.allowed_msg().render()

    def allowed_msg(self) -> Msg:
        if self.maximum is None:
            low = Msg("frag.expect.greater_than" if self.exclusive else "frag.expect.at_least", minimum=self.minimum)
            return low if self.also is None else Msg("frag.expect.either", value=self.also, other=low)
        return Msg("frag.expect.between", minimum=self.minimum, maximum=self.maximum)

    def json_schema(self) -> dict[str, object]:
        if self.kind == "boolean":
            return {"type": "boolean"}
        if self.kind == "object":
            return {"type": "object"}
        if self.kind == "stop":
            return {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "maxItems": 4}]}
        schema: dict[str, object] = {"type": self.kind}
        if self.minimum is not None:
            schema["exclusiveMinimum" if self.exclusive else "minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        if self.also is not None:
            return {"anyOf": [{"type": self.kind, "const": self.also}, schema]}
        return schema


#: Known parameter names and their specs (docs/pages/reference/rules.md, "Known parameters", generated from
#: this table). The seed's list ends in 等 (not exhaustive): the serving engines' keys that model cards
#: prescribe are known too, with a warning.
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
    # vLLM and SGLang (Qwen3's card: top_k 20, min_p 0, enable_thinking in chat_template_kwargs)
    "top_k": ParameterSpec("integer", 1, also=-1, engine=True),
    "min_p": ParameterSpec("number", 0, 1, engine=True),
    "repetition_penalty": ParameterSpec("number", 0, exclusive=True, engine=True),
    "chat_template_kwargs": ParameterSpec("object", engine=True),
}
#: Keys people put at the top level that belong inside another parameter, and where.
_NESTED = {"enable_thinking": "chat_template_kwargs"}


def parameters_json_schema() -> dict[str, object]:
    """The JSON Schema of a parameters object, from the same specs the checks use."""
    return {
        "type": "object",
        "properties": {name: spec.json_schema() for name, spec in KNOWN_PARAMETERS.items()},
        "additionalProperties": False,
    }


def parse_parameters(text: str) -> dict[str, object] | None:
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


def check_parameters(raw: Any, place: Place, sink: IssueSink) -> dict[str, object]:
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
    good: dict[str, object] = {}
    engine: list[str] = []
    for key, value in raw.items():
        spec = KNOWN_PARAMETERS.get(key)
        where = _with_key(place, key)
        if spec is None:
            sink.add("unknown_parameter", Msg("unknown_parameter", key=key, hint=_unknown_hint(str(key))), **where)
            continue
        problem = spec.check(value)
        if problem is None:
            good[key] = value
            if spec.engine:
                engine.append(key)
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
    if engine:
        names = ", ".join(f'"{key}"' for key in engine)
        sink.add("engine_parameter", Msg("engine_parameter", names=names), **place)
    # Only a dict that draws no issue at all is remembered: the fast paths skip the check for it.
    if fingerprint is not None and len(good) == len(raw) and not engine and len(_CLEAN) < _CLEAN_LIMIT:
        _CLEAN.add(fingerprint)
        if text is not None and len(_CLEAN_TEXT) < _CLEAN_LIMIT:
            _CLEAN_TEXT[text] = dict(good)
    return good


def _unknown_hint(key: str) -> Msg | Later:
    """A near miss of a known key gets "did you mean" (worked out only if the issue is kept); a key that
    belongs inside another, where it goes."""
    nested = _NESTED.get(key.strip())
    if nested is not None:
        return Msg("frag.nested_parameter", key=key.strip(), parent=nested)
    return did_you_mean_later(key, KNOWN_PARAMETERS)


def is_clean_parameters(raw: dict[str, object], text: bytes | None = None) -> bool:
    """Whether :func:`check_parameters` already found this very dict clean (it then returns it unchanged,
    reporting nothing). False means "not known", not "bad": the full check decides. ``text``: the dict's
    ``orjson.dumps`` when the caller already has it (the jsonl reader does)."""
    fingerprint = _cache_key(raw) if text is None else text
    return fingerprint is not None and fingerprint in _CLEAN


def clean_parameters_text(text: str) -> dict[str, object] | None:
    """What :func:`check_parameters` returns for a parameters cell it already found clean (a fresh dict
    each time, as there); None when the text is not known clean, and the full check decides."""
    parsed = _CLEAN_TEXT.get(text)
    return None if parsed is None else dict(parsed)


#: Parameter dicts already found clean, by their exact JSON text (sets repeat the same cell on every
#: row, so this turns the per-row check into one lookup). Bounded: only a few distinct dicts are usual.
_CLEAN: set[bytes] = set()
_CLEAN_LIMIT = 4096


_PARSED: dict[str, dict[str, object] | None] = {}
#: Parameter cells (the text) found clean, with what check_parameters returned for them.
_CLEAN_TEXT: dict[str, dict[str, object]] = {}


def _parse_cached(text: str) -> dict[str, object] | None:
    """parse_parameters with a bounded memo: a Python-dict cell costs ~20 µs to parse each time."""
    if text in _PARSED:
        parsed = _PARSED[text]
    else:
        parsed = parse_parameters(text)
        if len(_PARSED) < _CLEAN_LIMIT:
            _PARSED[text] = parsed
    return None if parsed is None else dict(parsed)  # a record never shares its dict with another


def _cache_key(raw: dict[str, object]) -> bytes | None:
    try:
        return orjson.dumps(raw)
    except (TypeError, orjson.JSONEncodeError):
        return None


def _with_key(place: Place, key: object) -> Place:
    if place.get("field"):
        return {**place, "field": f"{place['field']}.{key}"}
    return place


#: Punctuation a Chinese input method types in place of JSON's.
_FULL_WIDTH = {
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "，": ",",
    "：": ":",
    "｛": "{",
    "｝": "}",
    "【": "[",
    "】": "]",
    "［": "[",
    "］": "]",
    "、": ",",
}
#: Each opening quote and the quotes that close it: ASCII closes ASCII (as in JSON, so a "“" inside it is
#: text); a curly quote is closed by its pair (an input method types them in pairs).
_CLOSERS = {'"': '"', "＂": "＂", "“": "”", "'": "'", "＇": "＇", "‘": "’"}
_DOUBLE = frozenset('"“”＂')
_SINGLE = frozenset("'‘’＇")


def repair_parameters_text(text: str) -> dict[str, object] | None:
    """The dict a parameters cell that does not parse was meant to be, when exactly one reading exists:
    JSON or a Python dict typed with a Chinese input method (``｛“temperature”：0.7｝``), or ``key=value``
    pairs (``temperature=0.7, max_tokens=1024``). None when it is neither (``formatkit fix`` leaves it).

    Full-width punctuation is replaced only outside quoted text, so a stop string "，" stays as typed."""
    if parse_parameters(text) is not None:
        return None  # nothing to repair
    # Two ways to read the quotes: strictly (ASCII closes ASCII, a curly quote its pair) and loosely (any
    # double quote closes a double-quoted string: {"temperature”: 0.7} typed half in each mode). A
    # repair is made only when every reading that parses gives the same dict.
    found: list[dict[str, object]] = []
    for loose in (False, True):
        plain = _half_width_outside_strings(text.strip(), loose=loose)
        if plain is None:
            continue
        parsed = parse_parameters(plain)
        if parsed is None and not plain.startswith("{"):
            parsed = _key_values(plain)
        if parsed is not None:
            found.append(parsed)
    return found[0] if found and all(other == found[0] for other in found) else None


def _half_width_outside_strings(text: str, *, loose: bool = False) -> str | None:
    """The IME's punctuation as JSON's outside quoted strings, every quote as its ASCII kind; None when a
    string is left open. ``loose``: any quote of the opening one's kind (double or single) closes it."""
    out: list[str] = []
    closer: str | None = None
    quote = ""
    escaped = False
    for ch in text:
        if closer is not None:
            if escaped:
                escaped = False
                out.append(ch)
            elif ch == "\\":
                escaped = True
                out.append(ch)
            elif ch == closer or (loose and ch in (_DOUBLE if quote == '"' else _SINGLE)):
                closer = None
                out.append(quote)
            elif ch == quote:
                out.append("\\" + ch)  # an ASCII quote inside a curly-quoted string is text
            else:
                out.append(ch)
        elif ch in _CLOSERS:
            closer = _CLOSERS[ch]
            quote = '"' if ch in _DOUBLE else "'"
            out.append(quote)
        else:
            out.append(_FULL_WIDTH.get(ch) or unicodedata.normalize("NFKC", ch))
    return None if closer is not None else "".join(out)


def _key_values(text: str) -> dict[str, object] | None:
    """``temperature=0.7, max_tokens=1024`` (commas, semicolons or line breaks between the pairs; values
    as JSON or Python literals) as a dict; None unless every part is such a pair."""
    source = text.strip().strip(",;")
    if not any(quote in source for quote in "\"'"):  # no strings: every ; and line break separates pairs
        source = re.sub(r"\s*[;\n]\s*", ", ", source)
    try:
        tree = ast.parse(f"dict({source})", mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    call = tree.body
    if not isinstance(call, ast.Call) or call.args or not call.keywords:
        return None
    result: dict[str, object] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            return None
        value = _literal(keyword.value)
        if value is _NOT_LITERAL:
            return None
        result[keyword.arg] = value
    return result


_NOT_LITERAL = object()
_JSON_NAMES = {"true": True, "false": False, "null": None}


def _literal(node: ast.expr) -> Any:
    """A Python literal, or JSON's true/false/null; _NOT_LITERAL for anything else (a bare word)."""
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_literal(item) for item in node.elts]
        return _NOT_LITERAL if any(item is _NOT_LITERAL for item in items) else items
    if isinstance(node, ast.Dict):
        keys = [None if key is None else _literal(key) for key in node.keys]
        values = [_literal(value) for value in node.values]
        if any(not isinstance(key, str) for key in keys) or any(value is _NOT_LITERAL for value in values):
            return _NOT_LITERAL
        return dict(zip(keys, values, strict=True))
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOT_LITERAL


def _full_width_hint(text: str) -> Msg | str:
    """Name the full-width punctuation that makes a parameters text unreadable, if any."""
    found = [ch for ch in _FULL_WIDTH if ch in text]
    if not found:
        return ""
    return Msg("frag.full_width", found=[Msg("frag.full_width_char", char=ch, plain=_FULL_WIDTH[ch]) for ch in found])


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
