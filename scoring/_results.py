"""A results file (the canonical jsonl ``run``, ``score`` and ``eval`` write) and what each of its records says.

Everything that reads a results file back reads it here: ``report``, ``merge``, ``judge-check``, the review
of an exported sheet and ``--against``. :func:`results_lines` gives each line with its number and bytes, a
line that is not a record named as a problem rather than raised (``merge`` reports every part's problems);
:func:`read_results` gives the records and raises :class:`~scoring._errors.ResultsFileError` at the first
line that is none.

What a record says is read here too, the same way for every reader: its dataset (:func:`dataset_of`), the
model that answered (:func:`model_of`), the metric that scored it (:func:`metric_of`) and each judge's verdict
on a response (:func:`judge_verdicts`; the entry itself is typed and read in
:mod:`formatkit._core.judge_entry`).

This module sits below the judges and the report: it reads the metric table (a judge metric's kind says
whether its verdict is a comparison's outcome) and formatkit's record, nothing above.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, NamedTuple, cast

import orjson

from formatkit._core.judge_entry import (
    disagreement,
    judge_entry,
    judge_metric,
    judge_model,
    judge_scale,
    judge_status,
    order_values,
    outcome_of,
    panel_seats,
    rationale_of,
    repeats_of,
    seat_model,
    seat_score,
    stale_reason,
)
from formatkit._core.record import RecordDict, reference_of, response_entries
from scoring._errors import ResultsFileError
from scoring._metrics.registry import METRICS, implementation

__all__ = [
    "UNKNOWN_MODEL",
    "JudgeVerdict",
    "ResultsFileError",
    "ResultsLine",
    "compares",
    "dataset_of",
    "judge_verdicts",
    "metric_of",
    "model_of",
    "read_results",
    "results_lines",
]

StrPath = str | os.PathLike[str]
#: Why a line is no record: it is not JSON, or not a canonical record (no ``messages`` list).
Problem = Literal["not_json", "not_canonical"]


class ResultsLine(NamedTuple):
    """One non-blank line of a results file (a tuple: a report reads hundreds of thousands)."""

    #: 1-based, blank lines counted (as an editor shows them).
    number: int
    #: The line as written, ending in a newline.
    raw: bytes
    #: The line's JSON (None when it is not JSON, or when it was not parsed).
    data: Any = None
    problem: Problem | None = None
    #: The JSON parser's own words, for a line that is not JSON.
    detail: str = ""

    @property
    def record(self) -> RecordDict | None:
        """The canonical record the line holds; None when it holds none (or was not parsed)."""
        return cast(RecordDict, self.data) if self.problem is None and self.data is not None else None


def results_lines(path: StrPath, *, parse: bool = True) -> Iterator[ResultsLine]:
    """Each non-blank line of ``path`` with its number; parsed (``parse``) into its JSON and checked to be a
    canonical record, a line that is not one named by its ``problem``. ``OSError`` when the file cannot be read."""
    if not parse:
        with open(path, "rb") as handle:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    yield ResultsLine(number, line if line.endswith(b"\n") else line + b"\n")
        return
    for number, line, data, problem, detail in _parsed(path):
        yield ResultsLine(number, line if line.endswith(b"\n") else line + b"\n", data, problem, detail)


def _parsed(path: StrPath) -> Iterator[tuple[int, bytes, Any, Problem | None, str]]:
    """The non-blank lines of ``path`` parsed, as plain tuples (the report's path: no object per line)."""
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                data = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                yield number, line, None, "not_json", str(exc)
                continue
            if isinstance(data, dict) and isinstance(data.get("messages"), list):
                yield number, line, data, None, ""
            else:
                yield number, line, data, "not_canonical", ""


def read_results(path: StrPath, *, hint: str = "") -> Iterator[RecordDict]:
    """The records of the results file ``path``, in order. :class:`ResultsFileError` at the first line that is
    no record (``hint`` ends the message of a line that is not JSON: what the file should have been)."""
    for number, _, data, problem, detail in _parsed(path):
        if problem is None:
            yield data
        elif problem == "not_json":
            raise ResultsFileError(f"{path}: line {number} is not JSON ({detail}){hint}")
        else:
            raise ResultsFileError(f"{path}: line {number} is not a canonical record (no messages list)")


# --- what a record says -----------------------------------------------------------------------------------


def dataset_of(record: RecordDict, default: str) -> str:
    """The record's dataset: ``meta.dataset``, else ``default`` (the file's name)."""
    meta = record.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("dataset"), str) and meta["dataset"]:
        return str(meta["dataset"])
    return default


UNKNOWN_MODEL = "(unknown model)"


def model_of(record: RecordDict) -> str:
    """The model that answered: the first response's ``model`` (seed 001's ``endpoint_id`` is its alias),
    else ``(unknown model)``. Two models' records are never merged under one name."""
    for response in response_entries(record):
        for key in ("model", "endpoint_id"):
            value = response.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return UNKNOWN_MODEL


def metric_of(record: RecordDict) -> str | None:
    """The metric that scored the record: the first response's ``metric`` (a judge's verdict names its own)."""
    for response in response_entries(record):
        metric = response.get("metric")
        if isinstance(metric, str) and metric:
            return metric
        judged = judge_metric(judge_entry(response))
        if judged is not None:
            return judged
    return None


