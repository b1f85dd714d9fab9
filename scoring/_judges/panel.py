"""A panel of judges on one response: every judge (or, escalating, the next only when needed), each asked
``judge_repeats`` times, their verdicts kept one by one and made into the response's score.

What a panel writes in the response's ``judge`` entry (beside the usual ``metric``, ``status``, ``usage``)::

    "model": "judge-a, judge-b",        # the judges, in order
    "aggregate": "mean" | "median" | "majority" | "escalate",
    "valid": 2,                          # judges that gave a valid verdict
    "panel": [                           # one entry per judge, in order (escalating: the judges asked)
        {"model": "judge-a", "status": "scored" | "unparseable" | "request_failed" | "not_judged",
         "score": 2.0 | null, "answer": "2" | null, "rationale": "the judge's analysis, or why no verdict",
         # one repeat: the judge kind's own fields (reply, verdict / orders, outcome, disagree ...)
         # several repeats: "repeats": [{status, score, answer, rationale, ...kind's fields}, ...],
         #                  "consistent": true | false | null (the valid repeats all agree; null: fewer than 2)
        }, ...],
    # escalating only:
    "escalations": [{"from": "judge-a", "reason": "void" | "flip" | "contradicts_rule"}],
    "avoided": 2,                        # requests a full panel would have made that were not
    "rule_score": 1.0                    # the settled rule score the verdict was checked against, if any

A judge's own verdict (``score``) is, over its valid repeats, the panel's aggregate (majority: the most
common; no majority makes that judge's verdict void). A verdict off the judge's scale is void (the judge
kind's parser refuses it), so it is counted here with the void ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from formatkit._core.judge_entry import Escalation, JudgeEntry, RepeatEntry, SeatEntry, orders_disagree, seat_model
from scoring._judges.agreement import majority, mean, median
from scoring._judges.call import Reply
from scoring._judges.kinds import Case, JudgeKind
from scoring._judges.options import Aggregate
from scoring._judges.result import Judged, Status
from scoring._judges.scale import Scale
from scoring._judges.verdicts import outcome

__all__ = ["Seat", "judge_with_panel", "verdict_key"]

#: Ask one judge, one repeat: ``await ask(prompt)``.
AskOnce = Callable[[str], Awaitable[Reply]]


@dataclass(frozen=True)
class Seat:
    """One judge of the panel, ready to be asked: its model and one ``ask`` per repeat."""

    model: str
    asks: tuple[AskOnce, ...]


@dataclass
class _Verdict:
    """One judge's verdict on the response (over its repeats) and the requests it took."""

    entry: SeatEntry
    score: float | None
    status: Status
    results: list[Judged]
    calls: int


def verdict_key(kind: JudgeKind, score: float) -> Hashable:
    """What two verdicts must share to agree: a comparison's outcome (win/tie/loss), else the score."""
    return outcome(score) if kind.versus else score


def _combine(kind: JudgeKind, how: Aggregate, scores: Sequence[float]) -> float | None:
    if how == "mean":
        return mean(scores)
    if how == "median":
        return median(scores)
    keys = [verdict_key(kind, s) for s in scores]
    top = majority(keys)
    if top is None:
        return None
    return mean([s for s, k in zip(scores, keys, strict=True) if k == top])


def _answer(kind: JudgeKind, scale: Scale, score: float, results: Sequence[Judged]) -> str | None:
    if kind.on_scale:
        return scale.label(round(score, 4))
    if kind.versus:
        return outcome(score)
    answers = [j.answer for j in results if j.status == "scored"]
    return answers[0] if answers and all(a == answers[0] for a in answers) else None


def _shown(judged: Judged) -> RepeatEntry:
    fields: RepeatEntry = {"status": judged.status, "score": judged.score, "answer": judged.answer}
    fields["rationale"] = judged.analysis
    fields.update(judged.details)  # type: ignore[typeddict-item]  # a seat keeps its kind's fields, not the panel's
    return fields


async def _ask_judge(kind: JudgeKind, case: Case, seat: Seat, how: Aggregate, scale: Scale) -> _Verdict:
    calls = 0

    def counted(ask: AskOnce) -> AskOnce:
        async def call(prompt: str) -> Reply:
            nonlocal calls
            calls += 1
            return await ask(prompt)

        return call

    results = list(await asyncio.gather(*(kind.judge(counted(ask), case) for ask in seat.asks)))
    valid = [j.score for j in results if j.status == "scored" and j.score is not None]
    score = _combine(kind, how, valid) if valid else None
    entry: SeatEntry = {"model": seat.model}
    if len(results) == 1:
        entry.update(cast(SeatEntry, _shown(results[0])))
        status = results[0].status
    else:
        status = "scored" if score is not None else _void_status(results)
        keys = {verdict_key(kind, s) for s in valid}
        entry.update(
            {
                "status": status,
                "score": score,
                "answer": _answer(kind, scale, score, results) if score is not None else None,
                "rationale": _repeats_rationale(results, score, how),
                "repeats": [_shown(j) for j in results],
                "consistent": len(keys) == 1 if len(valid) >= 2 else None,
            }
        )
    entry["usage"] = _usage(results)
    return _Verdict(entry, score, status, results, calls)


