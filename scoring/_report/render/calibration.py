"""The report's notes on the judges checked against people (``report --human``): each judge's κ and
whether it is calibrated, each judged dataset's κ, and which datasets the ranking leaves out; the same
lines in text, Markdown, HTML and the workbook (they all show :func:`~scoring._report.render.leaderboard.notes`)."""

from __future__ import annotations

from scoring._report.figures.calibration import Calibration, JudgeKappa
from scoring._report.words import DEFAULT_LANG, say

__all__ = ["calibration_notes"]


def _kappa(found: JudgeKappa) -> tuple[str, str]:
    kappa = "–" if found.kappa is None else f"{found.kappa:.3f}"
    ci = "" if found.kappa_ci is None else f" [{found.kappa_ci[0]:.3f}, {found.kappa_ci[1]:.3f}]"
    return kappa, ci


def calibration_notes(calibration: Calibration | None, lang: str = DEFAULT_LANG) -> list[str]:
    if calibration is None:
        return []
    out: list[str] = []
    limit = f"{calibration.min_kappa:g}"
    for name, found in calibration.judges.items():
        if calibration.calibrated(name):
            status = say("note.judge_calibrated", lang, min_kappa=limit)
        elif found.n == 0:
            status = say("note.judge_unchecked", lang)
        else:
            status = say("note.judge_uncalibrated", lang, min_kappa=limit)
        kappa, ci = _kappa(found)
        out.append(say("note.judge_kappa", lang, judge=name, kappa=kappa, ci=ci, n=found.n, status=status))
    excluded = calibration.excluded
    for dataset, found in calibration.datasets.items():
        kappa, ci = _kappa(found)
        ranked = say("note.left_out", lang) if dataset in excluded else ""
        out.append(
            say(
                "note.dataset_kappa",
                lang,
                dataset=dataset,
                judge=found.judge,
                kappa=kappa,
                ci=ci,
                n=found.n,
                ranked=ranked,
            )
        )
    if excluded:
        out.append(say("note.ranking_without", lang, datasets=", ".join(sorted(excluded))))
    return out
