"""Scoring of LLM evaluation results: answer extraction, rule-based metrics, aggregation.

Usable without the command line::

    from scoring import score_records, aggregate
    outcome = score_records(records, metric="auto")   # records: canonical dicts, scored in place
    print(outcome.summary()["overall"])

The runner is exported too, loaded on first use (it brings httpx)::

    from scoring import ChatClient, Runner
    async with ChatClient("http://127.0.0.1:8000/v1", "my-model") as client:
        await Runner(client, defaults={"temperature": 0}).run_record(record)   # fills ``record``

Your own metric is a function of the reply and an :class:`Item` giving an :class:`ItemScore` (or a number);
``METRICS`` is the table of the built-in ones, scored by name (``score_records``, ``score_response``).

Public submodules: :mod:`scoring.errors` (every error scoring raises for a caller) and :mod:`scoring.report`
(reports as the command line prints them). Every other module is private (the command line's own helpers
are in ``scoring._cli_support``).

``scoring`` imports ``formatkit`` (its public face and ``formatkit._core``), never the other way round.
sympy is imported only by the guarded math worker process, on first need.
"""

from typing import TYPE_CHECKING

from formatkit._lazy import lazy_getattr

#: Every export, loaded from its private module on first use: ``import scoring`` stays cheap (the CLI
#: reads the metric table at start-up without loading numpy, httpx or the judges).
_LAZY = {
    "EndpointOptions": "scoring._runner.options",
    "RunOptions": "scoring._runner.options",
    "Limits": "scoring._client.options",
    "RetryPolicy": "scoring._client.options",
    "Dialect": "scoring._client.options",
    "ScoreOptions": "scoring._pipeline.options",
    "EvalOptions": "scoring._pipeline.options",
    "run_file": "scoring._runner.run_file",
    "evaluate": "scoring._pipeline.evaluate",
    "EvalOutcome": "scoring._pipeline.evaluate",
    "write_report": "scoring._pipeline.report_file",
    "collect_results": "scoring._pipeline.report_file",
    "Aggregate": "scoring._report.figures.aggregate",
    "Item": "scoring._metrics.base",
    "ItemScore": "scoring._metrics.base",
    "JudgeOptions": "scoring._judges.options",
    "PanelJudge": "scoring._judges.options",
    "read_panel": "scoring._judges.panel_file",
    "METRICS": "scoring._metrics.registry",
    "MetricChoice": "scoring._metrics.auto",
    "MetricSpec": "scoring._metrics.registry",
    "ScoreOutcome": "scoring._pipeline.score",
    "aggregate": "scoring._report.figures.aggregate",
    "score_records": "scoring._pipeline.score",
    "score_response": "scoring._pipeline.score",
    "ChatClient": "scoring._client.http",
    "ChatResult": "scoring._client.http",
    "RecordOutcome": "scoring._runner.runner",
    "RunSummary": "scoring._runner.job",
    "Runner": "scoring._runner.runner",
    "FileScoreOutcome": "scoring._pipeline.score_file",
    "score_file": "scoring._pipeline.score_file",
    "Shard": "scoring._runner.shard",
    "merge_parts": "scoring._pipeline.merge",
    "Estimate": "scoring._runner.estimate",
    "Prices": "scoring._runner.estimate",
    "estimate_file": "scoring._runner.estimate_run",
    "estimate_evaluation": "scoring._pipeline.estimate_eval",
    "read_prices": "scoring._runner.estimate",
    "JudgeCheck": "scoring._judge_check.check",
    "judge_check": "scoring._judge_check.check",
    "JudgeVerdict": "scoring._results",
    "judge_verdicts": "scoring._results",
    "review_fields": "scoring._pipeline.review",
}

__all__ = [
    "METRICS",
    "Aggregate",
    "ChatClient",
    "ChatResult",
    "Dialect",
    "EndpointOptions",
    "Estimate",
    "EvalOptions",
    "EvalOutcome",
    "FileScoreOutcome",
    "Item",
    "ItemScore",
    "JudgeCheck",
    "JudgeOptions",
    "JudgeVerdict",
    "Limits",
    "MetricChoice",
    "MetricSpec",
    "PanelJudge",
    "Prices",
    "RecordOutcome",
    "RetryPolicy",
    "RunOptions",
    "RunSummary",
    "Runner",
    "ScoreOptions",
    "ScoreOutcome",
    "Shard",
    "aggregate",
    "collect_results",
    "estimate_evaluation",
    "estimate_file",
    "evaluate",
    "judge_check",
    "judge_verdicts",
    "merge_parts",
    "read_panel",
    "read_prices",
    "review_fields",
    "run_file",
    "score_file",
    "score_records",
    "score_response",
    "write_report",
]


__getattr__ = lazy_getattr(globals(), _LAZY)


if TYPE_CHECKING:
    from scoring._client.http import ChatClient, ChatResult
    from scoring._client.options import Dialect, Limits, RetryPolicy
    from scoring._judge_check.check import JudgeCheck, judge_check
    from scoring._judges.options import JudgeOptions, PanelJudge
    from scoring._judges.panel_file import read_panel
    from scoring._metrics.auto import MetricChoice
    from scoring._metrics.base import Item, ItemScore
    from scoring._metrics.registry import METRICS, MetricSpec
    from scoring._pipeline.estimate_eval import estimate_evaluation
    from scoring._pipeline.evaluate import EvalOutcome, evaluate
    from scoring._pipeline.merge import merge_parts
    from scoring._pipeline.options import EvalOptions, ScoreOptions
    from scoring._pipeline.report_file import collect_results, write_report
    from scoring._pipeline.review import review_fields
    from scoring._pipeline.score import ScoreOutcome, score_records, score_response
    from scoring._pipeline.score_file import FileScoreOutcome, score_file
    from scoring._report.figures.aggregate import Aggregate, aggregate
    from scoring._results import JudgeVerdict, judge_verdicts
    from scoring._runner.estimate import Estimate, Prices, read_prices
    from scoring._runner.estimate_run import estimate_file
    from scoring._runner.job import RunSummary
    from scoring._runner.options import EndpointOptions, RunOptions
    from scoring._runner.run_file import run_file
    from scoring._runner.runner import RecordOutcome, Runner
    from scoring._runner.shard import Shard
