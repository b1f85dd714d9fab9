"""Known output columns (Excel) and keys (jsonl): the results of seed 001's common field table, so that an
exported file can be validated, edited and scored again.

Seed 001 names ``response``, ``score``, ``analysis``, ``usage``, ``error`` and ``endpoint_id`` (the model;
``model`` is the name formatkit writes). ``formatkit export`` also writes the scores-as-data fields
(``metric``, ``extracted_answer`` — the response's ``answer``, renamed because ``answer`` is the reference's
alias —, ``settled``, ``unsettled_reason``), the judge's verdicts (``judge``, JSON), the
``endpoint``, the reply's ``reasoning_content`` and ``finish_reason``, its other keys as ``extra``
(JSON), for review the judges' ``judge_verdict`` and ``judge_rationale``, a reviewer's ``human_score``
and the ``fingerprint`` of what was scored (``score`` keeps an unedited response's score), a later sample's
columns with a suffix (``response_2``, ``score_2``, …), and the record's
``dataset`` and ``meta`` (JSON); Excel accepts all of them. In jsonl, ``answer`` is the reference, so only
the seed's result keys are accepted there.

In ``scored`` mode the values are carried into the target turn's responses (and ``dataset``/``meta``
into the record's meta); in the other modes the responses are generated again and the values are not
read. A value of the wrong type is an ``invalid_type`` error at its cell or field.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, cast

from formatkit._core.draft import Place
from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.record import RecordDict, last_message

__all__ = [
    "JSONL_RESULT_KEYS",
    "RECORD_COLUMNS",
    "RESULT_FIELDS",
    "ROW_KEY",
    "apply_results",
    "has_outcome",
    "result_column",
]

#: Per-response fields, in the order ``export`` writes them (``response`` is the reply's ``content``).
RESULT_FIELDS = (
    "response",
    "score",
    "analysis",
    "usage",
    "error",
    "model",
    "endpoint",
    "metric",
    "extracted_answer",
    "settled",
    "unsettled_reason",
    "judge",
    "reasoning_content",
    "finish_reason",
    "extra",
    "judge_verdict",
    "judge_rationale",
    "human_score",
    "fingerprint",
    "partial_score",
)
#: Seed 001's name for the model that answered.
ENDPOINT_ID = "endpoint_id"
RECORD_COLUMNS = ("dataset", "meta")
#: Where an exported row stands (``record.turn/turns``): read by :mod:`formatkit._rules.excel_order` to put a
#: sorted sheet back in order, never carried into a record.
ROW_KEY = "row_key"
JSONL_RESULT_KEYS = ("score", "analysis", "usage", "error", "model", ENDPOINT_ID)
_SUFFIXED = re.compile(r"(?P<field>[a-z_]+?)_(?P<n>[2-9]|[1-9][0-9]+)")
_JSON_OBJECTS = ("usage", "judge", "meta", "extra")


def result_column(text: str) -> str | None:
    """The output column a header names (``score``, ``score_2``, ``endpoint_id``, ``dataset`` …), or None.

    ``response`` itself is an input column, not one of these; ``response_2`` is."""
    name = unicodedata.normalize("NFKC", text).strip().casefold()
    if name in RECORD_COLUMNS or name in (ENDPOINT_ID, ROW_KEY) or (name in RESULT_FIELDS and name != "response"):
        return name
    match = _SUFFIXED.fullmatch(name)
    if match and match["field"] in (*RESULT_FIELDS, ENDPOINT_ID):
        return name
    return None


def _split(name: str) -> tuple[str, int]:
    """``score_2`` → ("score", 2); ``endpoint_id`` → ("model", 1)."""
    match = _SUFFIXED.fullmatch(name)
    field, n = (match["field"], int(match["n"])) if match and name != ENDPOINT_ID else (name, 1)
    return ("model" if field == ENDPOINT_ID else field), n


def _bad(sink: IssueSink, place: Place, name: str, expected: Msg, value: Any) -> None:
    shown = repr(value) if not isinstance(value, str) else f'"{value[:40]}"'
    sink.add("invalid_type", Msg("invalid_type.result", name=name, expected=expected, value=shown), **place)


def _convert(field: str, name: str, value: Any, place: Place, sink: IssueSink) -> tuple[bool, Any]:
    """(ok, value) for one cell or key; a wrong type is reported and (False, None) returned."""
    if field in ("score", "human_score", "partial_score"):
        if isinstance(value, bool):
            _bad(sink, place, name, Msg("frag.expect.number"), value)
            return False, None
        if isinstance(value, int | float):
            return True, float(value)
        try:
            return True, float(str(value).strip())
        except ValueError:
            _bad(sink, place, name, Msg("frag.expect.number"), value)
            return False, None
    if field in _JSON_OBJECTS:
        if isinstance(value, dict):
            return True, value
        try:
            parsed = json.loads(value) if isinstance(value, str) else None
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            _bad(sink, place, name, Msg("frag.expect.usage"), value)
            return False, None
        return True, parsed
    if field == "settled":
        if isinstance(value, bool):
            return True, value
        text = str(value).strip().casefold()
        if text in ("true", "false"):
            return True, text == "true"
        _bad(sink, place, name, Msg("frag.expect.boolean"), value)
        return False, None
    if isinstance(value, str):
        return True, value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return True, f"{value:g}" if isinstance(value, float) else str(value)
    _bad(sink, place, name, Msg("frag.expect.text"), value)
    return False, None


def has_outcome(results: Mapping[str, tuple[Any, Place]] | None) -> bool:
    """Whether the first response has an outcome without a reply: an ``error`` (seed 001: inference could
    not complete) or a ``score`` (the reply was empty — an Excel cell cannot hold an empty string)."""
    if not results:
        return False
    error = results.get("error", (None, {}))[0]
    score = results.get("score", (None, {}))[0]
    return (isinstance(error, str) and bool(error.strip())) or (score is not None and score != "")


def apply_results(
    record: RecordDict, results: Mapping[str, tuple[Any, Place]], sink: IssueSink, *, scored: bool
) -> None:
    """Check each result value and, when ``scored``, carry it into ``record`` (built in scored mode: its
    target turn holds the first response)."""
    target = last_message(record["messages"])
    # Filled key by key from the result columns' names: plain JSON objects here, typed again by the caller.
    responses = cast("list[dict[str, object]]", target.setdefault("responses", []))
    parameters = responses[0].get("parameters", {}) if responses else {}
    meta = cast(dict[str, object], record.setdefault("meta", {}))
    for name, (raw, place) in results.items():
        if raw is None or (isinstance(raw, str) and raw == "") or name == ROW_KEY:
            continue
        field, n = _split(name)
        ok, value = _convert(field, name, raw, place, sink)
        if not ok or not scored:
            continue
        if field in RECORD_COLUMNS:
            if field == "meta":
                meta.update({k: v for k, v in value.items() if k not in ("source", "dataset")})
            else:
                meta["dataset"] = value
            continue
        while len(responses) < n:
            responses.append({"parameters": parameters})
        key = {"response": "content", "extracted_answer": "answer"}.get(field, field)
        if field == "model" and "model" in responses[n - 1]:
            continue  # both model and endpoint_id given: model, the name formatkit writes, wins
        if field == "extra":  # the response's other keys (latency, logprobs, …), each back in its place
            for extra_key, extra_value in value.items():
                responses[n - 1].setdefault(extra_key, extra_value)
            continue
        responses[n - 1][key] = value
    if scored:
        for response in responses:
            if "content" not in response and "error" not in response and "score" in response:
                response["content"] = ""  # scored, no error, no reply: the reply was empty (a wrong answer)
