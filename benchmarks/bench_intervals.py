"""Do the report's 95 % intervals hold what they claim on small datasets? Coverage on real score populations.

Run: python benchmarks/bench_intervals.py [--reps 400]

Populations are real per-record scores from tests/corpora: each model's adjudicated right/wrong on its
MMLU-Pro and LawBench replies (choice/adjudicated.jsonl: 0/1, ``truth == reference``), and GPT-4's
partial-credit points on the GAOKAO fill-in papers (math/gaokao_gpt4_fill_in.jsonl: judge_points /
full_points, 0..1). A simulated report draws n records per dataset from K populations (with replacement),
and the dimension's interval (one dataset: the dataset's) is checked against the populations' true mean.

Printed per (n, K): coverage (share of intervals holding the true mean; 95 % is the claim), the share of
zero-width intervals, and the median width, for the report's method (Wilson on a 0/1 dataset, else the
smoothed Bayesian bootstrap, stratified) against the baseline measured in the same run: Wilson on a 0/1
dataset, else the plain stratified percentile bootstrap the report used before.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np

from scoring._report.figures.aggregate import combined_interval
from scoring._report.figures.intervals import RESAMPLES, Interval, is_binary, wilson

CORPORA = Path(__file__).resolve().parents[1] / "tests" / "corpora"


def populations() -> dict[str, list[float]]:
    pops: dict[str, list[float]] = defaultdict(list)
    for line in (CORPORA / "choice" / "adjudicated.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        pops[f"choice:{row['model']}"].append(1.0 if row["truth"] == row["reference"] else 0.0)
    for line in (CORPORA / "math" / "gaokao_gpt4_fill_in.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        pops[f"gaokao:{row['paper']}"].append(row["judge_points"] / row["full_points"])
    return {name: values for name, values in pops.items() if len(values) >= 15}


def baseline(parts: list[list[float]], rng: np.random.Generator) -> Interval | None:
    """The report's former method: Wilson for one 0/1 dataset, else the stratified percentile bootstrap."""
    if len(parts) == 1 and is_binary(parts[0]):
        return wilson(sum(parts[0]), len(parts[0]))
    total = np.zeros(RESAMPLES)
    for values in parts:
        data = np.asarray(values)
        total += data[rng.integers(0, len(data), size=(RESAMPLES, len(data)))].mean(axis=1)
    low, high = np.percentile(total / len(parts) * 100, [2.5, 97.5])
    return Interval(round(float(low), 2), round(float(high), 2), "bootstrap")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=400)
    args = parser.parse_args()
    pops = populations()
    names = sorted(pops)
    rng = np.random.default_rng(7)
    print(f"{len(names)} real populations: " + ", ".join(f"{n} (n={len(pops[n])})" for n in names))
    print(
        f"{'n':>3} {'K':>2}  {'coverage new':>12} {'old':>6}  "
        f"{'zero-width new':>14} {'old':>6}  {'width new':>9} {'old':>6}"
    )
    for k in (1, 3):
        for n in (3, 5, 10, 30):
            hits = {"new": 0, "old": 0}
            zero = {"new": 0, "old": 0}
            widths: dict[str, list[float]] = {"new": [], "old": []}
            for rep in range(args.reps):
                chosen = [names[i] for i in rng.choice(len(names), size=k, replace=False)]
                truth = 100 * statistics.fmean(statistics.fmean(pops[c]) for c in chosen)
                parts = [list(rng.choice(pops[c], size=n)) for c in chosen]
                point = round(100 * statistics.fmean(statistics.fmean(p) for p in parts), 2)
                new = combined_interval([(1.0, p, f"{rep}-{i}") for i, p in enumerate(parts)], point)
                for label, interval in (("new", new), ("old", baseline(parts, rng))):
                    assert interval is not None
                    hits[label] += interval.low - 1e-9 <= truth <= interval.high + 1e-9
                    zero[label] += interval.high - interval.low < 1e-9
                    widths[label].append(interval.high - interval.low)
            reps = args.reps
            print(
                f"{n:>3} {k:>2}  {hits['new'] / reps:>12.1%} {hits['old'] / reps:>6.1%}  "
                f"{zero['new'] / reps:>14.1%} {zero['old'] / reps:>6.1%}  "
                f"{statistics.median(widths['new']):>9.1f} {statistics.median(widths['old']):>6.1f}"
            )


if __name__ == "__main__":
    main()
