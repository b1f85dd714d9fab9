"""LLM judges: absolute score, CompassBench-style pairwise comparison, and the two-stage math judge.

The entry point is :func:`judge_records` (used by ``formatkit score --metric judge|pairwise|math-judge``)::

    outcome = judge_records(records, metric="pairwise", options=JudgeOptions(judge_base_url=..., judge_model=...))
    outcome.records   # the records, each judged response with score, analysis and judge (raw replies, usage)
    outcome.summary   # counts, verdict statistics, judge token totals

Modules: ``templates`` (prompts, placeholders, fencing), ``parse`` (verdict parsers), ``verdicts``
(pairwise order combination), ``absolute`` / ``pairwise`` / ``math_judge`` (one response each),
``call`` (journaled judge requests), ``run`` (the driver), ``summary``.
"""

from scoring.judges.run import METRICS, JudgeOutcome, JudgeSetupError, judge_records
from scoring.judges.summary import score_fraction
from scoring.judges.templates import TemplateError

__all__ = ["METRICS", "JudgeOutcome", "JudgeSetupError", "TemplateError", "judge_records", "score_fraction"]
