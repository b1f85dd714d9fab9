"""The ``parameters`` cell/field: a dict of inference parameters with known keys and ranges."""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Callable
from typing import Any

from formatkit.draft import Place
from formatkit.issues import IssueSink
from formatkit.suggest import did_you_mean

__all__ = ["KNOWN_PARAMETERS", "check_parameters", "parse_parameters"]


def _number(lo: float | None, hi: float | None) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return "type:a number"
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            return f"range:{_range(lo, hi)}"
        return None

    return check


def _integer(lo: int | None, hi: int | None) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            return "type:an integer"
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            return f"range:{_range(lo, hi)}"
        return None

    return check


def _range(lo: float | None, hi: float | None) -> str:
    if hi is None:
        return f"at least {lo}"
    return f"from {lo} to {hi}"


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else "type:true or false"


def _stop(value: Any) -> str | None:
    if isinstance(value, str):
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return None if len(value) <= 4 else "range:a list of at most 4 strings"
    return "type:a string or a list of strings"


def _any_integer(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return "type:an integer"
    return None


#: Known parameter names and their checks (FORMATS.md, "parameters").
KNOWN_PARAMETERS: dict[str, Callable[[Any], str | None]] = {
    "temperature": _number(0, 2),
    "top_p": _number(0, 1),
    "max_tokens": _integer(1, None),
    "frequency_penalty": _number(-2, 2),
    "presence_penalty": _number(-2, 2),
    "logprobs": _boolean,
    "top_logprobs": _integer(0, 20),
    "stop": _stop,
    "n": _integer(1, 16),
    "seed": _any_integer,
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
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        parsed = parse_parameters(raw)
        if parsed is None:
            sink.add(
                "invalid_parameters",
                f"parameters is not a dict: {_clip(raw)!r}. Write it as JSON "
                '({"temperature": 0.7, "max_tokens": 1024}) or as a Python dict ({\'temperature\': 0.7}).',
                **place,
            )
            return {}
        raw = parsed
    if not isinstance(raw, dict):
        sink.add(
            "invalid_parameters",
            f"parameters must be an object of inference parameters, not {type(raw).__name__}.",
            **place,
        )
        return {}
    good: dict[str, Any] = {}
    for key, value in raw.items():
        check = KNOWN_PARAMETERS.get(key)
        where = _with_key(place, key)
        if check is None:
            sink.add(
                "unknown_parameter",
                f'parameters has an unknown key "{key}".' + did_you_mean(str(key), KNOWN_PARAMETERS),
                **where,
            )
            continue
        problem = check(value)
        if problem is None:
            good[key] = value
        elif problem.startswith("type:"):
            sink.add(
                "invalid_parameter_type",
                f'parameters "{key}" must be {problem[5:]}, not {json.dumps(value, ensure_ascii=False)}.',
                **where,
            )
        else:
            sink.add(
                "parameter_out_of_range",
                f'parameters "{key}" is {value}, out of range: it must be {problem[6:]}.',
                **where,
            )
    return good


def _with_key(place: Place, key: object) -> Place:
    if "field" in place and place["field"]:
        return {**place, "field": f"{place['field']}.{key}"}
    return place


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
