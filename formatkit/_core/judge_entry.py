"""The ``judge`` entry an LLM judge writes into a response, typed, and the one place that reads it by key.

The judges (:mod:`scoring._judges.run` and :mod:`scoring._judges.panel`) write it; every reader (the
judges' summary, the report, ``export``, review, ``judge-check``) goes through the accessors below, so
where a verdict is kept is known here only. Like the record's types (:mod:`formatkit._core.record`), these
are ``TypedDict``s: they name the shape of the very dict ``orjson`` read, at no cost at run time. A
results file is data someone else wrote, so each accessor reads defensively: a missing or malformed key
is None (or empty), never an exception.

One judge::

    {"metric": "judge" | "pairwise" | "math-judge" | ..., "model": JUDGE_MODEL,
     "sent_because": WHY, "rule": {...},          # auto with a judge: why the rules left it, their result
     "template": "builtin:absolute_zh", "lang": "zh",
     ...the judge kind's own fields (KindFields: scale, reply, verdict / orders, outcome, disagree / ...),
     "usage": {...judge tokens...}, "status": "scored" | "unparseable" | "request_failed" | "not_judged"}

A panel (several judges, ``--judge-repeats``, escalation) adds ``aggregate``, ``valid`` and ``panel``: one
:class:`SeatEntry` per judge, whose ``repeats`` (asked several times) are :class:`RepeatEntry`; escalating,
``escalations``, ``avoided`` and ``rule_score`` (see :mod:`scoring._judges.panel`). A judge kind of a
plugin may write keys of its own (read with ``.get()`` where they are written, typed ``object``).

A new key of the entry is a field of :class:`JudgeEntry` (or :class:`KindFields`, when each judge of a panel
writes it too) and an accessor here; the judges write it, :mod:`scoring._results` gives it to the readers with
each verdict.

A verdict belongs to the text it judged: the entry's ``fingerprint`` is :func:`text_fingerprint` of the
response's content as the judge read it (a comparison's ``opponent_fingerprint``, of the opponent's). A
response whose content (or whose reference, the opponent of a comparison with the reference) no longer
matches has a stale verdict (:func:`stale_reason`); ``score`` moves it out of ``judge`` into
``stale_verdict`` (:class:`StaleVerdict`, read with :func:`stale_verdict_of`), where no reader takes it for
a verdict on the present text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, MutableMapping
from typing import Any, Literal, TypedDict, cast

__all__ = [
    "OUTCOMES",
    "REFERENCE_OPPONENT",
    "Escalation",
    "JudgeEntry",
    "JudgeStatus",
    "KindFields",
    "OrderEntry",
    "Outcome",
    "RepeatEntry",
    "ScoreVerdict",
    "SeatEntry",
    "StaleReason",
    "StaleVerdict",
    "against_of",
    "aggregate_of",
    "avoided_of",
    "both_orders",
    "consistent_of",
    "disagreement",
    "escalation_reasons",
    "is_panel",
    "judge_entry",
    "judge_metric",
    "judge_model",
    "judge_orders",
    "judge_scale",
    "judge_status",
    "judge_usage",
    "order_values",
    "orders_disagree",
    "outcome_of",
    "panel_seats",
    "rationale_of",
    "repeats_of",
    "retire_entry",
    "seat_model",
    "seat_score",
    "shown_fields",
    "stale_entry_of",
    "stale_reason",
    "stale_verdict_of",
    "text_fingerprint",
    "untagged",
    "verdict_fingerprint",
]

#: ``scored``: a verdict (or a rule such as "an empty reply is wrong") gave the score. ``unparseable``: the
#: judge replied with no verdict in its format (a void verdict). ``request_failed``: the judge could not be
#: asked. ``not_judged``: nothing to judge (no content, no reference, no opponent); nothing was sent.
JudgeStatus = Literal["scored", "unparseable", "request_failed", "not_judged"]
#: A comparison's verdict from the model's side.
Outcome = Literal["win", "tie", "loss"]
OUTCOMES: tuple[Outcome, ...] = ("win", "tie", "loss")


class ScoreVerdict(TypedDict, total=False):
    """A verdict on a scale, as the absolute and the math judge parse it."""

    score: float
    raw_score: float | str
    #: The verdict was inside the request's nonce tag (None: the prompt asked for none).
    tagged: bool | None


class OrderEntry(TypedDict, total=False):
    """One order of a comparison (the model's response as A, then as B)."""

    order: Literal["model_first", "model_second"]
    reply: str
    #: Why this order has no verdict (the request failed, or the reply held none).
    error: str
    choice: str
    #: The choice's value for the model (+1 … −1).
    value: float
    analysis: str
    tagged: bool | None


class KindFields(TypedDict, total=False):
    """What a judge kind writes of one verdict (the built-in kinds' keys; a plugin's kind may add its own)."""

    status: JudgeStatus
    #: ``--judge-scale`` as text (``0-2``): the kinds whose verdicts are on it.
    scale: str
    #: The judge's raw reply (one-stage kinds).
    reply: str
    verdict: ScoreVerdict | None
    #: The math judge: each stage's raw reply, and the answer the first stage extracted.
    replies: dict[str, str]
    extracted: str | None
    #: A comparison: what the response was set against, both orders, their mean and outcome.
    against: str
    orders: list[OrderEntry]
    combined: float
    outcome: Outcome
    disagree: bool


class RepeatEntry(KindFields, total=False):
    """One asking of one judge of a panel."""

    score: float | None
    answer: str | None
    #: The judge's analysis, or why it gave no verdict.
    rationale: str


class SeatEntry(RepeatEntry, total=False):
    """One judge of a panel: its verdict over its repeats (one repeat: that repeat's fields in place)."""

    model: str
    usage: dict[str, int]
    repeats: list[RepeatEntry]
    #: The valid repeats all agree (None: fewer than two).
    consistent: bool | None


#: Escalation: the judge whose verdict sent the response on, and why (``void``, ``flip``, ``contradicts_rule``).
Escalation = TypedDict("Escalation", {"from": str, "reason": str})


class JudgeEntry(KindFields, total=False):
    """A response's ``judge`` entry (see the module's docstring)."""

    metric: str
    #: The judge model (a panel: its judges, comma-separated).
    model: str
    sent_because: str
    rule: dict[str, Any]
    template: str
    lang: str
    usage: dict[str, int]
    aggregate: str
    valid: int
    panel: list[SeatEntry]
    escalations: list[Escalation]
    avoided: int
    rule_score: float
    #: :func:`text_fingerprint` of the response's content the verdict was given on.
    fingerprint: str
    #: A comparison: :func:`text_fingerprint` of the opponent's text it was set against.
    opponent_fingerprint: str


#: Why a verdict is stale: the response's content, or the opponent's text (the reference), was edited after.
StaleReason = Literal["response_edited", "opponent_edited"]


class StaleVerdict(TypedDict):
    """A response's ``stale_verdict``: a judge's entry given on another text than the response holds now."""

    reason: StaleReason
    #: The fingerprint the verdict was given on, and the present text's.
    judged: str
    now: str
    judge: JudgeEntry


#: What a comparison with the reference answer names its opponent (``against``).
REFERENCE_OPPONENT = "reference answer"


def judge_entry(response: Mapping[str, Any]) -> JudgeEntry | None:
    """The ``judge`` entry of ``response``; None when no judge wrote one (or it is no JSON object)."""
    entry = response.get("judge")
    return cast(JudgeEntry, entry) if isinstance(entry, dict) else None


def judge_metric(entry: Mapping[str, Any] | None) -> str | None:
    """The judge metric that wrote the entry (``judge``, ``pairwise``, ``math-judge``, ...)."""
    metric = entry.get("metric") if entry is not None else None
    return metric if isinstance(metric, str) else None


def judge_model(entry: Mapping[str, Any] | None) -> str | None:
    model = entry.get("model") if entry is not None else None
    return model if isinstance(model, str) and model else None


def judge_status(entry: Mapping[str, Any] | None) -> str | None:
    """The entry's status (a :data:`JudgeStatus` as the judges write it; another text in a file written by hand)."""
    status = entry.get("status") if entry is not None else None
    return status if isinstance(status, str) else None


def judge_scale(entry: Mapping[str, Any] | None) -> str | None:
    """The scale the verdict is on, as written (``0-2``); None for a kind that uses none."""
    scale = entry.get("scale") if entry is not None else None
    return scale if isinstance(scale, str) else None


def judge_usage(entry: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The judge tokens spent on this response (or by this judge of a panel)."""
    usage = entry.get("usage") if entry is not None else None
    return usage if isinstance(usage, dict) else None


def outcome_of(entry: Mapping[str, Any] | None) -> Outcome | None:
    """A comparison's outcome as written (``win``, ``tie``, ``loss``), whatever the status; None otherwise."""
    found = entry.get("outcome") if entry is not None else None
    return found if found in OUTCOMES else None


def judge_orders(entry: Mapping[str, Any] | None) -> list[OrderEntry]:
    """A comparison's orders (the JSON objects among them); empty for other kinds."""
    orders = entry.get("orders") if entry is not None else None
    return [cast(OrderEntry, o) for o in orders if isinstance(o, dict)] if isinstance(orders, list) else []


def both_orders(entry: Mapping[str, Any] | None) -> bool:
    """The comparison was judged in both orders (so the orders can disagree)."""
    orders = entry.get("orders") if entry is not None else None
    return isinstance(orders, list) and len(orders) == 2


def orders_disagree(entry: Mapping[str, Any] | None) -> bool:
    """The comparison's two orders disagreed (position bias)."""
    return entry is not None and bool(entry.get("disagree"))


def disagreement(entry: Mapping[str, Any] | None) -> bool | None:
    """Whether a comparison judged in both orders saw them disagree, as written; None when it was not
    judged in both orders (or the entry does not say)."""
    if not both_orders(entry):
        return None
    assert entry is not None
    disagree = entry.get("disagree")
    return disagree if isinstance(disagree, bool) else None


def order_values(entry: Mapping[str, Any] | None) -> tuple[float, float] | None:
    """A comparison's value for the model (+1 … −1) shown first, and shown second (the first higher: the judge
    leaned toward the first position); None unless both orders have a value."""
    values = {o.get("order"): o.get("value") for o in judge_orders(entry)}
    pair = values.get("model_first"), values.get("model_second")
    return cast(tuple[float, float], pair) if all(isinstance(v, int | float) for v in pair) else None


def against_of(entry: Mapping[str, Any] | None) -> str | None:
    """What a comparison set the response against (``reference answer``, ``response in FILE (...)``)."""
    against = entry.get("against") if entry is not None else None
    return against if isinstance(against, str) and against else None


def untagged(fields: Mapping[str, Any]) -> bool:
    """The judge gave its verdict outside the request's nonce tag (a kind's fields: the verdict's or an order's)."""
    verdict = fields.get("verdict")
    if isinstance(verdict, dict) and verdict.get("tagged") is False:
        return True
    return any(order.get("tagged") is False for order in judge_orders(fields))


def shown_fields(entry: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The fields a person reads first, in order, those present: metric, model, status, outcome, scale, disagree."""
    keys = ("metric", "model", "status", "outcome", "choice", "scale", "disagree")
    return [(key, entry[key]) for key in keys if entry.get(key) is not None]


# --- the text a verdict judged ------------------------------------------------------------------------


def text_fingerprint(text: object) -> str:
    """A short digest of ``text`` exactly as written (16 hex digits of its UTF-8 sha256; no text: of "")."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else b""
    return hashlib.sha256(data).hexdigest()[:16]


def verdict_fingerprint(entry: Mapping[str, Any] | None) -> str | None:
    """The fingerprint of the response text the verdict was given on; None for an entry written before
    verdicts carried one (its staleness cannot be told)."""
    found = entry.get("fingerprint") if entry is not None else None
    return found if isinstance(found, str) and found else None


def stale_reason(
    entry: Mapping[str, Any] | None, content: object, reference: object = None
) -> tuple[StaleReason, str, str] | None:
    """Why the verdict of ``entry`` was given on another text than the response's ``content`` (and, for a
    comparison with the reference, the record's ``reference``): the reason, the fingerprint judged and the
    present one; None when it was given on this text, or the entry does not say."""
    judged = verdict_fingerprint(entry)
    now = text_fingerprint(content)
    if judged is not None and judged != now:
        return "response_edited", judged, now
    theirs = entry.get("opponent_fingerprint") if entry is not None else None
    if isinstance(theirs, str) and against_of(entry) == REFERENCE_OPPONENT and reference is not None:
        present = text_fingerprint(reference)
        if theirs != present:
            return "opponent_edited", theirs, present
    return None


def stale_verdict_of(response: Mapping[str, Any]) -> StaleVerdict | None:
    """The response's stale verdict (moved out of ``judge`` by ``score``); None when it has none."""
    found = response.get("stale_verdict")
    return cast(StaleVerdict, found) if isinstance(found, dict) else None


def stale_entry_of(response: Mapping[str, Any]) -> JudgeEntry | None:
    """The judge entry a response's stale verdict holds (the verdict given on the other text)."""
    stale = stale_verdict_of(response)
    entry = stale.get("judge") if stale is not None else None
    return entry if isinstance(entry, dict) else None


def retire_entry(response: MutableMapping[str, Any], reference: object = None) -> StaleReason | None:
    """Move ``response``'s judge entry to ``stale_verdict`` (in place) when :func:`stale_reason` finds it
    given on another text; the reason, or None (the entry, if any, belongs to this text and stays)."""
    entry = judge_entry(response)
    found = stale_reason(entry, response.get("content"), reference)
    if entry is None or found is None:
        return None
    reason, judged, now = found
    del response["judge"]
    response["stale_verdict"] = StaleVerdict(reason=reason, judged=judged, now=now, judge=entry)
    return reason


# --- a panel --------------------------------------------------------------------------------------------


def is_panel(entry: Mapping[str, Any] | None) -> bool:
    """The entry was written by a panel of judges."""
    return entry is not None and isinstance(entry.get("panel"), list)


def panel_seats(entry: Mapping[str, Any] | None) -> list[SeatEntry]:
    """A panel's judges, in order (the JSON objects among them); empty for one judge."""
    panel = entry.get("panel") if entry is not None else None
    return [cast(SeatEntry, seat) for seat in panel if isinstance(seat, dict)] if isinstance(panel, list) else []


def aggregate_of(entry: Mapping[str, Any]) -> str | None:
    """How a panel made its verdict: ``mean``, ``median``, ``majority`` or ``escalate``."""
    how = entry.get("aggregate")
    return None if how is None else str(how)


def escalation_reasons(entry: Mapping[str, Any]) -> list[str]:
    """Why an escalating panel asked the next judge, one reason per step."""
    steps = entry.get("escalations")
    if not isinstance(steps, list):
        return []
    return [str(step.get("reason")) if isinstance(step, dict) else "?" for step in steps]


def avoided_of(entry: Mapping[str, Any]) -> int:
    """The requests an escalating panel did not need to make."""
    avoided = entry.get("avoided")
    return avoided if isinstance(avoided, int) else 0


def seat_model(seat: Mapping[str, Any]) -> str:
    """A panel judge's model, as text (``?`` when the entry names none)."""
    return str(seat.get("model") or "?")


def seat_score(seat: Mapping[str, Any]) -> float | None:
    """The score a judge of a panel (or one of its repeats) gave; None when it gave none."""
    score = seat.get("score")
    return float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None


def repeats_of(seat: Mapping[str, Any]) -> list[Any] | None:
    """A panel judge's repeats as written (``--judge-repeats``); None when it was asked once."""
    if "repeats" not in seat:
        return None
    repeats = seat.get("repeats")
    return list(repeats) if isinstance(repeats, list) else []


def consistent_of(seat: Mapping[str, Any]) -> bool | None:
    """Whether a panel judge's valid repeats agreed (None: fewer than two, or asked once)."""
    consistent = seat.get("consistent")
    return consistent if isinstance(consistent, bool) else None


def rationale_of(seat: Mapping[str, Any]) -> str | None:
    """A panel judge's rationale (a single judge's analysis is the response's own)."""
    rationale = seat.get("rationale", seat.get("analysis"))
    return rationale if isinstance(rationale, str) else None
