"""``formatkit score`` as a library call: one input file in, one scored file out.

The input is canonical jsonl, or any Excel/jsonl set in ``scored`` mode. Rule metrics stream: each record
is scored and written as it is read, and the output is written atomically (nothing is left behind when
the input turns out invalid). ``auto`` reads the references once more first (see
:mod:`scoring._metrics.auto`: a record's metric depends on its dataset's references). Judge metrics and
the math judge fallback hold the records in memory while the judges run.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formatkit import iter_dicts
from formatkit._core.errors import InvalidFileError
from formatkit._core.messages import Msg
from formatkit._core.modes import Mode
from formatkit._core.record import RecordDict, ResponseDict, target_responses
from formatkit._core.writers import atomic_writer, dumps_line, output_lock
from scoring._client.options import with_fields
from scoring._errors import BadLabelsError
from scoring._judges import JudgeSetupError, judge_records
from scoring._judges.fallback import undecided
from scoring._judges.kinds import fallback_judge, fallback_rules
from scoring._judges.options import JudgeOptions
from scoring._judges.run import RuleScore
from scoring._judges.summary import JudgeSummary
from scoring._metrics.auto import MetricChoice
from scoring._metrics.math.sympy_guard import SympyGuard
from scoring._metrics.registry import AUTO, JUDGE_NEEDED, spec_of
from scoring._pipeline.options import ScoreFields, ScoreOptions
from scoring._pipeline.review import KEEP, Change, strip_keep, triage
from scoring._pipeline.score import Scorer
from scoring._pipeline.score_workers import score_in_workers
from scoring._report.figures.aggregate import Aggregate, aggregate
from scoring._results import dataset_of
from scoring._runner.journal import journal_path
from scoring._runner.progress import Progress
from scoring._runner.provenance import JudgeRecord, now_iso, read_run_record, run_record_path, write_run_record

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from formatkit import Issue

__all__ = ["SHEET_CHANGES", "FileScoreOutcome", "ScoreOptions", "judge_record", "score_file"]

#: What reading a sheet says of rows people changed by hand, said again by ``score`` (it reads a sheet as
#: data, its other warnings left to ``validate``): hidden (a filter), deleted, their ``row_key`` broken.
SHEET_CHANGES = frozenset({"hidden_rows", "rows_missing", "invalid_row_key"})

StrPath = str | os.PathLike[str]


@dataclass
class FileScoreOutcome:
    """What :func:`score_file` did: the aggregate, each dataset's metric and why, the judges' summary."""

    output: Path
    aggregate: Aggregate
    metrics: dict[str, MetricChoice]
    judge_summary: JudgeSummary = field(default_factory=dict)
    #: A reviewed sheet (``export``'s, edited): each score a person gave, refused, or that was re-scored
    #: because its reply, reference or question was edited. Every other score of such a sheet was kept.
    changes: list[Change] = field(default_factory=list)
    #: Responses that came from a sheet ``export`` wrote for review (each with its fingerprint).
    reviewed: int = 0
    #: What reading the input said of rows people hid, deleted or whose ``row_key`` they broke (a sheet).
    sheet_warnings: list[Issue] = field(default_factory=list)

    @property
    def scored_responses(self) -> int:
        return sum(stats.scored_responses for stats in self.aggregate.datasets.values())

    @property
    def judge_needed(self) -> dict[str, MetricChoice]:
        """Datasets where ``auto`` left records for a judge."""
        return {
            name: pick
            for name, pick in self.metrics.items()
            if pick.metric == JUDGE_NEEDED or (pick.metric == "mixed" and JUDGE_NEEDED in pick.reason)
        }


def score_file(
    path: StrPath,
    output: StrPath,
    options: ScoreOptions | None = None,
    *,
    judge: JudgeOptions | None = None,
    progress: Progress | None = None,
    **fields: Unpack[ScoreFields],
) -> FileScoreOutcome:
    """Score every response of ``path`` with ``metric`` and write every record, in input order, to ``output``.

    ``options`` (:class:`~scoring._pipeline.options.ScoreOptions`) says how; each of its fields may be
    given as a keyword instead (``metric="math"``), over ``options``. ``metric``: ``auto``, a rule metric, a
    judge metric (``judge``, ``pairwise``, ``math-judge``) or a custom ``module:function``. ``judge`` holds
    the judge endpoint and options (its ``judge_fallback`` with ``metric="math"`` sends what the rules
    left unsettled to the math judge); its journal defaults to ``output`` + ``.journal``. ``model_name``
    names the model that answered, for responses that do not name one (responses collected elsewhere;
    the runner writes its own). With ``auto`` and a judge endpoint in ``judge``, the records auto leaves
    for a judge (free text) are judged (``judge``) instead of left unscored. ``void_as_zero``: the summary
    counts a void judge verdict (no readable verdict) as the lowest score instead of leaving it out (the
    written records keep their null score either way). ``workers``: rule metrics (``auto`` without a
    judge endpoint, a rule metric, a custom ``module:function``) are scored by that many worker processes
    (:mod:`scoring._pipeline.score_workers`; the output is byte for byte one process's); judges always
    run in this process.

    Raises :class:`~formatkit.InvalidFileError` (with the report) when the input is invalid,
    :class:`~scoring._metrics.registry.MetricError` for an unknown or unloadable metric,
    :class:`~scoring._judges.JudgeSetupError` and :class:`~scoring._errors.JudgeUnavailableError` from
    the judges; in every case ``output`` is not written. :class:`~formatkit.OutputError`
    (``OutputBusyError``) at once when another command is writing ``output``.
    """
    out = Path(output)
    how = with_fields(options, ScoreOptions, fields)
    if how.metric != AUTO:
        spec_of(how.metric)  # an unknown metric fails before the input is read
    judge = judge or JudgeOptions()
    if judge.journal_path is None:
        judge = replace(judge, journal_path=journal_path(Path(out)))
    if judge.judge_fallback and fallback_judge(how.metric) is None:
        raise JudgeSetupError(f"--judge-fallback goes with --metric {' or '.join(fallback_rules())}")
    with output_lock(out):  # one writer per output, from before the first verdict is bought
        try:
            outcome = _score(path, out, "scored", how, judge, progress)
        except InvalidFileError as exc:
            if not _only_failed_inference(exc):
                raise
            # A canonical file whose only errors are responses that failed at inference: read it as infer-eval,
            # so those responses are kept and counted unscorable (nothing was written by the first attempt).
            outcome = _score(path, out, "infer-eval", how, judge, progress)
        _carry_run_record(Path(path), out, how.metric, judge)
    return outcome


def _judge_unkept(records: list[RecordDict], judge: Any) -> list[RecordDict]:
    """``records`` with those a review left standing passed by ``judge`` (a function of a list of records
    returning the judged list): no verdict is bought for a score that was kept."""
    todo = [i for i, record in enumerate(records) if not strip_keep(record)]
    out = list(records)
    if not todo:
        return out
    for i, record in zip(todo, judge([records[i] for i in todo]), strict=True):
        out[i] = record
    return out


def _carry_run_record(source: Path, out: Path, metric: str, judge: JudgeOptions) -> None:
    """The input's run record (``IN.run.json``: what produced its responses) goes along to
    ``OUT.run.json``, so the scored file of a ``--shard`` part still merges and reports its run; the
    scoring is added to it (the metric, and the judge when one was used)."""
    record = read_run_record(run_record_path(source))
    if record is None:
        return
    record["scored"] = {"metric": metric, "finished": now_iso(), "from": source.name}
    if judge.configured:
        record["judge"] = judge_record(judge)
    write_run_record(run_record_path(out), record)


def judge_record(judge: JudgeOptions) -> JudgeRecord:
    """The judge as the run record keeps it: its public URL, model, template and scale (never its key)."""
    from scoring._client.url import public_url

    if judge.judge_template is not None:
        template = str(judge.judge_template)
    elif judge.judge_lang == "auto":
        template = "built-in absolute_zh / absolute_en (by each record's language)"
    else:
        template = _builtin_prompt(judge.judge_lang)
    record: JudgeRecord = {
        "base_url": public_url(judge.judge_base_url or ""),
        "model": judge.judge_model,
        "template": template,
        "scale": judge.judge_scale,
    }
    if judge.is_panel:
        record["panel"] = [{"model": j.model, "base_url": public_url(j.base_url or "")} for j in judge.judges()]
        record["aggregate"] = "escalate" if judge.judge_escalate else judge.judge_aggregate
    return record


def _builtin_prompt(judge_lang: str) -> str:
    """The built-in absolute prompt ``--judge-lang`` gives, as the run record says it: a language without
    built-in prompts of its own is judged in English, and the record says so."""
    from scoring._judges.prompts import parse_lang
    from scoring._judges.templates import builtin_name

    try:
        lang = parse_lang(judge_lang) or judge_lang
    except ValueError:
        lang = judge_lang
    name = builtin_name("absolute", lang)
    return f"built-in {name}" + ("" if name.endswith(f"_{lang}") else f" (no built-in {lang} prompts: English)")


def _only_failed_inference(exc: InvalidFileError) -> bool:
    report = exc.report
    return report.format == "canonical" and all(
        issue.code == "missing_response" for issue in report.issues if issue.severity == "error"
    )


def _score(
    path: StrPath, out: Path, mode: Mode, how: ScoreOptions, options: JudgeOptions, progress: Progress | None
) -> FileScoreOutcome:
    model_name = how.model_name
    default_dataset = Path(path).stem
    changes: dict[tuple[str, Any, int], Change] = {}  # records() is read more than once (auto reads it twice)
    reviewed: set[tuple[Any, ...]] = set()

    said: list[Issue] = []

    def records() -> Iterator[RecordDict]:
        said.clear()  # read more than once (auto reads it twice): what the last reading said
        problems: list[Msg] = []  # human scores that cannot be used: the sheet is refused at the end of a read
        for number, record in enumerate(iter_dicts(path, mode=mode, profile="none", warnings=said)):
            responses = target_responses(record)
            if model_name:
                for response in responses:
                    response.setdefault("model", model_name)
            reviewed.update((number, n) for n, r in enumerate(responses) if "fingerprint" in r)
            for change in triage(record, default_dataset, problems):
                changes[(change.dataset, change.session_id, change.sample)] = change
            yield record
        if problems and not how.skip_bad_labels:
            raise BadLabelsError(problems)  # before the output is put in place: nothing is written

    outcome = _score_records(records, out, how, options, progress, default_dataset)
    outcome.changes = list(changes.values())
    outcome.reviewed = len(reviewed)
    outcome.sheet_warnings = [issue for issue in said if issue.code in SHEET_CHANGES]
    return outcome


def _score_records(
    records: Any, out: Path, how: ScoreOptions, options: JudgeOptions, progress: Progress | None, default_dataset: str
) -> FileScoreOutcome:
    metric, math_timeout, void_as_zero, workers = how.metric, how.math_timeout, how.void_as_zero, how.workers
    if metric != AUTO and spec_of(metric).kind == "judge":
        judged_summary: JudgeSummary = {}

        def judge_all(todo: list[RecordDict]) -> list[RecordDict]:
            # escalation checks a first verdict against what the rules settle of these very records
            if options.judge_escalate:
                rules = _rule_scores(todo, default_dataset, how)
                judged = judge_records(todo, metric=metric, options=options, progress=progress, rule_score=rules)
            else:
                judged = judge_records(todo, metric=metric, options=options, progress=progress)
            judged_summary.update(judged.summary)
            return judged.records

        listed = _judge_unkept(list(records()), judge_all)
        _write(out, listed)
        names = {str((r.get("meta") or {}).get("dataset") or default_dataset) for r in listed}
        metrics = dict.fromkeys(names, metric)
        agg = aggregate(listed, default_dataset=default_dataset, metrics=metrics, void_as_zero=void_as_zero)
        chosen = {name: MetricChoice(metric, "chosen with --metric") for name in names}
        return FileScoreOutcome(out, agg, chosen, judged_summary.copy())

    guard = SympyGuard(timeout=math_timeout)
    try:
        scorer = Scorer(
            metric=metric, default_dataset=default_dataset, guard=guard, declared=dict(how.dataset_metrics or {})
        )
        if workers > 1 and not options.judge_fallback and not (metric == AUTO and options.configured):
            with atomic_writer(out) as handle:
                score_in_workers(records, handle, scorer, workers, math_timeout, out)
            return FileScoreOutcome(out, scorer.result(), scorer.metrics)
        if metric == AUTO:
            scorer.prepare(records())
        if metric == AUTO and options.configured:
            return _auto_with_judge(scorer, records(), out, options, progress, void_as_zero)
        if options.judge_fallback:
            listed = list(records())
            kept = [all(KEEP in r for r in target_responses(record)) for record in listed]
            scored = [scorer.score_record(record) for record in listed]
            fallback_summary: JudgeSummary = {}

            def judge_all(todo: list[RecordDict]) -> list[RecordDict]:
                judged = judge_records(todo, metric=metric, options=options, progress=progress)  # its fallback judge
                fallback_summary.update(judged.summary)
                return judged.records

            todo = [i for i, k in enumerate(kept) if not k]
            for i, record in zip(todo, judge_all([scored[i] for i in todo]) if todo else [], strict=True):
                scored[i] = record
            _write(out, scored)
            metrics = dict.fromkeys(scorer.stats, metric)
            agg = aggregate(scored, default_dataset=default_dataset, metrics=metrics, void_as_zero=void_as_zero)
            return FileScoreOutcome(out, agg, scorer.metrics, fallback_summary.copy())
        _write(out, (scorer.score_record(record) for record in records()))
        return FileScoreOutcome(out, scorer.result(), scorer.metrics)
    finally:
        guard.close()


def _auto_with_judge(
    scorer: Scorer,
    records: Iterator[RecordDict],
    out: Path,
    options: JudgeOptions,
    progress: Progress | None,
    void_as_zero: bool = False,
) -> FileScoreOutcome:
    """``auto`` with a judge endpoint: what the rules cannot settle goes to the absolute judge (free text,
    "judge needed", a short text reference the reply does not match word for word, an answer no rule
    could extract or compare: :func:`~scoring._judges.fallback.undecided`), ``matched_by: "judge"``; the
    rest keep their rule metric's score."""
    scored = [scorer.score_record(record) for record in records]
    declared = scorer.declared  # a dataset whose metric the user declared keeps its rule scores

    def send(record: RecordDict, response: ResponseDict) -> str | None:
        return None if dataset_of(record, scorer.default_dataset) in declared else undecided(response)

    needy = [i for i, record in enumerate(scored) if any(send(record, r) for r in target_responses(record))]
    summary: JudgeSummary = {}
    if needy:
        judged = judge_records(
            [scored[i] for i in needy], metric="judge", options=options, progress=progress, only=send
        )
        for i, record in zip(needy, judged.records, strict=True):
            scored[i] = record
        summary = judged.summary.copy()
    _write(out, scored)
    default = scorer.default_dataset
    metrics = {n: c.metric for n, c in scorer.metrics.items()}
    agg = aggregate(scored, default_dataset=default, metrics=metrics, void_as_zero=void_as_zero)
    chosen = {
        name: MetricChoice(
            "judge" if pick.metric == JUDGE_NEEDED else pick.metric, pick.reason.replace(JUDGE_NEEDED, "judge")
        )
        if needy
        else pick
        for name, pick in scorer.metrics.items()
    }
    return FileScoreOutcome(out, agg, chosen, summary)


def _rule_scores(records: list[RecordDict], default_dataset: str, how: ScoreOptions) -> RuleScore:
    """What the rules (``auto``) settle of each response, for escalation to check a first verdict against:
    a score where the rules decide, None where they cannot (:func:`~scoring._judges.fallback.undecided`)."""
    guard = SympyGuard(timeout=how.math_timeout)
    try:
        declared = dict(how.dataset_metrics or {})
        scorer = Scorer(metric=AUTO, default_dataset=default_dataset, guard=guard, declared=declared)
        copies = [copy.deepcopy(record) for record in records]
        scorer.prepare(copies)
        settled: list[list[float | None]] = []
        for record in copies:
            scorer.score_record(record)
            settled.append(
                [
                    None
                    if undecided(response) or not isinstance(response.get("score"), int | float)
                    else response["score"]
                    for response in target_responses(record)
                ]
            )
    finally:
        guard.close()

    def rule_score(record: int, response: int) -> float | None:
        scores = settled[record] if record < len(settled) else []
        return scores[response] if response < len(scores) else None

    return rule_score


def _write(output: Path, records: Any) -> None:
    with atomic_writer(output) as handle:
        for record in records:
            handle.write(dumps_line(record))
