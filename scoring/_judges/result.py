"""What judging one response produced, before it is written into the record."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from formatkit._core.judge_entry import JudgeEntry, JudgeStatus
from formatkit._core.record import ResponseDict

__all__ = ["Judged", "Status", "not_judged"]

#: What became of one response put to the judge (the judge entry's ``status``).
Status = JudgeStatus


@dataclass
class Judged:
    score: float | None
    analysis: str
    status: Status
    #: The judge kind's fields of the verdict (a panel's: the panel's too), written into the response's
    #: ``judge`` entry (:class:`~formatkit._core.judge_entry.JudgeEntry`).
    details: JudgeEntry = field(default_factory=lambda: JudgeEntry())
    usage: dict[str, int] = field(default_factory=dict)
    template: str | None = None
    lang: str | None = None
    #: What the verdict says, as the response's ``answer``: the score on the scale ("2"), the two
    #: pairwise choices ("A+/B+", model first / model second), the math judge's extracted answer.
    answer: str | None = None
    #: Fallback mode: the rule-based result fields left standing because the judge gave no verdict.
    kept_rule: ResponseDict | None = None


def not_judged(reason: str, **details: Any) -> Judged:
    """A response that could not be put to the judge; ``reason`` says why."""
    return Judged(score=None, analysis=f"not judged: {reason}", status="not_judged", details=cast(JudgeEntry, details))
