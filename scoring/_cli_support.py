"""What the command line needs of scoring beyond its public face, in one private module.

The CLI is a client of the public faces (``scoring``, ``scoring.errors``, ``scoring.report``); what only a
command line does is kept out of them (a public name is a promise to callers) and gathered here, the one
private module of scoring the CLI may import (pyproject.toml's import-linter contract names it): the
``--dry-run`` plan, the journal beside an output, the progress bar, the command line recorded without its
secrets, the API key and base URL checked and shown without credentials, the metric names ``--metric``
offers, the estimate's figures for ``--help``, and the text report's helpers. Loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from formatkit._lazy import lazy_getattr

_EXPORTS = {
    "judge_calibration": "scoring._judge_check.check",
    "AUTO": "scoring._metrics.registry",
    "metric_names": "scoring._metrics.registry",
    "CHARS_PER_TOKEN": "scoring._runner.estimate",
    "MESSAGE_OVERHEAD": "scoring._runner.estimate",
    "DryRunPlan": "scoring._runner.job",
    "RunJob": "scoring._runner.job",
    "plan_file": "scoring._runner.run_file",
    "journal_path": "scoring._runner.journal",
    "make_progress": "scoring._runner.progress",
    "safe_command": "scoring._runner.provenance",
    "clean_api_key": "scoring._client.http",
    "check_base_url": "scoring._client.url",
    "public_url": "scoring._client.url",
    "SAMPLE_FORMATS": "scoring._pipeline.report_file",
    "judge_summary_lines": "scoring._judges:summary_lines",
    "terminal_width": "scoring._report.render.leaderboard",
    "repeated_judge": "scoring._judges.panel_file",
}

__all__ = [
    "AUTO",
    "CHARS_PER_TOKEN",
    "MESSAGE_OVERHEAD",
    "SAMPLE_FORMATS",
    "DryRunPlan",
    "RunJob",
    "check_base_url",
    "clean_api_key",
    "journal_path",
    "judge_calibration",
    "judge_summary_lines",
    "make_progress",
    "metric_names",
    "plan_file",
    "public_url",
    "repeated_judge",
    "safe_command",
    "terminal_width",
]

__getattr__ = lazy_getattr(globals(), _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from scoring._client.http import clean_api_key
    from scoring._client.url import check_base_url, public_url
    from scoring._judge_check.check import judge_calibration
    from scoring._judges import summary_lines as judge_summary_lines
    from scoring._judges.panel_file import repeated_judge
    from scoring._metrics.registry import AUTO, metric_names
    from scoring._pipeline.report_file import SAMPLE_FORMATS
    from scoring._report.render.leaderboard import terminal_width
    from scoring._runner.estimate import CHARS_PER_TOKEN, MESSAGE_OVERHEAD
    from scoring._runner.job import DryRunPlan, RunJob
    from scoring._runner.journal import journal_path
    from scoring._runner.progress import make_progress
    from scoring._runner.provenance import safe_command
    from scoring._runner.run_file import plan_file
