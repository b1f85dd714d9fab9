"""The judges' summary: how many responses were scored and how many could not be, the verdict statistics
of the metric, and the judge's token usage, totalled apart from the model's own.

Keys (every metric): ``responses`` (sent to the judge or checked for it), ``scored``, ``errors`` (not
scored for any reason), ``unparseable``, ``request_failed``, ``not_judged``, ``judge_usage``,
``model_usage``. Then each judge kind's own keys (its ``summarise``, see :mod:`scoring._judges.kinds`):

- ``judge``: ``mean_score`` (on the scale), ``score_100`` (the mean mapped to 0-100), ``scale``;
- ``pairwise``: ``win``, ``tie``, ``loss``, ``mean_x100`` (mean combined verdict × 100, -100..100),
  ``pairs_both_orders``, ``disagreements`` and ``disagreement_rate`` (share of pairs whose two orders
  disagreed: position bias);
- ``math-judge``: ``strict_accuracy`` (share scoring 1.0) and ``loose_accuracy`` (mean score), both 0-100,
  over every response with a score.

With a panel (several judges, repeats, escalation), ``panel``: the judges' agreement, each judge's void
rate, self-consistency and position flips, and what escalation asked (see :mod:`scoring._judges.panel_stats`).

And ``untagged``: how many responses' verdicts the judge gave outside the nonce tag its prompt asked for
(a template without ``{{nonce}}`` asks for none, and counts none).
"""

from __future__ import annotations

from typing import Any

from formatkit._core.judge_entry import judge_entry, untagged
from formatkit._core.record import JsonObject, RecordDict, ResponseDict, target_responses
from scoring._judges.call import add_usage
from scoring._judges.kinds import JudgeKind, judge_kind, kind_of
from scoring._judges.options import JudgeOptions
from scoring._judges.panel_stats import PanelTally, panel_lines
from scoring._judges.result import Judged
from scoring._judges.scale import Scale

__all__ = [
    "JudgeSummary",
    "mean_of",
    "panel_summary",
    "rounded",
    "score_fraction",
    "scored_values",
    "shown",
    "summarize",
    "summary_lines",
]

#: The judges' summary: the counts above, the judge kind's own keys (:attr:`JudgeKind.summarise
#: <scoring._judges.kinds.JudgeKind.summarise>`) and the judge run's (``judge_model``, ``judge_requests``,
#: ``judge_reused``, ``fallback``). Open by design (a new judge kind brings its own keys): a JSON object.
JudgeSummary = JsonObject


def score_fraction(response: ResponseDict) -> float | None:
    """A response's score as a fraction for aggregation (x100 gives the 0-100 dataset scale).

    An absolute judge's score is mapped from its scale (``response["judge"]["scale"]``, e.g. 2 on 0-2 is
    1.0); a pairwise score is the combined verdict as is (-1..1, so x100 is the "mean x100" of the
    report); every other score is returned unchanged. None when the response has no score.
    """
    score = response.get("score")
    if not isinstance(score, (int, float)) or isinstance(score, bool):
        return None
    judge = judge_entry(response)
    kind = kind_of(judge)
    if kind is not None and judge is not None:
        return float(kind.fraction(score, judge))
    return float(score)


