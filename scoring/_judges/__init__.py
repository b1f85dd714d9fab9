"""LLM judges: absolute score, CompassBench-style pairwise comparison, and the two-stage math judge.

The entry point is :func:`judge_records` (used by ``formatkit score --metric judge|pairwise|math-judge``)::

    outcome = judge_records(records, metric="pairwise", options=JudgeOptions(judge_base_url=..., judge_model=...))
    outcome.records   # the records, each judged response with score, analysis and judge (raw replies, usage)
    outcome.summary   # counts, verdict statistics, judge token totals

What each judged response gets: ``score`` (null when no verdict could be had), ``analysis`` (the judge's
reasoning, or why there is no score), and ``judge``::

    {"metric": "judge" | "pairwise" | "math-judge", "model": JUDGE_MODEL,
     "template": "builtin:absolute_zh" | "/path/of/--judge-template", "lang": "en" | "zh",
     "status": "scored" | "unparseable" | "request_failed" | "not_judged",
     "usage": {...judge tokens, summed over the calls for this response...},
     # judge:      "scale": "0-2", "reply": RAW, "verdict": {"score", "raw_score", "clamped"}
     # pairwise:   "against": "reference answer" | "response in OTHER.jsonl (...)",
     #             "orders": [{"order": "model_first", "reply": RAW, "choice": "A+", "value": 0.5, "analysis"},
     #                        {"order": "model_second", ...}],
     #             "combined": 0.5, "outcome": "win" | "tie" | "loss", "disagree": false
     # math-judge: "replies": {"extract": RAW, "grade": RAW}, "extracted": "1/2" | null,
     #             "verdict": {"score", "raw_score", "clamped"}
    }

Prompts: ``templates/{absolute,pairwise,math_extract,math_grade}_{en,zh}.txt`` with ``{{placeholder}}``
fields; ``--judge-template`` replaces the verdict-giving prompt (for math-judge, the grading stage).

Modules: ``templates`` (prompts, placeholders, fencing), ``parse`` (verdict parsers), ``verdicts``
(pairwise order combination), ``absolute`` / ``pairwise`` / ``math_judge`` (one response each),
``call`` (journaled judge requests), ``run`` (the driver), ``summary``.
"""

from scoring._errors import JudgeUnavailableError
from scoring._judges.run import METRICS, JudgeOutcome, JudgeSetupError, judge_records
from scoring._judges.summary import score_fraction, summary_lines
from scoring._judges.templates import TemplateError

__all__ = [
    "METRICS",
    "JudgeOutcome",
    "JudgeSetupError",
    "JudgeUnavailableError",
    "TemplateError",
    "judge_records",
    "score_fraction",
    "summary_lines",
]
