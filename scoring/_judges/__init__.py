"""LLM judges: absolute score, CompassBench-style pairwise comparison, and the two-stage math judge.

The entry point is :func:`judge_records` (used by ``formatkit score --metric judge|pairwise|math-judge``)::

    outcome = judge_records(records, metric="pairwise", options=JudgeOptions(judge_base_url=..., judge_model=...))
    outcome.records   # the records, each judged response with score, analysis and judge (raw replies, usage)
    outcome.summary   # counts, verdict statistics, judge token totals

What each judged response gets: ``score`` (null when no verdict could be had), ``analysis`` (the judge's
reasoning, or why there is no score), the data fields ``metric`` (``judge``/``pairwise``/``math-judge``),
``answer`` (what the verdict says: ``"2"`` on the scale, ``"A+/B+"`` for the two pairwise orders, the math
judge's extracted answer), ``settled`` (false with ``unsettled_reason`` when the judge gave no verdict), and
``judge`` (typed, and read only through its accessors, in :mod:`formatkit._core.judge_entry`)::

    {"metric": "judge" | "pairwise" | "math-judge", "model": JUDGE_MODEL,
     "template": "builtin:absolute_zh" | "/path/of/--judge-template", "lang": "en" | "zh",
     "status": "scored" | "unparseable" | "request_failed" | "not_judged",
     "usage": {...judge tokens, summed over the calls for this response...},
     # judge:      "scale": "0-2", "reply": RAW, "verdict": {"score", "raw_score", "tagged"}
     # pairwise:   "against": "reference answer" | "response in OTHER.jsonl (...)",
     #             "orders": [{"order": "model_first", "reply": RAW, "choice": "A+", "value": 0.5, "analysis"},
     #                        {"order": "model_second", ...}],
     #             "combined": 0.5, "outcome": "win" | "tie" | "loss", "disagree": false
     # math-judge: "replies": {"extract": RAW, "grade": RAW}, "extracted": "1/2" | null,
     #             "verdict": {"score", "raw_score", "tagged"}
    }

Prompts: ``templates/{absolute,pairwise,math_extract,math_grade}_{en,zh}.txt`` with ``{{placeholder}}``
fields; ``--judge-template`` replaces the verdict-giving prompt (for math-judge, the grading stage). The
prompt's language follows the whole conversation. Each prompt asks for its verdict inside a tag with a
per-request nonce (``<verdict-{{nonce}}>``), which the judged text cannot forge (``tagged`` in the verdict
says the judge used it); see :mod:`scoring._judges.parse` for what counts when a judge ignores it.

Stopping: when the judge endpoint cannot serve (its first requests all fail alike, or a gateway says its
backend is unreachable; :mod:`scoring._judges.stop`), :class:`JudgeUnavailableError` says why and what to
check, with what was bought kept in the journal.

Modules: ``templates`` (prompts, placeholders, nonce, fencing), ``reasoning`` (the judge's leading
``<think>``), ``parse`` (verdict parsers), ``verdicts`` (pairwise order combination and counts),
``kinds`` (the table of judge kinds: what each judge metric asks, parses, sums up and how the report
aggregates it), ``absolute`` / ``pairwise`` / ``math_judge`` (one response each, and each one's entry of
that table), ``call`` (journaled judge requests), ``stop`` (when the endpoint cannot serve), ``run`` (the
driver), ``summary``, ``fallback``.
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
