"""The platform's flow in one call: validate, convert, run, score, report — resumable at every stage.

Everything goes into one directory::

    DIR/canonical.jsonl   the sets, validated and converted (written again on every call: cheap, exact)
    DIR/answered.jsonl    the model's responses (journaled: a rerun sends only what is unfinished)
    DIR/scored.jsonl      every response scored by auto; with a judge endpoint, free text is judged
                          (journaled too: a rerun buys no verdict twice)
    DIR/report.{txt,json,html,xlsx}
    DIR/run.json          what produced them (:mod:`scoring._runner.provenance`): version, times, command,
                          endpoint, model, parameters, the judge; with ``shard``, which part of the sets

Each stage reads only the file the stage before it wrote, so a user can stop after any stage, look at
the jsonl, and go on with the single commands (``run``, ``score``, ``report``) as well.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formatkit import convert, iter_dicts
from formatkit._core.issues import Report
from formatkit._core.record import RecordDict, target_responses
from formatkit._core.writers import output_lock, refuse_special
from scoring._client.options import with_fields
from scoring._errors import AnsweredSetError, OtherModelResultsError
from scoring._judges.options import JudgeOptions
from scoring._pipeline.options import EvalFields, EvalOptions, ScoreOptions
from scoring._pipeline.report_file import collect_results, save_report
from scoring._pipeline.score_file import FileScoreOutcome, judge_record, score_file
from scoring._results import dataset_of, read_results
from scoring._runner.job import RunJob, RunSummary
from scoring._runner.journal import journal_path
from scoring._runner.options import EndpointOptions, RunOptions
from scoring._runner.progress import Progress
from scoring._runner.provenance import RUN_RECORD, RunRecord, now_iso, read_run_record, write_run_record
from scoring._runner.run_file import run_file

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["EvalOptions", "EvalOutcome", "EvalPaths", "evaluate"]

#: The report formats written into the directory.
REPORT_FORMATS = {"text": "report.txt", "json": "report.json", "html": "report.html", "xlsx": "report.xlsx"}


@dataclass(frozen=True)
class EvalPaths:
    """Where each stage writes, inside the evaluation directory."""

    directory: Path

    @property
    def canonical(self) -> Path:
        return self.directory / "canonical.jsonl"

    @property
    def answered(self) -> Path:
        return self.directory / "answered.jsonl"

    @property
    def scored(self) -> Path:
        return self.directory / "scored.jsonl"

    def report(self, fmt: str) -> Path:
        return self.directory / REPORT_FORMATS[fmt]

    @property
    def run_record(self) -> Path:
        return self.directory / RUN_RECORD

    def outputs(self) -> list[Path]:
        """Every file the stages write here, journals included."""
        answered, scored = self.answered, self.scored
        reports = [self.report(fmt) for fmt in REPORT_FORMATS]
        journals = [journal_path(answered), journal_path(scored)]
        return [self.canonical, answered, scored, self.run_record, *reports, *journals]


@dataclass
class EvalOutcome:
    """How far the flow got and what each stage said. ``validation`` is always there; ``run`` and
    ``score`` are None when the flow stopped before them (an invalid set)."""

    paths: EvalPaths
    validation: Report
    run: RunSummary | None = None
    score: FileScoreOutcome | None = None
    reports: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every set valid, every record answered with content (as ``run``'s exit 0), and something scored."""
        return (
            self.validation.valid
            and self.run is not None
            and self.run.all_content
            and self.score is not None
            and self.score.scored_responses > 0
        )


def _count(path: Path, limit: int | None) -> int:
    """How many records the run will go through: every record, or the first ``limit`` of each dataset.
    (Read without the rules: convert has just written and checked the file.)"""
    counts: dict[str, int] = {}
    for record in read_results(path):
        name = dataset_of(record, path.stem)
        counts[name] = counts.get(name, 0) + 1
    return sum(counts.values()) if limit is None else sum(min(n, limit) for n in counts.values())


def _answered_by_others(path: Path, model: str) -> dict[str, int]:
    """Per dataset, the records whose target turn already holds a reply not made by ``model`` (a results
    file among the sets, such as ``fixtures/seed/seed_output_*``): run would keep those replies and the
    report would show them as another column, "(unknown model)", beside the model evaluated."""
    import orjson

    found: dict[str, int] = {}
    with path.open("rb") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = orjson.loads(line)
            replies = target_responses(record)
            if any(r.get("content") and r.get("model") != model for r in replies):
                name = dataset_of(record, path.stem)
                found[name] = found.get(name, 0) + 1
    return found


def first_per_dataset(path: Path, limit: int) -> Callable[[], Iterator[RecordDict]]:
    """The first ``limit`` records of every dataset (a smoke run covers each set, not only the first)."""

    def records() -> Iterator[RecordDict]:
        taken: dict[str, int] = {}
        for record in iter_dicts(path, mode="infer-eval", profile="none"):
            name = dataset_of(record, path.stem)
            if taken.get(name, 0) < limit:
                taken[name] = taken.get(name, 0) + 1
                yield record

    return records


def run_options(how: EvalOptions, **more: Any) -> RunOptions:
    """What the evaluation's run step sends, from its options (``more``: the run's own, e.g. ``total``); the
    run record is the evaluation's own (``run.json``), not the run's."""
    return RunOptions(
        defaults=how.defaults,
        retry_empty=how.retry_empty,
        restart=how.restart,
        mode="infer-eval",
        shard=how.shard,
        run_record=False,
        **more,
    )