# --- each judge's verdict on a response -------------------------------------------------------------------

#: The name a panel's combined verdict goes by beside its judges' own.
PANEL = "panel"


def compares(metric: str) -> bool:
    """Whether the judge metric ``metric`` compares the response with an opponent (its kind's ``versus``):
    its verdict is then an outcome, win, tie or loss, not a score on a scale. The kind is named by the
    metric table and loaded from there (the judges sit above this module)."""
    spec = METRICS.get(metric)
    return spec is not None and spec.kind == "judge" and getattr(implementation(spec), "versus", False) is True


@dataclass(frozen=True)
class JudgeVerdict:
    """One judge's verdict on one response."""

    #: The judge model (``panel`` for a panel's combined verdict).
    judge: str
    #: The judge metric: ``judge``, ``pairwise``, ``math-judge``.
    kind: str
    #: On the scale (a float) or ``win``/``tie``/``loss`` (a comparison); None: no verdict.
    verdict: float | str | None
    rationale: str | None
    #: The judge's scale (``0-2``), None for a comparison.
    scale: str | None
    #: The verdicts of the same judge asked again (``--judge-repeats``), when it was.
    repeats: tuple[float | str, ...] = ()
    #: A comparison judged in both orders: whether the two orders disagreed (None: not both orders).
    orders_disagree: bool | None = None
    #: A comparison judged in both orders: its value for the model shown first, and shown second.
    order_values: tuple[float, float] | None = None
    #: The verdict was given on another text than the response holds (``response_edited``,
    #: ``opponent_edited``): it says nothing of the present text. None: given on this text, or not known.
    stale: str | None = None


def judge_verdicts(response: Mapping[str, Any], record: Mapping[str, Any] | None = None) -> list[JudgeVerdict]:
    """The verdicts on ``response``: one per judge (a panel's judges, then ``panel``); [] when no judge
    looked at it. Each says whether it is ``stale``: given on another text than the response's content
    (or, ``record`` given, than its reference, for a comparison with it); a reader of verdicts for people
    or statistics leaves a stale one out and counts it.

    Everything that reads a judge's verdict for people or statistics (``export``'s ``judge_verdict`` and
    ``judge_rationale`` columns, ``judge-check``) reads it here. A panel's judges each hold ``status``, their
    ``score`` or ``outcome``, their ``rationale`` and, asked several times, ``repeats``; the combined verdict
    stays where a single judge's is. A person's score (``human_score``, written by ``score`` of a reviewed
    export) replaces the response's ``score``; the judge's own is kept in ``overridden`` and read from there.
    """
    entry = judge_entry(response)
    kind = judge_metric(entry)
    if entry is None or kind is None:
        return []
    versus = compares(kind)
    scale = judge_scale(entry)
    out = [_one(seat, kind, versus, scale, seat_model(seat), None, None) for seat in panel_seats(entry)]
    before = response.get("overridden") if response.get("scored_by") == "human" else None
    own = before if isinstance(before, dict) else response
    name = PANEL if out else (judge_model(entry) or "judge")
    out.append(_one(entry, kind, versus, scale, name, own.get("score"), own.get("analysis")))
    reference = cast(Any, reference_of(cast(RecordDict, record))) if record is not None else None
    stale = stale_reason(entry, response.get("content"), reference)
    if stale is None:
        return out
    return [replace(verdict, stale=stale[0]) for verdict in out]


def _one(
    entry: Mapping[str, Any], kind: str, versus: bool, scale: str | None, name: str, score: Any, analysis: Any
) -> JudgeVerdict:
    """The verdict of one judge's entry; ``score``/``analysis``: the response's own (the entry does not
    repeat them), None to read the entry's."""
    scored = judge_status(entry) == "scored"
    verdict: float | str | None = None
    if scored and versus:
        verdict = outcome_of(entry)
    elif scored:
        value = seat_score(entry) if score is None else score
        if isinstance(value, int | float) and not isinstance(value, bool):
            verdict = float(value)
    # a panel's judge writes its analysis as "rationale" (scoring._judges.panel); a single judge's is the response's
    own = analysis if isinstance(analysis, str) else None
    rationale = rationale_of(entry) if analysis is None else own
    repeats = repeats_of(entry)
    found = [_repeat_verdict(r, versus) for r in repeats] if repeats is not None else []
    return JudgeVerdict(
        judge=name,
        kind=kind,
        verdict=verdict,
        rationale=rationale,
        scale=None if versus else (judge_scale(entry) or scale or None),
        repeats=tuple(r for r in found if r is not None),
        orders_disagree=disagreement(entry),
        order_values=order_values(entry),
    )


def _repeat_verdict(repeat: Any, versus: bool) -> float | str | None:
    """One repeat's verdict: a number or an outcome as written, or a repeat entry of a panel's judge
    (``{"status", "score", "outcome", ...}``, scoring._judges.panel); None when it gave none."""
    if isinstance(repeat, int | float | str) and not isinstance(repeat, bool):
        return repeat
    if not isinstance(repeat, dict) or judge_status(repeat) != "scored":
        return None
    if versus:
        return outcome_of(repeat)
    return seat_score(repeat)
