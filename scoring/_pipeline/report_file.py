"""``formatkit report`` as a library call: scored results files in, a report out.

:func:`collect_results` reads the files once, grouping records by model (never merging two models),
then dimension and dataset, and keeps the per-sample rows the HTML browser shows; :func:`render_report`
turns that into text, md, json or html; :func:`write_report` writes any format, xlsx included.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from formatkit._core.record import RecordDict, score_entries
from formatkit._core.writers import atomic_writer
from scoring._errors import ResultsFileError
from scoring._pipeline.distinct_files import Repeat, distinct_files
from scoring._report.figures.calibration import Calibration
from scoring._report.figures.dimensions import DimensionsCheck, check_dimensions
from scoring._report.figures.models import ModelsAggregator
from scoring._report.figures.shapes import ReportedRun
from scoring._report.render.html import SampleCollector, render_html
from scoring._report.render.leaderboard import render_comparison
from scoring._report.render.runs import SpeedTally, runs_html, runs_text
from scoring._report.words import DEFAULT_LANG
from scoring._results import dataset_of, read_results
from scoring._runner.provenance import run_records_of

__all__ = [
    "FORMATS",
    "SAMPLE_FORMATS",
    "CollectedResults",
    "ResultsFileError",
    "collect_results",
    "render_report",
    "save_report",
    "write_report",
]

FORMATS = ("text", "json", "md", "html", "xlsx")
#: The formats that show the records question by question (collect_results(samples=True) for them).
SAMPLE_FORMATS = ("html", "xlsx")


@dataclass
class CollectedResults:
    """Everything a report shows: the models' comparison, the samples (for html) and the datasets that
    no scorer has been over (their files were never scored)."""

    comparison: Any
    samples: SampleCollector | None
    unscored: list[str] = field(default_factory=list)
    #: the paths left out because they repeat a file given before (read twice, every record would count twice)
    repeats: list[Repeat] = field(default_factory=list)
    #: the ``dimensions`` map held against the datasets read: misspelled keys, keys naming none, datasets left alone
    dimensions: DimensionsCheck | None = None


def _has_scoring(record: RecordDict) -> bool:
    """Whether a scorer has been over the record: a response holds a score or an analysis."""
    return bool(score_entries(record))


def collect_results(
    paths: Sequence[str | os.PathLike[str]],
    *,
    dimensions: Mapping[str, str] | None = None,
    samples: bool = False,
    void_as_zero: bool = False,
    calibration: Calibration | None = None,
) -> CollectedResults:
    """Read scored results files (a dataset is ``meta.dataset``, else the file's name) into a comparison
    of models; ``samples`` keeps the per-sample rows of the HTML browser too; ``void_as_zero`` counts a
    void judge verdict as the lowest score (for leaderboards) instead of leaving it out of the mean. A file
    given twice (another spelling, a link, a copy) is read once; ``repeats`` of the result lists the others.
    ``calibration``: the judges' κ with people (``report --human``), an uncalibrated one's datasets unranked."""
    files, repeats = distinct_files([os.fspath(path) for path in paths])
    aggregator = ModelsAggregator(void_as_zero=void_as_zero)
    collector = SampleCollector() if samples else None
    speed = SpeedTally()
    scored: set[str] = set()
    # Parsed records are plain acyclic dicts: the cyclic collector would rescan every live object again
    # and again while hundreds of thousands of them are made (a third of the time); paused while reading.
    enabled = gc.isenabled()
    gc.disable()
    try:
        for path in files:
            stem = Path(path).stem
            for record in read_results(path, hint="; is this a results file from `score`?"):
                model = aggregator.add(record, stem)
                aggregator.files.setdefault(str(path), model)
                speed.add(record, model)
                if collector is not None:
                    collector.add(record, model, dataset_of(record, stem))
                if _has_scoring(record):
                    scored.add(dataset_of(record, stem))
    finally:
        if enabled:
            gc.enable()
    comparison = aggregator.finish(dict(dimensions) if dimensions is not None else None, calibration)
    comparison.runs = _runs(files)
    comparison.speed = speed.summary()
    check = None
    if dimensions is not None:
        own = {name: stats.dimension for agg in comparison.models.values() for name, stats in agg.datasets.items()}
        check = check_dimensions(dimensions, own)
    return CollectedResults(comparison, collector, sorted(aggregator.datasets() - scored), repeats, check)


def _runs(paths: Sequence[str | os.PathLike[str]]) -> dict[str, list[ReportedRun]]:
    """Each model's run records (what produced its results), from the records beside the files."""
    runs: dict[str, list[ReportedRun]] = {}
    for path in paths:
        for record in run_records_of(path):
            entry: ReportedRun = {"file": str(path), **record}
            entry.pop("summary", None)  # counts the report shows in its own way
            runs.setdefault(str(record.get("model") or "(unknown model)"), []).append(entry)
    return runs


def render_report(
    collected: CollectedResults, fmt: str, *, color: bool = False, width: int | None = None, lang: str | None = None
) -> str:
    """The report as text (``text``, ``md``, ``json``, ``html``); html (and xlsx) need ``samples=True`` results.
    ``lang``: the language of the text and Markdown report's words (JSON, HTML and xlsx keep English)."""
    comp = collected.comparison
    if fmt == "html":
        page = render_html(comp, collected.samples)
        section = runs_html(comp.runs, comp.speed)
        head, end, tail = page.rpartition("</body>")
        return head + section + end + tail if end else page + section
    text = render_comparison(comp, fmt, color=color, width=width, lang=lang)
    if fmt in ("text", "md"):
        extra = runs_text(comp.runs, comp.speed, lang=lang or DEFAULT_LANG)
        if extra:
            text += "\n" + (_fenced(extra) if fmt == "md" else extra)
    return text


def _fenced(text: str) -> str:
    """``text`` as a Markdown code block whose fence no run of backticks in it (a name's) can close."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}{fence}\n"


def save_report(
    collected: CollectedResults, output: str | os.PathLike[str], fmt: str, *, lang: str | None = None
) -> None:
    """Write collected results as ``fmt`` (any of :data:`FORMATS`) to ``output``, atomically (``lang``: the
    language of a text or Markdown report's words)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r}: expected one of {', '.join(FORMATS)}")
    out = Path(output)  # the atomic writer (xlsx too) makes the folder and reports what cannot be written
    if fmt == "xlsx":
        from scoring._report.render.workbook import write_report_xlsx

        write_report_xlsx(collected.comparison, out, collected.samples)
        return
    with atomic_writer(out) as handle:
        handle.write(render_report(collected, fmt, lang=lang).encode("utf-8"))


def write_report(
    paths: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    fmt: str,
    *,
    dimensions: Mapping[str, str] | None = None,
    void_as_zero: bool = False,
) -> CollectedResults:
    """Read ``paths`` and write the report in ``fmt`` (any of :data:`FORMATS`) to ``output``, atomically."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r}: expected one of {', '.join(FORMATS)}")
    collected = collect_results(paths, dimensions=dimensions, samples=fmt in SAMPLE_FORMATS, void_as_zero=void_as_zero)
    save_report(collected, output, fmt)
    return collected
