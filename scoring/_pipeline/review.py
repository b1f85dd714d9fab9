"""Reviewers correct scores in a spreadsheet: what ``export`` adds for them and what ``score`` does with it.

``export`` (through :func:`review_fields`) writes beside each scored response its judges' verdicts
(``judge_verdict``) and reasons (``judge_rationale``), an empty ``human_score`` for the reviewer, and a
``fingerprint``: a digest of what the score was computed from (the conversation, the reference, the
reply). ``score`` of the sheet (through :func:`triage`) then:

* keeps the score of every response whose fingerprint still matches, as it was — a judge's included,
  with no judge asked: nothing it was scored from changed;
* re-scores a response whose reply, reference or question was edited (the fingerprint no longer
  matches);
* takes a filled ``human_score`` as the score: ``scored_by: "human"``, ``human_score``, and what the
  machine said kept in ``overridden`` (``score``, ``analysis``; the judge's entry stays as it was). A
  human score outside the score's scale (the judge's, −1..1 pairwise, 0..1 otherwise) or not finite is a
  problem at its cell (``problems``: ``score`` refuses the sheet), or with ``--skip-bad-labels`` left out,
  the response left as it was.

A verdict belongs to the text it judged (its entry's fingerprint, :mod:`formatkit._core.judge_entry`): a
response whose content (or reference, for a comparison with it) changed after judging has its entry moved
out of ``judge`` into ``stale_verdict`` (:func:`retire_stale`), on every input ``score`` reads and every
record ``export`` writes, so no judge score stays with a text the judge never read: the response is scored
again (judged again when judge options are given).

Each change is a :class:`Change`, so the command can say which records it changed.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, cast

import orjson

from formatkit._core.judge_entry import judge_entry, judge_scale, retire_entry, stale_entry_of, stale_verdict_of
from formatkit._core.messages import Msg
from formatkit._core.record import RecordDict, ResponseDict, reference_of, target_responses
from scoring._judges.kinds import kind_of
from scoring._judges.scale import parse_scale
from scoring._results import dataset_of, judge_verdicts

__all__ = ["KEEP", "Change", "fingerprint", "kept", "retire_stale", "review_fields", "strip_keep", "triage"]

#: The mark :func:`triage` leaves on a response whose score stands (the scorer passes it by and removes it).
KEEP = "_keep_score"
#: Export's columns for review that are not a response's own data: dropped when the sheet is read back.
_SHEET_ONLY = ("fingerprint", "judge_verdict", "judge_rationale")


def fingerprint(record: RecordDict, response: ResponseDict) -> str:
    """A digest of what ``response``'s score was computed from: every turn before the target, the
    reference and the reply (16 hex digits)."""
    turns = [(m.get("role"), m.get("content")) for m in record.get("messages", [])[:-1]]
    data = orjson.dumps([turns, reference_of(record), response.get("content")])
    return hashlib.sha256(data).hexdigest()[:16]


def _verdict_text(value: float | str | None) -> str:
    if value is None:
        return "void"
    if isinstance(value, str):
        return value
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def retire_stale(record: RecordDict, response: ResponseDict) -> str | None:
    """Move ``response``'s judge entry to ``stale_verdict`` (in place) when its verdict was given on another
    text than the response's content, or than the record's reference for a comparison with it; the reason
    (``response_edited``, ``opponent_edited``), or None when the verdict (if any) belongs to this text."""
    return retire_entry(cast(dict[str, Any], response), reference_of(record))


def review_fields(records: Iterable[RecordDict], stale: Counter[str] | None = None) -> Iterator[RecordDict]:
    """``records`` (copies) with the review fields on each scored response, for ``export``:
    ``judge_verdict`` and ``judge_rationale`` (one line per judge with a panel), and ``fingerprint``. A
    verdict given on another text is left out of them (moved to ``stale_verdict``, :func:`retire_stale`)
    and counted in ``stale`` (``stale["verdicts"]``)."""
    for record in records:
        out = copy.deepcopy(record)
        for response in target_responses(out):
            if "score" not in response:
                continue
            fields = cast(dict[str, Any], response)
            retire_stale(out, response)
            if stale is not None and stale_verdict_of(response) is not None and judge_entry(response) is None:
                stale["verdicts"] += 1
            verdicts = judge_verdicts(response, out)
            if len(verdicts) == 1:
                fields["judge_verdict"] = _verdict_text(verdicts[0].verdict)
                if verdicts[0].rationale:
                    fields["judge_rationale"] = verdicts[0].rationale
            elif verdicts:
                fields["judge_verdict"] = "\n".join(f"{v.judge}: {_verdict_text(v.verdict)}" for v in verdicts)
                fields["judge_rationale"] = "\n".join(f"{v.judge}: {v.rationale}" for v in verdicts if v.rationale)
            fields["fingerprint"] = fingerprint(out, response)
        yield out


@dataclass(frozen=True)
class Change:
    """One response ``score`` changed (or refused to): its record, and how."""

    dataset: str
    session_id: Any
    sample: int
    how: Literal["human", "edited", "refused", "stale"]
    before: float | None
    #: The person's score (``human``, ``refused``); None for an edited response (re-scored).
    human: float | None = None


def _bounds(response: ResponseDict) -> tuple[float, float]:
    """The range a person's score may take: the judge's scale, −1..1 for a comparison, else 0..1."""
    judge = judge_entry(response) or stale_entry_of(response)
    kind = kind_of(judge)
    if kind is not None:
        if kind.versus:
            return (-1.0, 1.0)
        text = judge_scale(judge)
        if kind.on_scale and text is not None:
            try:
                scale = parse_scale(text)
            except ValueError:
                return (0.0, 1.0)
            return (scale.low, scale.high)
    return (0.0, 1.0)


def _override(response: ResponseDict, human: float) -> float | None:
    """Make ``human`` the response's score; what the machine said goes to ``overridden`` (once: a second
    review keeps the machine's, not the first person's). Returns the score before."""
    fields = cast(dict[str, Any], response)
    if fields.get("scored_by") != "human":
        fields["overridden"] = {"score": response.get("score"), "analysis": response.get("analysis")}
    before = response.get("score")
    machine = fields["overridden"].get("score")
    said = "none" if machine is None else _verdict_text(machine)
    response["score"] = human
    response["analysis"] = f"scored by a person: {_verdict_text(human)} (the machine's score was {said})"
    response["settled"] = True
    response.pop("unsettled_reason", None)
    fields["scored_by"] = "human"
    return before


def triage(record: RecordDict, default_dataset: str, problems: list[Msg] | None = None) -> list[Change]:
    """Read the review fields of ``record``'s responses (in place): mark with :data:`KEEP` each response
    whose score stands (unedited, or a person's), apply each ``human_score``, drop the sheet-only fields,
    move a verdict given on another text to ``stale_verdict`` (the response is scored again); return what
    changed. A ``human_score`` off the scale or not finite is refused, and, ``problems`` given, added to it
    at its place. A response without a ``fingerprint`` (not from a review sheet) is left to be scored as
    before, unless a person scored it."""
    changes: list[Change] = []
    for n, response in enumerate(target_responses(record), start=1):
        fields = cast(dict[str, Any], response)
        stamp = fields.get("fingerprint")
        for key in _SHEET_ONLY:
            fields.pop(key, None)
        low, high = _bounds(response)  # the judge's scale, before a stale entry is moved
        stale = retire_stale(record, response) is not None
        edited = stamp is not None and stamp != fingerprint(record, response)
        human = fields.get("human_score")
        change = functools.partial(_change, changes, dataset_of(record, default_dataset), record.get("session_id"), n)

        if isinstance(human, int | float) and not isinstance(human, bool):
            if math.isfinite(human) and low <= human <= high:
                already = fields.get("scored_by") == "human" and response.get("score") == human
                before = _override(response, float(human))
                fields[KEEP] = True
                if not already:
                    change("human", before, float(human))
                continue
            if problems is not None:
                problems.append(_bad_human(record, n, human, low, high))
            change("refused", response.get("score"), float(human) if math.isfinite(human) else None)
            fields.pop("human_score", None)
        elif human is not None:
            fields.pop("human_score", None)
        if stale:
            change("stale", response.get("score"))
            continue
        if stamp is None:
            continue
        if edited:
            change("edited", response.get("score"))
        else:
            fields[KEEP] = True
    return changes


def _bad_human(record: RecordDict, sample: int, human: float, low: float, high: float) -> Msg:
    """The problem of a ``human_score`` that cannot be used, at its cell (the sheet's row of the target turn)."""
    meta = record.get("meta")
    source = meta.get("source") if isinstance(meta, dict) else None
    place = source if isinstance(source, dict) else {}
    rows = place.get("rows")
    column = "human_score" if sample == 1 else f"human_score_{sample}"
    where = str(place.get("file") or record.get("session_id"))
    if place.get("sheet"):
        where += f": sheet {place['sheet']}"
    if isinstance(rows, list) and rows:
        where += f", row {rows[-1]}, {column}"
    elif isinstance(place.get("line"), int):
        where += f": line {place['line']}, {column}"
    if not math.isfinite(human):
        return Msg("frag.label.not_finite", where=where, value=repr(human))
    return Msg("frag.label.out_of_scale", where=where, value=f"{human:g}", scale=f"{low:g}-{high:g}")


def _change(
    changes: list[Change],
    dataset: str,
    session_id: Any,
    sample: int,
    how: Literal["human", "edited", "refused", "stale"],
    before: Any,
    value: float | None = None,
) -> None:
    changes.append(Change(dataset, session_id, sample, how, before, value))


def kept(response: ResponseDict) -> bool:
    """Whether ``response``'s score stands (its :data:`KEEP` mark, removed here). A sheet holds no null:
    the null ``score`` and ``answer`` a scorer writes come back."""
    if cast(dict[str, Any], response).pop(KEEP, None) is None:
        return False
    if "metric" in response:
        response.setdefault("score", None)
        response.setdefault("answer", None)
    return True


def strip_keep(record: RecordDict) -> bool:
    """Remove the :data:`KEEP` marks of ``record``; whether every response had one."""
    marks = [kept(r) for r in target_responses(record)]
    return bool(marks) and all(marks)
