"""A whole file's estimate (``run --estimate``): the run's job built as :func:`~scoring.run_file` builds it, its
pending requests counted by the best method the setting allows (:mod:`scoring._runner.estimate`). Apart from
the counting so that ``run_file`` can count by the ratio too (its run record keeps the estimate beside what
the endpoint reported) with no import cycle."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from formatkit._core.messages import Msg
from formatkit._core.record import RecordDict
from scoring._runner.estimate import (
    BatchCounter,
    Estimate,
    EstimateMethod,
    Prices,
    TokenizeRefused,
    TokenizerFailed,
    count_estimate,
    ratio_counter,
    tokenize_counter,
    tokenize_url,
    tokenizer_counter,
)

__all__ = ["estimate_file"]


def estimate_file(
    source: str | Path | Callable[[], Iterable[RecordDict]],
    output: str | Path,
    endpoint: Any,
    options: Any = None,
    *,
    tokenizer: str | Path | None = None,
    use_tokenize: bool = True,
    prices: Prices | None = None,
) -> Estimate:
    """What :func:`~scoring.run_file` would send for ``source`` into ``output`` (the journal read, as a rerun
    would: what it holds is not counted again), counted with the best method available: the endpoint's
    tokenize route (``use_tokenize``), else ``tokenizer`` (a ``tokenizer.json``), else the ratio; priced with
    ``prices``. No completion is requested. ``endpoint``: an :class:`~scoring.EndpointOptions`; ``options``:
    a :class:`~scoring.RunOptions`."""
    from scoring._runner.options import RunOptions
    from scoring._runner.run_file import _job as job_for

    run = options if options is not None else RunOptions()
    client = endpoint.client()
    try:
        job = job_for(source, output, client, run)
        notes: list[Msg] = []
        fallback: tuple[BatchCounter, EstimateMethod] = (ratio_counter, "ratio")
        if tokenizer is not None:
            try:
                fallback = (tokenizer_counter(tokenizer), "tokenizer")
            except ImportError:
                notes.append(Msg("ui.estimate.no_tokenizers", tokenizer=str(tokenizer)))
            except Exception as exc:  # the package's own errors for a file that is no tokenizer
                notes.append(
                    Msg("ui.estimate.bad_tokenizer", tokenizer=str(tokenizer), error=f"{type(exc).__name__}: {exc}")
                )
        estimate: Estimate | None = None
        if use_tokenize:
            headers = {"Content-Type": "application/json", **dict(endpoint.dialect.headers)}
            key = endpoint.key()
            if key:
                headers["Authorization"] = f"Bearer {key}"
            url = tokenize_url(endpoint.base_url)
            try:
                estimate = count_estimate(
                    job.pending(), job.bodies, tokenize_counter(url, endpoint.model, headers), "tokenize"
                )
            except TokenizeRefused as refused:
                notes.append(Msg("ui.estimate.no_tokenize_route", reason=str(refused), method=fallback[1]))
        if estimate is None:
            try:
                estimate = count_estimate(job.pending(), job.bodies, *fallback)
            except TokenizerFailed as failed:  # loaded, then failed on a text: counted by the ratio, said
                notes.append(Msg("ui.estimate.bad_tokenizer", tokenizer=str(tokenizer), error=str(failed)))
                estimate = count_estimate(job.pending(), job.bodies, ratio_counter, "ratio")
        estimate.notes = notes
        if prices is not None:
            estimate.price(prices)
        return estimate
    finally:
        asyncio.run(client.aclose())
