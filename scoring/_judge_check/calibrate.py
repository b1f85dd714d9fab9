"""``report --human LABELS``: each judge of the results checked against the labels with :func:`judge_check`,
gathered as the report shows them (:class:`~scoring._report.figures.calibration.Calibration`).

Each results file is checked on its own (a label finds its record by dataset and session, as in
``judge-check``; labels for another file's records are not counted against this one). A judge's κ is
the one of the file where most labels met it; a dataset's, its judge's on that dataset there. A judge
of the results no label met is listed with n 0 and no κ: not checked, so not calibrated.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from formatkit._core.judge_entry import judge_entry, judge_model
from formatkit._core.record import target_responses
from scoring._judge_check.check import JudgeStats, judge_check
from scoring._report.figures.calibration import DEFAULT_MIN_KAPPA, Calibration, JudgeKappa
from scoring._results import dataset_of, judge_verdicts, read_results

__all__ = ["judge_calibration"]


def _kappa(stats: JudgeStats) -> JudgeKappa:
    a = stats.overall
    return JudgeKappa(stats.judge, a.n, a.kappa, a.kappa_ci)


def judge_calibration(
    paths: Sequence[str | os.PathLike[str]],
    human: str | os.PathLike[str],
    *,
    min_kappa: float = DEFAULT_MIN_KAPPA,
    seed: int = 0,
    resamples: int = 1000,
) -> Calibration:
    """Every judge of ``paths`` against the labels of ``human`` (bad labels are left out and counted as
    ``unused``; :func:`judge_check` says which and where)."""
    out = Calibration(min_kappa)
    best: dict[str, int] = {}
    matched = 0
    for path in paths:
        check = judge_check(path, human, seed=seed, resamples=resamples, skip_bad_labels=True)
        out.labels = check.labels
        matched += check.labels - len(check.skipped)
        head = check.headline
        for name, stats in check.judges.items():
            if stats.overall.n > best.get(name, -1):
                best[name] = stats.overall.n
                out.judges[name] = _kappa(stats)
                if stats is head:
                    for dataset, part in stats.by_dataset.items():
                        out.datasets[dataset] = _kappa(part)
        _unchecked(path, out)
    out.unused = max(0, out.labels - matched) if len(paths) == 1 else out.unused
    return out


def _unchecked(path: str | os.PathLike[str], out: Calibration) -> None:
    """The judged datasets of ``path`` no label reached: their judge with n 0 (not checked)."""
    stem = Path(path).stem
    for record in read_results(path):
        name = dataset_of(record, stem)
        if name in out.datasets:
            continue
        responses = target_responses(record)
        if not responses:
            continue
        verdicts = judge_verdicts(responses[0], record)
        entry = judge_entry(responses[0])
        if not verdicts or entry is None:
            continue
        judge = verdicts[-1].judge or judge_model(entry) or "judge"
        out.datasets[name] = JudgeKappa(judge, 0, None, None)
        out.judges.setdefault(judge, JudgeKappa(judge, 0, None, None))
