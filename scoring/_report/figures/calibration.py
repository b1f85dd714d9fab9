"""``report --human``: each judge's κ with people (95 % interval), overall and per judged dataset, as ``judge-check``
computes it. A judge below ``min_kappa``, or with no κ, is uncalibrated: its datasets leave the ranking."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scoring._report.words import DEFAULT_LANG, say

__all__ = ["Calibration", "JudgeKappa", "calibration_notes"]


@dataclass(frozen=True)
class JudgeKappa:
    """One judge's κ with the labels on ``n`` pairs (overall, or on one dataset; n 0: not checked)."""

    judge: str
    n: int
    kappa: float | None
    kappa_ci: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        ci = None if self.kappa_ci is None else [round(v, 4) for v in self.kappa_ci]
        return {"judge": self.judge, "n": self.n, "kappa": _round(self.kappa), "kappa_ci": ci}

    def words(self) -> tuple[str, str]:
        """κ and its interval as the notes print them (rounded as the JSON first: the same figures)."""
        ci = "" if self.kappa_ci is None else " [{:.3f}, {:.3f}]".format(*(round(v, 4) for v in self.kappa_ci))
        return ("–" if self.kappa is None else f"{round(self.kappa, 4):.3f}"), ci


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass
class Calibration:
    """Each judge's κ overall (``judges``) and each judged dataset's, its judge's on it (``datasets``)."""

    min_kappa: float
    judges: dict[str, JudgeKappa] = field(default_factory=dict)
    datasets: dict[str, JudgeKappa] = field(default_factory=dict)

    def calibrated(self, judge: str) -> bool:
        found = self.judges.get(judge)
        return found is not None and found.kappa is not None and found.kappa >= self.min_kappa

    @property
    def excluded(self) -> frozenset[str]:  # left out of the ranking: an uncalibrated judge's datasets
        return frozenset(name for name, found in self.datasets.items() if not self.calibrated(found.judge))

    def dataset_dict(self, name: str) -> dict[str, Any] | None:
        """A dataset's ``judge_kappa``: its judge's κ on it, the judge's overall, ``calibrated`` and ``ranked``."""
        if (found := self.datasets.get(name)) is None:
            return None
        out = {**found.to_dict(), "judge_overall": self.judges[found.judge].to_dict()}
        return out | {"calibrated": self.calibrated(found.judge), "ranked": name not in self.excluded}

    def to_dict(self) -> dict[str, Any]:
        judges = {name: {**k.to_dict(), "calibrated": self.calibrated(name)} for name, k in self.judges.items()}
        out = {"min_kappa": self.min_kappa, "judges": judges, "left_out_of_ranking": sorted(self.excluded)}
        return out | {"uncalibrated": [name for name in self.judges if not self.calibrated(name)]}


def calibration_notes(calibration: Calibration | None, lang: str = DEFAULT_LANG) -> list[str]:
    """The notes (text, md, html, xlsx): each judge's κ, calibrated or not, each dataset's, those unranked."""
    if calibration is None:
        return []
    out, limit, excluded = [], f"{calibration.min_kappa:g}", calibration.excluded
    for name, found in calibration.judges.items():
        how = "calibrated" if calibration.calibrated(name) else "unchecked" if found.n == 0 else "uncalibrated"
        kappa, ci = found.words()
        out.append(say(f"note.judge_{how}", lang, judge=name, kappa=kappa, ci=ci, n=found.n, min_kappa=limit))
    for dataset, found in calibration.datasets.items():
        kappa, ci = found.words()
        ranked = say("note.left_out", lang) if dataset in excluded else ""
        words = {"dataset": dataset, "judge": found.judge, "kappa": kappa, "ci": ci, "n": found.n, "ranked": ranked}
        out.append(say("note.dataset_kappa", lang, **words))
    if excluded:
        out.append(say("note.ranking_without", lang, datasets=", ".join(sorted(excluded))))
    return out
