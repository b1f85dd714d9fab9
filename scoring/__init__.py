"""Scoring of LLM evaluation results: answer extraction, rule-based metrics, aggregation.

Usable without the command line::

    from scoring import score_records, aggregate
    outcome = score_records(records, metric="auto")   # records: canonical dicts, scored in place
    print(outcome.summary()["overall"])

The runner is exported too, loaded on first use (it brings httpx)::

    from scoring import ChatClient, Runner
    async with ChatClient("http://127.0.0.1:8000/v1", "my-model") as client:
        await Runner(client, defaults={"temperature": 0}).run_record(record)   # fills ``record``

Public submodules: :mod:`scoring.errors` (every error scoring raises for a caller) and :mod:`scoring.report`
(reports as the command line prints them). Every other module is private.

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
    "distinct_files": "scoring._pipeline.distinct_files",
    "Repeat": "scoring._pipeline.distinct_files",
    "JudgeUnavailableError": "scoring._errors",
    "Aggregate": "scoring._report.aggregate",
    "Aggregator": "scoring._report.aggregate",
    "ChoiceExtraction": "scoring._metrics.extract.choice",
    "DatasetStats": "scoring._report.aggregate",
    "Item": "scoring._metrics.base",
    "ItemScore": "scoring._metrics.base",
    "JudgeOptions": "scoring._judges.options",
    "PanelJudge": "scoring._judges.options",
    "read_panel": "scoring._judges.panel_file",
    "METRICS": "scoring._metrics.registry",
    "MetricChoice": "scoring._metrics.auto",
    "MetricError": "scoring._errors",
    "MetricSpec": "scoring._metrics.registry",
    "RULE_METRICS": "scoring._pipeline.score",
    "RuleFunction": "scoring._metrics.registry",
    "ScoreOutcome": "scoring._pipeline.score",
    "Scorer": "scoring._pipeline.score",
    "SympyGuard": "scoring._metrics.math",
    "accepted_answers": "scoring._metrics.exact",
    "aggregate": "scoring._report.aggregate",
    "answers_equal": "scoring._metrics.math",
    "boxed_contents": "scoring._metrics.extract.math",
    "choose_metric": "scoring._metrics.auto",
    "choose_metrics": "scoring._pipeline.score",
    "exact_match": "scoring._metrics.exact",
    "extract_choice": "scoring._metrics.extract.choice",
    "extract_math_answer": "scoring._metrics.extract.math",
    "extract_number": "scoring._metrics.extract.numeric",
    "extract_yes_no": "scoring._metrics.extract.choice",
    "item_from_record": "scoring._metrics.base",
    "math_credit": "scoring._metrics.math",
    "math_equal": "scoring._metrics.math",
    "normalize_text": "scoring._metrics.normalize",
    "option_letters": "scoring._metrics.extract.choice",
    "parse_choice_reference": "scoring._metrics.extract.choice",
    "parse_number": "scoring._metrics.normalize",
    "parse_yes_no": "scoring._metrics.extract.choice",
    "record_score": "scoring._report.aggregate",
    "reference_number": "scoring._metrics.extract.numeric",
    "score_choice": "scoring._metrics.choice",
    "score_exact": "scoring._metrics.exact",
    "score_math": "scoring._metrics.math",
    "score_records": "scoring._pipeline.score",
    "score_response": "scoring._pipeline.score",
    "strip_think": "scoring._metrics.normalize",
    "ChatClient": "scoring._client.http",
    "ChatResult": "scoring._client.http",
    "EndpointUnavailableError": "scoring._errors",
    "RecordOutcome": "scoring._runner.runner",
    "RunJob": "scoring._runner.job",
    "RunSummary": "scoring._runner.job",
    "Runner": "scoring._runner.runner",
    "FileScoreOutcome": "scoring._pipeline.score_file",
    "score_file": "scoring._pipeline.score_file",
    "Shard": "scoring._runner.shard",
    "merge_parts": "scoring._pipeline.merge",
    "MergeError": "scoring._errors",
    "AUTO": "scoring._metrics.registry",
    "metric_names": "scoring._metrics.registry",
    "DryRunPlan": "scoring._runner.job",
    "plan_file": "scoring._runner.run_file",
    "Estimate": "scoring._runner.estimate",
    "CHARS_PER_TOKEN": "scoring._runner.estimate",
    "MESSAGE_OVERHEAD": "scoring._runner.estimate",
    "Prices": "scoring._runner.estimate",
    "PricesError": "scoring._errors",
    "estimate_file": "scoring._runner.estimate_run",
    "estimate_evaluation": "scoring._pipeline.estimate_eval",
    "read_prices": "scoring._runner.estimate",
    "journal_path": "scoring._runner.journal",
    "make_progress": "scoring._runner.progress",
    "safe_command": "scoring._runner.provenance",
    "clean_api_key": "scoring._client.http",
    "public_url": "scoring._client.url",
    "check_base_url": "scoring._client.url",
    "JudgeCheck": "scoring._judge_check.check",
    "judge_check": "scoring._judge_check.check",
    "JudgeVerdict": "scoring._results",
    "judge_verdicts": "scoring._results",
    "review_fields": "scoring._pipeline.review",
}

__all__ = [
    "AUTO",
    "CHARS_PER_TOKEN",
    "MESSAGE_OVERHEAD",
    "METRICS",
    "RULE_METRICS",
    "Aggregate",
    "Aggregator",
    "ChatClient",
    "ChatResult",
    "ChoiceExtraction",
    "DatasetStats",
    "Dialect",
    "DryRunPlan",
    "EndpointOptions",
    "EndpointUnavailableError",
    "Estimate",
    "EvalOptions",
    "EvalOutcome",
    "FileScoreOutcome",
    "Item",
    "ItemScore",
    "JudgeCheck",
    "JudgeOptions",
    "JudgeUnavailableError",
    "JudgeVerdict",
    "Limits",
    "MergeError",
    "MetricChoice",
    "MetricError",
    "MetricSpec",
    "PanelJudge",
    "Prices",
    "PricesError",
    "RecordOutcome",
    "Repeat",
    "RetryPolicy",
    "RuleFunction",
    "RunJob",
    "RunOptions",
    "RunSummary",
    "Runner",
    "ScoreOptions",
    "ScoreOutcome",
    "Scorer",
    "Shard",
    "SympyGuard",
    "accepted_answers",
    "aggregate",
    "answers_equal",
    "boxed_contents",
    "check_base_url",
    "choose_metric",
    "choose_metrics",
    "clean_api_key",
    "collect_results",
    "distinct_files",
    "estimate_evaluation",
    "estimate_file",
    "evaluate",
    "exact_match",
    "extract_choice",
    "extract_math_answer",
    "extract_number",
    "extract_yes_no",
    "item_from_record",
    "journal_path",
    "judge_check",
    "judge_verdicts",
    "make_progress",
    "math_credit",
    "math_equal",
    "merge_parts",
    "metric_names",
    "normalize_text",
    "option_letters",
    "parse_choice_reference",
    "parse_number",
    "parse_yes_no",
    "plan_file",
    "public_url",
    "read_panel",
    "read_prices",
    "record_score",
    "reference_number",
    "review_fields",
    "run_file",
    "safe_command",
    "score_choice",
    "score_exact",
    "score_file",
    "score_math",
    "score_records",
    "score_response",
    "strip_think",
    "write_report",
]


__getattr__ = lazy_getattr(globals(), _LAZY)


if TYPE_CHECKING:
    from scoring._client.http import ChatClient, ChatResult, clean_api_key
    from scoring._client.options import Dialect, Limits, RetryPolicy
    from scoring._client.url import check_base_url, public_url
    from scoring._errors import EndpointUnavailableError, JudgeUnavailableError, MergeError, MetricError, PricesError
    from scoring._judge_check.check import JudgeCheck, judge_check
    from scoring._judges.options import JudgeOptions, PanelJudge
    from scoring._judges.panel_file import read_panel
    from scoring._metrics.auto import MetricChoice, choose_metric
    from scoring._metrics.base import Item, ItemScore, item_from_record
    from scoring._metrics.choice import score_choice
    from scoring._metrics.exact import accepted_answers, exact_match, score_exact
    from scoring._metrics.extract.choice import (
        ChoiceExtraction,
        extract_choice,
        extract_yes_no,
        option_letters,
        parse_choice_reference,
        parse_yes_no,
    )
    from scoring._metrics.extract.math import boxed_contents, extract_math_answer
    from scoring._metrics.extract.numeric import extract_number, reference_number
    from scoring._metrics.math import SympyGuard, answers_equal, math_credit, math_equal, score_math
    from scoring._metrics.normalize import normalize_text, parse_number, strip_think
    from scoring._metrics.registry import AUTO, METRICS, MetricSpec, RuleFunction, metric_names
    from scoring._pipeline.distinct_files import Repeat, distinct_files
    from scoring._pipeline.estimate_eval import estimate_evaluation
    from scoring._pipeline.evaluate import EvalOutcome, evaluate
    from scoring._pipeline.merge import merge_parts
    from scoring._pipeline.options import EvalOptions, ScoreOptions
    from scoring._pipeline.report_file import collect_results, write_report
    from scoring._pipeline.review import review_fields
    from scoring._pipeline.score import (
        RULE_METRICS,
        ScoreOutcome,
        Scorer,
        choose_metrics,
        score_records,
        score_response,
    )
    from scoring._pipeline.score_file import FileScoreOutcome, score_file
    from scoring._report.aggregate import Aggregate, Aggregator, DatasetStats, aggregate, record_score
    from scoring._results import JudgeVerdict, judge_verdicts
    from scoring._runner.estimate import (
        CHARS_PER_TOKEN,
        MESSAGE_OVERHEAD,
        Estimate,
        Prices,
        read_prices,
    )
    from scoring._runner.estimate_run import estimate_file
    from scoring._runner.job import DryRunPlan, RunJob, RunSummary
    from scoring._runner.journal import journal_path
    from scoring._runner.options import EndpointOptions, RunOptions
    from scoring._runner.progress import make_progress
    from scoring._runner.provenance import safe_command
    from scoring._runner.run_file import plan_file, run_file
    from scoring._runner.runner import RecordOutcome, Runner
    from scoring._runner.shard import Shard
