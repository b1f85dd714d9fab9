"""A panel's figures, read from the judged responses' ``judge`` entries (so ``report`` computes them from
scored files as the judge run does): how far the judges agree, each judge's void rate, its
self-consistency over repeats and (pairwise) how often its verdict flipped with the order, and what
escalation asked and saved.

The summary's ``panel`` (and each dataset's in the report)::

    {"judges": ["judge-a", "judge-b"], "aggregate": "mean", "responses": 12,
     "agreement": {"alpha": 0.62, "method": "Krippendorff's alpha (interval)", "items": 11},
     "by_judge": {"judge-a": {"asked": 12, "valid": 11, "void": 1, "failed": 0, "void_rate": 0.0833,
                              "self_consistency": 0.9 | null, "flip_rate": 0.1 | null}, ...},
     # escalating only:
     "escalated": {"responses": 3, "void": 1, "flip": 1, "contradicts_rule": 1}, "avoided": 9}

``void_rate``: the judge's void verdicts (a reply with no readable verdict, or one off its scale) over
the responses it was asked about; ``failed`` counts the requests that got no reply. ``self_consistency``:
of the responses with two valid repeats or more, the share whose repeats all agreed. ``flip_rate``: of
its pairs judged in both orders, the share whose two orders disagreed (position bias).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from formatkit._core.judge_entry import (
    JudgeEntry,
    aggregate_of,
    avoided_of,
    both_orders,
    consistent_of,
    escalation_reasons,
    is_panel,
    judge_status,
    orders_disagree,
    panel_seats,
    repeats_of,
    seat_model,
    seat_score,
)
from formatkit._core.messages import DEFAULT_LANG, Msg
from formatkit._core.record import JsonObject
from scoring._judges.agreement import Level, krippendorff_alpha
from scoring._judges.kinds import kind_of
from scoring._judges.panel import verdict_key

__all__ = ["PanelTally", "panel_lines"]


@dataclass
class _Judge:
    asked: int = 0
    valid: int = 0
    void: int = 0
    failed: int = 0
    repeated: int = 0
    consistent: int = 0
    both_orders: int = 0
    flips: int = 0

    def to_dict(self) -> JsonObject:
        return {
            "asked": self.asked,
            "valid": self.valid,
            "void": self.void,
            "failed": self.failed,
            "void_rate": round(self.void / self.asked, 4) if self.asked else None,
            "self_consistency": round(self.consistent / self.repeated, 4) if self.repeated else None,
            "flip_rate": round(self.flips / self.both_orders, 4) if self.both_orders else None,
        }


@dataclass
class PanelTally:
    """Adds up the panel entries of judged responses (:meth:`add`), then :meth:`to_dict`."""

    judges: dict[str, _Judge] = field(default_factory=dict)
    units: list[list[Hashable]] = field(default_factory=list)
    responses: int = 0
    nominal: bool = False
    aggregate: str | None = None
    escalate: bool = False
    escalated: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    avoided: int = 0

    def expect(self, models: list[str]) -> None:
        """Name the panel's judges first, in order (a judge that was never asked is shown too)."""
        for model in models:
            self.judges.setdefault(model, _Judge())

    def add(self, judge: JudgeEntry) -> None:
        if not is_panel(judge):
            return
        kind = kind_of(judge)
        self.responses += 1
        self.nominal = self.nominal or (kind is not None and kind.versus)
        self.aggregate = str(aggregate_of(judge))
        unit: list[Hashable] = []
        for seat in panel_seats(judge):
            tally = self.judges.setdefault(seat_model(seat), _Judge())
            status = judge_status(seat)
            if status == "not_judged":
                continue
            tally.asked += 1
            score = seat_score(seat)
            if score is not None:
                tally.valid += 1
                unit.append(verdict_key(kind, score) if kind is not None else score)
            elif status == "request_failed":
                tally.failed += 1
            else:
                tally.void += 1
            consistent = consistent_of(seat)
            if consistent is not None:
                tally.repeated += 1
                tally.consistent += consistent
            for result in repeats_of(seat) or [seat]:
                if isinstance(result, dict) and judge_status(result) == "scored" and both_orders(result):
                    tally.both_orders += 1
                    tally.flips += orders_disagree(result)
        self.units.append(unit)
        if aggregate_of(judge) == "escalate":
            self.escalate = True
            reasons = escalation_reasons(judge)
            self.escalated += bool(reasons)
            for reason in reasons:
                self.reasons[reason] = self.reasons.get(reason, 0) + 1
            self.avoided += avoided_of(judge)

    def __bool__(self) -> bool:
        return self.responses > 0

    def to_dict(self) -> JsonObject:
        level: Level = "nominal" if self.nominal else "interval"
        alpha = krippendorff_alpha(self.units, level)
        out: JsonObject = {
            "judges": list(self.judges),
            "aggregate": self.aggregate,
            "responses": self.responses,
            "agreement": {
                "alpha": None if alpha is None else round(alpha, 4),
                "method": f"Krippendorff's alpha ({level})",
                "items": sum(len(unit) >= 2 for unit in self.units),
            },
            "by_judge": {name: tally.to_dict() for name, tally in self.judges.items()},
        }
        if self.escalate:
            out["escalated"] = {"responses": self.escalated, **self.reasons}
            out["avoided"] = self.avoided
        return out


def _say(key: str, lang: str, /, **fields: Any) -> str:
    return Msg(f"report.panel.{key}", **fields).render(lang)


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def panel_lines(panel: Mapping[str, Any], name: str | None = None, lang: str = DEFAULT_LANG) -> list[str]:
    """A panel's figures for people (the text, Markdown and HTML reports, the judge summary), its words
    ``report.panel.*`` templates in ``lang``."""
    agreement = panel.get("agreement") or {}
    alpha = agreement.get("alpha")
    line = _say(
        "head",
        lang,
        judges=len(panel.get("judges") or []),
        aggregate=panel.get("aggregate"),
        method=agreement.get("method"),
        alpha="—" if alpha is None else f"{alpha:.2f}",
        items=agreement.get("items", 0),
    )
    lines = [_say("named", lang, name=name, line=line) if name else line]
    sep = _say("sep", lang)
    for judge, figures in (panel.get("by_judge") or {}).items():
        parts = [_say("valid", lang, valid=figures.get("valid", 0), asked=figures.get("asked", 0))]
        rate = figures.get("void_rate")
        parts.append(_say("void_rate", lang, rate="—" if rate is None else _pct(rate)))
        if figures.get("failed"):
            parts.append(_say("failed", lang, n=figures["failed"]))
        if figures.get("self_consistency") is not None:
            parts.append(_say("self_consistency", lang, rate=_pct(figures["self_consistency"])))
        if figures.get("flip_rate") is not None:
            parts.append(_say("flips", lang, rate=_pct(figures["flip_rate"])))
        lines.append(_say("judge", lang, judge=judge, figures=sep.join(parts)))
    escalated = panel.get("escalated")
    if isinstance(escalated, dict):
        why = sep.join(f"{n} {reason}" for reason, n in escalated.items() if reason != "responses")
        lines.append(
            _say(
                "escalated",
                lang,
                n=escalated.get("responses", 0),
                why=_say("why", lang, why=why) if why else "",
                avoided=panel.get("avoided", 0),
            )
        )
    return lines
