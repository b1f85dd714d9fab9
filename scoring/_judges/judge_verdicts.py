"""Each judge's own verdict on one response, read from the response's ``judge`` entry.

Everything that reads a judge's verdict for people or statistics (``export``'s ``judge_verdict`` and
``judge_rationale`` columns, ``judge-check``) reads it through :func:`judge_verdicts`, so the place a
verdict is kept is known here only. Today a response holds one judge's entry (``{"metric", "model",
"status", "verdict": {"score"}, "outcome", "orders", ...}``, see :mod:`scoring._judges`); a panel's
entry is read from ``judge["panel"]``: a list of such entries, one per judge (each naming its
``model`` and holding ``status``, its ``score`` or ``outcome``, its ``rationale`` and, asked several
times, ``repeats``), the combined verdict staying where a single judge's is.

A verdict is a number on the judge's scale (the absolute and the math judge) or a pairwise outcome
from the model's side (``win``, ``tie``, ``loss``); None when the judge gave none (void, failed, not
asked). A person's score (``human_score``, written by ``score`` of a reviewed export) replaces the
response's ``score``; the judge's own is kept in ``overridden`` and read from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["JudgeVerdict", "judge_verdicts"]

#: The name a panel's combined verdict goes by beside its judges' own.
PANEL = "panel"


@dataclass(frozen=True)
class JudgeVerdict:
    """One judge's verdict on one response."""

    #: The judge model (``panel`` for a panel's combined verdict).
    judge: str
    #: The judge metric: ``judge``, ``pairwise``, ``math-judge``.
    kind: str
    #: On the scale (a float) or ``win``/``tie``/``loss`` (pairwise); None: no verdict.
    verdict: float | str | None
    rationale: str | None
    #: The judge's scale (``0-2``), None for pairwise.
    scale: str | None
    #: The verdicts of the same judge asked again (``--judge-repeats``), when it was.
    repeats: tuple[float | str, ...] = ()
    #: Pairwise judged in both orders: whether the two orders disagreed (None: not both orders).
    orders_disagree: bool | None = None


def judge_verdicts(response: Mapping[str, Any]) -> list[JudgeVerdict]:
    """The verdicts on ``response``: one per judge (a panel's judges, then ``panel``); [] when no judge
    looked at it."""
    judge = response.get("judge")
    if not isinstance(judge, dict) or not isinstance(judge.get("metric"), str):
        return []
    kind = str(judge["metric"])
    scale = judge.get("scale") if isinstance(judge.get("scale"), str) else None
    out: list[JudgeVerdict] = []
    panel = judge.get("panel")
    if isinstance(panel, list):
        for entry in panel:
            if isinstance(entry, dict):
                out.append(_one(entry, kind, scale, str(entry.get("model") or "?"), None, None))
    before = response.get("overridden") if response.get("scored_by") == "human" else None
    own = before if isinstance(before, dict) else response
    name = PANEL if out else str(judge.get("model") or "judge")
    out.append(_one(judge, kind, scale, name, own.get("score"), own.get("analysis")))
    return out


def _one(entry: Mapping[str, Any], kind: str, scale: str | None, name: str, score: Any, analysis: Any) -> JudgeVerdict:
    """The verdict of one judge's entry; ``score``/``analysis``: the response's own (the entry does not
    repeat them), None to read the entry's."""
    scored = entry.get("status") == "scored"
    verdict: float | str | None = None
    if scored and kind == "pairwise":
        outcome = entry.get("outcome")
        verdict = outcome if outcome in ("win", "tie", "loss") else None
    elif scored:
        value = entry.get("score") if score is None else score
        if isinstance(value, int | float) and not isinstance(value, bool):
            verdict = float(value)
    # a panel's judge writes its analysis as "rationale" (scoring._judges.panel); a single judge's is the response's
    rationale = analysis if analysis is not None else entry.get("rationale", entry.get("analysis"))
    repeats = [_repeat_verdict(r, kind) for r in entry.get("repeats") or []] if "repeats" in entry else None
    orders = entry.get("orders")
    disagree = entry.get("disagree") if isinstance(orders, list) and len(orders) == 2 else None
    return JudgeVerdict(
        judge=name,
        kind=kind,
        verdict=verdict,
        rationale=rationale if isinstance(rationale, str) else None,
        scale=None if kind == "pairwise" else str(entry.get("scale") or scale or "") or None,
        repeats=tuple(r for r in repeats if r is not None) if repeats is not None else (),
        orders_disagree=bool(disagree) if isinstance(disagree, bool) else None,
    )


def _repeat_verdict(repeat: Any, kind: str) -> float | str | None:
    """One repeat's verdict: a number or an outcome as written, or a repeat entry of a panel's judge
    (``{"status", "score", "outcome", ...}``, scoring._judges.panel); None when it gave none."""
    if isinstance(repeat, int | float | str) and not isinstance(repeat, bool):
        return repeat
    if not isinstance(repeat, dict) or repeat.get("status") != "scored":
        return None
    if kind == "pairwise":
        found = repeat.get("outcome")
        return found if found in ("win", "tie", "loss") else None
    value = repeat.get("score")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
