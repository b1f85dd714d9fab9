"""``eval --estimate``: what an evaluation would cost before anything is bought — the sets checked and
converted as ``eval``'s first step does (that writes only ``canonical.jsonl``), then the model's requests
counted as ``run --estimate`` counts them (:mod:`scoring._runner.estimate`), and the judge's requests: one
per response ``auto`` would send to the judge (free text, no reference, a dataset declared for it)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formatkit import convert, iter_dicts
from formatkit._core.issues import Report
from formatkit._core.record import RecordDict, target_responses
from formatkit._core.writers import output_lock
from scoring._client.options import with_fields
from scoring._metrics.auto import reference_kind
from scoring._metrics.base import item_from_record
from scoring._metrics.registry import JUDGE_NEEDED, METRICS
from scoring._pipeline.evaluate import EvalPaths, first_per_dataset, run_options
from scoring._pipeline.options import EvalFields, EvalOptions
from scoring._pipeline.score import Scorer
from scoring._results import dataset_of
from scoring._runner.estimate import Estimate, Prices
from scoring._runner.estimate_run import estimate_file
from scoring._runner.options import EndpointOptions
from scoring._runner.requests import expand_samples

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["estimate_evaluation", "judge_requests"]


def judge_requests(records: Iterable[RecordDict], how: EvalOptions) -> int:
    """The judge requests ``auto`` would send: each response of a record it leaves to the judge, and of a
    record whose short text reference ``exact`` can only match word for word (a paraphrase goes to the
    judge, #27 item 5), times the requests a panel makes per response (its judges x ``judge_repeats``). An
    answer no rule can extract goes to the judge too, which no count before the answers can foresee."""
    items = list(records)
    declared = dict(how.dataset_metrics or {})
    scorer = Scorer(declared=declared)
    scorer.prepare(items)
    count = 0
    for record in items:
        metric = scorer.metric_for(record).metric
        spec = METRICS.get(metric)
        paraphrase = (
            spec is not None
            and bool(spec.judge_unmatched)
            and dataset_of(record, scorer.default_dataset) not in declared
            and reference_kind(item_from_record(record)) in spec.judge_unmatched
        )
        if metric == JUDGE_NEEDED or paraphrase:
            expand_samples(record, how.defaults or {})
            count += len(target_responses(record))
    judge = how.judge
    per_response = max(1, len(judge.judges())) * max(1, judge.judge_repeats) if judge is not None else 1
    return count * per_response


def estimate_evaluation(
    sets: Sequence[str | os.PathLike[str]],
    directory: str | os.PathLike[str],
    endpoint: EndpointOptions,
    options: EvalOptions | None = None,
    *,
    tokenizer: str | Path | None = None,
    prices: Prices | None = None,
    **fields: Unpack[EvalFields],
) -> tuple[Report, Estimate | None]:
    """The sets' validation, and what :func:`~scoring.evaluate` would send into ``directory`` (None when a set
    is invalid); judge requests are counted when ``options.judge`` names a judge endpoint."""
    how = with_fields(options, EvalOptions, fields)
    paths = EvalPaths(Path(directory))
    paths.directory.mkdir(parents=True, exist_ok=True)
    with output_lock(paths.directory / "eval"):
        validation = convert(list(sets), paths.canonical, mode=how.mode, profile=how.profile)
        if not validation.valid:
            return validation, None
        source: Any = paths.canonical if how.limit is None else first_per_dataset(paths.canonical, how.limit)
        run = run_options(how)
        estimate = estimate_file(source, paths.answered, endpoint, run, tokenizer=tokenizer)
        if how.judge is not None and how.judge.configured:
            estimate.judge_requests = judge_requests(_records(source, how), how)
        if prices is not None:
            estimate.price(prices)
        return validation, estimate


def _records(source: Path | Callable[[], Iterable[RecordDict]], how: EvalOptions) -> list[RecordDict]:
    records = source() if callable(source) else iter_dicts(source, mode="infer-eval", profile="none")
    shard = how.shard
    return [record for position, record in enumerate(records) if shard is None or shard.owns(position)]
