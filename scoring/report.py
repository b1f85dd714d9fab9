"""Reports as the command line prints and writes them, for a caller that wants the same text::

    from scoring import collect_results
    from scoring.report import render_report
    collected = collect_results(["a.jsonl", "b.jsonl"])
    print(render_report(collected, "text", width=100))

Several models: ``collected.comparison.ratings`` (Bradley–Terry, logit scale), ``.pairs`` (every pair per
scope, Bonferroni-corrected), ``.tiers`` (the models sharing a rank) and ``.power`` (each dataset's minimum
detectable difference); the figures alone: :func:`min_detectable_difference`, :func:`holm`, and
:func:`diff_text` for how two answers differ.

Names are loaded on first use (the report's renderers bring jinja2 and friends).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from formatkit._lazy import lazy_getattr

_EXPORTS = {
    "CollectedResults": "scoring._pipeline.report_file",
    "render_report": "scoring._pipeline.report_file",
    "save_report": "scoring._pipeline.report_file",
    "render_summary": "scoring._report.render.summary:render",
    "diff_text": "scoring._report.figures.diff",
    "holm": "scoring._report.figures.multiple",
    "min_detectable_difference": "scoring._report.figures.power",
    "render_judge_check": "scoring._judge_check.text",
}

__all__ = [
    "CollectedResults",
    "diff_text",
    "holm",
    "min_detectable_difference",
    "render_judge_check",
    "render_report",
    "render_summary",
    "save_report",
]

__getattr__ = lazy_getattr(globals(), _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from scoring._judge_check.text import render_judge_check
    from scoring._pipeline.report_file import (
        CollectedResults,
        render_report,
        save_report,
    )
    from scoring._report.figures.diff import diff_text
    from scoring._report.figures.multiple import holm
    from scoring._report.figures.power import min_detectable_difference
    from scoring._report.render.summary import render as render_summary