def mean_of(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def rounded(value: float | None) -> float | None:
    """Two decimals for the summary JSON."""
    return None if value is None else round(value, 2) + 0.0  # + 0.0: never -0.0 (a mean of -1e-17)


def scored_values(results: list[Judged]) -> list[float]:
    """The scores of the responses the judge gave a verdict."""
    return [j.score for j in results if j.status == "scored" and j.score is not None]


def _model_usage(records: list[RecordDict]) -> dict[str, int]:
    total: dict[str, int] = {}
    for record in records:
        for response in target_responses(record):
            if isinstance(response, dict) and isinstance(response.get("usage"), dict):
                add_usage(total, response["usage"])
    return total


def summarize(records: list[RecordDict], results: list[Judged], metric: str, *, scale: Scale) -> JudgeSummary:
    judge_usage: dict[str, int] = {}
    for judged in results:
        add_usage(judge_usage, judged.usage)
    statuses = [j.status for j in results]
    summary: JudgeSummary = {
        "metric": metric,
        "responses": len(results),
        "scored": statuses.count("scored"),
        "errors": len(results) - statuses.count("scored"),
        "unparseable": statuses.count("unparseable"),
        "request_failed": statuses.count("request_failed"),
        "not_judged": statuses.count("not_judged"),
    }
    kind = judge_kind(metric)
    if kind is not None:
        summary.update(kind.summarise(records, results, scale))
    summary["untagged"] = sum(untagged(j.details) for j in results)
    summary["judge_usage"] = judge_usage
    summary["model_usage"] = _model_usage(records)
    return summary


def panel_summary(records: list[RecordDict], models: list[str], options: JudgeOptions, kind: JudgeKind) -> JsonObject:
    """The panel's figures over every judged response of ``records`` (the judges in panel order)."""
    tally = PanelTally()
    tally.expect(models)
    for record in records:
        for response in target_responses(record):
            entry = judge_entry(response) if isinstance(response, dict) else None
            if entry is not None:
                tally.add(entry)
    tally.aggregate = "escalate" if options.judge_escalate else options.judge_aggregate
    tally.nominal = kind.versus
    return tally.to_dict()


def shown(value: Any) -> str:
    """A summary figure for people: two decimals, or a dash when there is none."""
    return "—" if not isinstance(value, (int, float)) else f"{round(value, 2) + 0.0:.2f}"


def summary_lines(summary: JudgeSummary) -> list[str]:
    """The judges' summary for people (the text report): what the verdicts say, and what could not be had.

    The judge kind's figures (its ``headline``: pairwise, mean x100, win/tie/loss and how often the two
    orders disagreed; absolute, the mean on the scale; math-judge, strict and loose accuracy). Then the
    responses without a verdict by cause, and the judge requests bought against those reused from the journal.
    """
    metric = summary.get("metric")
    model = summary.get("judge_model") or "?"
    responses = int(summary.get("responses") or 0)
    scored = int(summary.get("scored") or 0)
    head = f"Judge {model} ({metric}): {scored} of {responses} response(s) scored"
    kind = judge_kind(metric) if isinstance(metric, str) else None
    if kind is not None:
        head += kind.headline(summary)
    lines = [head]
    fallback = summary.get("fallback")
    if isinstance(fallback, dict):
        lines.append(
            f"  sent to the judge: {fallback.get('judged', 0)} response(s) the math rules could not settle; "
            f"{fallback.get('settled_by_rules', 0)} settled by the rules"
        )
    undecided = summary.get("undecided")
    if isinstance(undecided, dict):
        why = ", ".join(
            f"{n} {reason.replace('_', ' ')}"
            for reason, n in undecided.items()
            if reason not in ("judged", "settled_by_rules")
        )
        lines.append(
            f"  sent to the judge by auto: {undecided.get('judged', 0)} response(s) the rules could not settle"
            + (f" ({why})" if why else "")
            + f"; {undecided.get('settled_by_rules', 0)} settled by the rules"
        )
    causes = [
        (
            summary.get("unparseable", 0),
            "void verdict(s): judge reply with no readable verdict (the raw reply is kept in the judge field)",
        ),
        (summary.get("request_failed", 0), "judge request failed"),
        (summary.get("not_judged", 0), "not judged (no content, reference or opponent)"),
    ]
    missing = [f"{count} {what}" for count, what in causes if count]
    if missing:
        lines.append("  no verdict: " + "; ".join(missing))
    untagged = int(summary.get("untagged") or 0)
    if untagged:
        lines.append(
            f"  {untagged} verdict(s) given outside the request's nonce tag: that judge ignores the tag it is "
            "asked for, so a verdict planted in a response is refused (no score) rather than excluded by the tag"
        )
    panel = summary.get("panel")
    if isinstance(panel, dict):
        lines += ["  " + line for line in panel_lines(panel)]
    lines.append(
        f"  judge requests: {summary.get('judge_requests', 0)} bought, "
        f"{summary.get('judge_reused', 0)} reused from the journal"
    )
    return lines
