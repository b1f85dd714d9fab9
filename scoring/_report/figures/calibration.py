"""Whether the judges of a report were checked against people (``report --human LABELS``): each judge's
Cohen's κ with the labels (and its 95 % bootstrap interval), overall and per judged dataset, as
``judge-check`` computes it (:mod:`scoring._judge_check`).

A judge whose κ is below ``min_kappa`` (or not defined) is *uncalibrated*: its datasets keep their scores,
marked, but are left out of the ranking (the ratings, the tiers and the pair tests); a dataset judged by
a judge no label reached says it was not checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["DEFAULT_MIN_KAPPA", "Calibration", "JudgeKappa"]

#: ``--min-kappa``'s default: below it a judge agrees with people only "fairly" (Landis & Koch 1977).
DEFAULT_MIN_KAPPA = 0.4


@dataclass(frozen=True)
class JudgeKappa:
    """One judge's κ with the labels on ``n`` pairs (overall, or on one dataset)."""

    judge: str
    n: int
    kappa: float | None
    kappa_ci: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        ci = None if self.kappa_ci is None else [round(self.kappa_ci[0], 4), round(self.kappa_ci[1], 4)]
        return {"judge": self.judge, "n": self.n, "kappa": _round(self.kappa), "kappa_ci": ci}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass
class Calibration:
    """The judges' κ (overall) and each judged dataset's (its judge's κ on that dataset)."""

    min_kappa: float
    #: judge → its κ over every label it met.
    judges: dict[str, JudgeKappa] = field(default_factory=dict)
    #: dataset → its judge's κ on it (the judge named; n 0: no label reached it).
    datasets: dict[str, JudgeKappa] = field(default_factory=dict)
    #: how many labels were read, and how many could not be used (matching no record, off the scale...).
    labels: int = 0
    unused: int = 0

    def calibrated(self, judge: str) -> bool:
        """The judge's κ is at least ``min_kappa`` (False: below it, or not defined, or never checked)."""
        found = self.judges.get(judge)
        return found is not None and found.kappa is not None and found.kappa >= self.min_kappa

    @property
    def uncalibrated(self) -> list[str]:
        """The judges below ``min_kappa`` (or with no κ), in the order named."""
        return [name for name in self.judges if not self.calibrated(name)]

    @property
    def excluded(self) -> frozenset[str]:
        """The datasets left out of the ranking: those an uncalibrated judge judged."""
        return frozenset(name for name, found in self.datasets.items() if not self.calibrated(found.judge))

    def dataset_dict(self, name: str) -> dict[str, Any] | None:
        """A dataset's ``judge_kappa`` in the JSON report: its judge's κ on it, the judge's overall κ, and
        whether it is ``calibrated`` (and so ranked)."""
        found = self.datasets.get(name)
        if found is None:
            return None
        overall = self.judges.get(found.judge)
        return {
            **found.to_dict(),
            "judge_overall": overall.to_dict() if overall is not None else None,
            "calibrated": self.calibrated(found.judge),
            "ranked": name not in self.excluded,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "min_kappa": self.min_kappa,
            "labels": self.labels,
            "unused_labels": self.unused,
            "judges": {name: {**k.to_dict(), "calibrated": self.calibrated(name)} for name, k in self.judges.items()},
            "uncalibrated": self.uncalibrated,
            "left_out_of_ranking": sorted(self.excluded),
        }