def _repeats_rationale(results: Sequence[Judged], score: float | None, how: Aggregate) -> str:
    valid = [j for j in results if j.status == "scored"]
    if score is None:
        why = "no majority among its verdicts" if valid else (results[0].analysis if results else "no verdict")
        return f"{len(valid)} valid verdict(s) of {len(results)}: {why}"
    return next((j.analysis for j in valid if j.score == score), valid[0].analysis if valid else "")


def _usage(results: Sequence[Judged]) -> dict[str, int]:
    total: dict[str, int] = {}
    for judged in results:
        for key, value in judged.usage.items():
            total[key] = total.get(key, 0) + value
    return total


def _void_status(results: Sequence[Judged]) -> Status:
    statuses = {j.status for j in results}
    if statuses == {"not_judged"}:
        return "not_judged"
    if statuses <= {"request_failed", "not_judged"}:
        return "request_failed"
    return "unparseable"


def _flipped(verdict: _Verdict) -> bool:
    return any(orders_disagree(j.details) for j in verdict.results if j.status == "scored")


def _contradicts(kind: JudgeKind, scale: Scale, score: float, rule: float | None) -> bool:
    """The verdict says right where a settled rule score says wrong, or the other way round."""
    if rule is None:
        return False
    if kind.versus:
        return (score > 0 and rule <= 0) or (score < 0 and rule >= 1)
    fraction = kind.fraction(score, {"scale": str(scale)})
    return isinstance(fraction, float | int) and abs(float(fraction) - rule) >= 0.5


def _why_escalate(kind: JudgeKind, scale: Scale, verdict: _Verdict, rule: float | None) -> str | None:
    if verdict.score is None:
        return "void" if verdict.status != "not_judged" else None
    if kind.versus and _flipped(verdict):
        return "flip"
    if _contradicts(kind, scale, verdict.score, rule):
        return "contradicts_rule"
    return None


async def judge_with_panel(
    kind: JudgeKind,
    case: Case,
    seats: Sequence[Seat],
    *,
    how: Aggregate,
    min_valid: int,
    escalate: bool,
    rule_score: float | None = None,
) -> Judged:
    """The response judged by the panel: every seat at once, or (``escalate``) one after the other."""
    scale = case.scale
    details: JudgeEntry = {"aggregate": "escalate" if escalate else how}
    if kind.on_scale:
        details["scale"] = str(scale)
    verdicts: list[_Verdict] = []
    if escalate:
        escalations: list[Escalation] = []
        for n, seat in enumerate(seats):
            verdict = await _ask_judge(kind, case, seat, how, scale)
            verdicts.append(verdict)
            reason = _why_escalate(kind, scale, verdict, rule_score)
            if reason is None or n == len(seats) - 1:
                break
            escalations.append({"from": seat.model, "reason": reason})
        skipped = sum(len(seat.asks) for seat in seats[len(verdicts) :])
        per_judgement = verdicts[0].calls / max(1, len(seats[0].asks))
        details["escalations"] = escalations
        details["avoided"] = round(skipped * per_judgement)
        if rule_score is not None:
            details["rule_score"] = rule_score
        given = [v for v in verdicts if v.score is not None]
        score = given[-1].score if given else None
        reason_void = "no judge of the panel gave a verdict"
    else:
        verdicts = list(await asyncio.gather(*(_ask_judge(kind, case, seat, how, scale) for seat in seats)))
        valid = [v.score for v in verdicts if v.score is not None]
        score = _combine(kind, how, valid) if len(valid) >= max(1, min_valid) else None
        if len(valid) < max(1, min_valid):
            reason_void = f"{len(valid)} valid verdict(s) of {len(seats)}, fewer than the {min_valid} required"
        else:
            reason_void = f"no majority among the {len(valid)} valid verdicts"
    results = [j for v in verdicts for j in v.results]
    details["valid"] = sum(v.score is not None for v in verdicts)
    details["panel"] = [v.entry for v in verdicts]
    first = next((j for j in results if j.template is not None), results[0] if results else None)
    judged = Judged(
        score=score,
        analysis="",
        status="scored" if score is not None else _void_status(results),
        details=details,
        usage=_usage(results),
        template=first.template if first else None,
        lang=first.lang if first else None,
    )
    if score is None:
        judged.analysis = f"no panel verdict: {reason_void}"
        return judged
    judged.answer = _answer(kind, scale, score, results)
    if kind.versus:
        details.update({"combined": score, "outcome": outcome(score), "disagree": any(_flipped(v) for v in verdicts)})
    judged.analysis = _panel_analysis(verdicts, details["aggregate"], score, scale, kind)
    return judged


def _panel_analysis(verdicts: Sequence[_Verdict], how: Any, score: float, scale: Scale, kind: JudgeKind) -> str:
    """For people: each judge's verdict and the panel's (programs read ``judge.panel``)."""
    said = ", ".join(f"{seat_model(v.entry)} {_said(v.score, scale)}" for v in verdicts)
    decided = {"escalate": "the last verdict given decides"}.get(str(how), f"{how} of the valid verdicts")
    return f"panel ({said}; {decided}): {_said(score, scale)}"


def _said(score: float | None, scale: Scale) -> str:
    return "void" if score is None else scale.label(round(score, 4))