def evaluate(
    sets: Sequence[str | os.PathLike[str]],
    directory: str | os.PathLike[str],
    endpoint: EndpointOptions,
    options: EvalOptions | None = None,
    *,
    run_progress: Progress | None = None,
    judge_progress: Progress | None = None,
    started: Callable[[RunJob], None] | None = None,
    **fields: Unpack[EvalFields],
) -> EvalOutcome:
    """Validate and convert ``sets``, run the pending turns against ``endpoint``, score the responses
    (``auto``; with a judge endpoint in ``judge``, free text goes to the judge) and write the reports,
    all into ``directory``.

    ``options`` (:class:`~scoring._pipeline.options.EvalOptions`) says what is done beyond where the
    requests go; each of its fields may be given as a keyword instead (``judge=JudgeOptions(...)``,
    ``limit=5``), over ``options``. ``limit``: only the first N records of each dataset (a smoke run).
    ``retry_empty``: ask an empty reply again up to N times (as ``run_file``); ``math_timeout``: the math
    metric's per-item time limit; ``dimensions``: dataset -> capability dimension, for the reports;
    ``void_as_zero``: a void judge verdict counts as the lowest score in the summary and the reports.
    ``shard``: run and score only that part of the records (after ``limit``); ``formatkit merge`` puts
    the directories of all parts back together. ``run.json`` records what produced the outputs
    (``command``: the command line to record). ``run_progress`` and ``judge_progress`` are told of the
    run's records and the judge's responses; ``started`` is called with the run's job before anything is
    sent.

    Stops after validation when a set is invalid (nothing else is written). Raises what the stages raise:
    :class:`~scoring._errors.EndpointUnavailableError` (journal kept), ``OutputLockedError``,
    ``KeyboardInterrupt``/``RunInterrupted`` (journal kept),
    :class:`~scoring._errors.JudgeUnavailableError` (verdicts kept), ``OutputBusyError`` (another evaluation
    is writing ``directory``: nothing was done). Rerunning the same call resumes.
    """
    how = with_fields(options, EvalOptions, fields)
    started_at = now_iso()
    paths = EvalPaths(Path(directory))
    paths.directory.mkdir(parents=True, exist_ok=True)
    for output in paths.outputs():  # a pipe or device among them: refused before any request is paid for
        refuse_special(output)
    with output_lock(paths.directory / "eval"):  # one evaluation per directory (.eval.lock)
        _refuse_another_models(paths, endpoint.model, how.restart)
        return _evaluate(sets, paths, endpoint, how, run_progress, judge_progress, started, started_at)


def _refuse_another_models(paths: EvalPaths, model: str, restart: bool) -> None:
    """A directory whose run record names another model holds that model's results: evaluating ``model``
    there would replace them (said only as a journal note before). ``restart`` says to replace them."""
    record = read_run_record(paths.run_record)
    held = record.get("model") if record else None
    if isinstance(held, str) and held and held != model and not restart:
        raise OtherModelResultsError(str(paths.directory), held, model)


def _evaluate(
    sets: Sequence[str | os.PathLike[str]],
    paths: EvalPaths,
    endpoint: EndpointOptions,
    how: EvalOptions,
    run_progress: Progress | None,
    judge_progress: Progress | None,
    started: Callable[[RunJob], None] | None,
    started_at: str,
) -> EvalOutcome:
    validation = convert(list(sets), paths.canonical, mode=how.mode, profile=how.profile)
    outcome = EvalOutcome(paths, validation)
    if not validation.valid:
        return outcome
    answered = _answered_by_others(paths.canonical, endpoint.model)
    if answered:
        raise AnsweredSetError(answered, endpoint.model)
    limit, judge = how.limit, how.judge
    source: Any = paths.canonical if limit is None else first_per_dataset(paths.canonical, limit)
    run = run_options(how, total=_count(paths.canonical, limit), command=how.command, processes=how.processes)
    outcome.run = run_file(source, paths.answered, endpoint, run, progress=run_progress, started=started)
    # written once the answers are (a judge that stops the flow leaves them described), again at the end
    record: RunRecord = {**(outcome.run.run_record or {})}
    record.update({"started": started_at, "sets": [str(path) for path in sets]})
    record["judge"] = judge_record(judge) if judge is not None and judge.configured else None
    write_run_record(paths.run_record, record)
    judge_options = replace(judge or JudgeOptions(), journal_path=journal_path(paths.scored))
    scoring = ScoreOptions(
        metric="auto", math_timeout=how.math_timeout, void_as_zero=how.void_as_zero, dataset_metrics=how.dataset_metrics
    )
    outcome.score = score_file(paths.answered, paths.scored, scoring, judge=judge_options, progress=judge_progress)
    record["finished"] = now_iso()
    write_run_record(paths.run_record, record)
    # read once, written in every format
    collected = collect_results([paths.scored], dimensions=how.dimensions, samples=True, void_as_zero=how.void_as_zero)
    for fmt in REPORT_FORMATS:
        save_report(collected, paths.report(fmt), fmt, lang=how.lang)
        outcome.reports.append(paths.report(fmt))
    return outcome
