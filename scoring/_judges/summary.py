"""The judges' summary: how many responses were scored and how many could not be, the verdict statistics
of the metric, and the judge's token usage, totalled apart from the model's own.

Keys (every metric): ``responses`` (sent to the judge or checked for it), ``scored``, ``errors`` (not
scored for any reason), ``unparseable``, ``request_failed``, ``not_judged``, ``judge_usage``,
``model_usage``. Then:

- ``judge``: ``mean_score`` (on the scale), ``score_100`` (the mean mapped to 0-100), ``scale``;
- ``pairwise``: ``win``, ``tie``, ``loss``, ``mean_x100`` (mean combined verdict × 100, -100..100),
  ``pairs_both_orders``, ``disagreements`` and ``disagreement_rate`` (share of pairs whose two orders
  disagreed: position bias);
- ``math-judge``: ``strict_accuracy`` (share scoring 1.0) and ``loose_accuracy`` (mean score), both 0-100,
  over every response with a score.

And ``untagged``: how many responses' verdicts the judge gave outside the nonce tag its prompt asked for
(a template without ``{{nonce}}`` asks for none, and counts none).
"""

from __future__ import annotations

from typing import Any, TypedDict

from formatkit._core.record import RecordDict, ResponseDict
from scoring._judges.call import add_usage
from scoring._judges.inputs import target_turn
from scoring._judges.result import Judged
from scoring._judges.scale import Scale, parse_scale
from scoring._judges.verdicts import count_pairwise

__all__ = ["FallbackCounts", "JudgeSummary", "score_fraction", "summarize", "summary_lines"]


class FallbackCounts(TypedDict):
    """``--judge-fallback``: responses sent to the judge, and those the math rules settled."""

    judged: int
    settled_by_rules: int


class JudgeSummary(TypedDict, total=False):
    """The judges' summary (the keys above; empty when no judge was used). :func:`summarize` writes the
    counts and the metric's statistics; the judge run adds the judge model, what was bought and reused,
    and the fallback counts."""

    metric: str
    responses: int
    scored: int
    errors: int
    unparseable: int
    request_failed: int
    not_judged: int
    scale: str
    mean_score: float | None
    score_100: float | None
    win: int
    tie: int
    loss: int
    mean_x100: float | None
    pairs_both_orders: int
    disagreements: int
    disagreement_rate: float | None
    strict_accuracy: float | None
    loose_accuracy: float | None
    untagged: int
    judge_usage: dict[str, int]
    model_usage: dict[str, int]
    judge_model: str
    judge_requests: int
    judge_reused: int
    fallback: FallbackCounts


def score_fraction(response: ResponseDict) -> float | None:
    """A response's score as a fraction for aggregation (x100 gives the 0-100 dataset scale).

    An absolute judge's score is mapped from its scale (``response["judge"]["scale"]``, e.g. 2 on 0-2 is
    1.0); a pairwise score is the combined verdict as is (-1..1, so x100 is the "mean x100" of the
    report); every other score is returned unchanged. None when the response has no score.
    """
    score = response.get("score")
    if not isinstance(score, (int, float)) or isinstance(score, bool):
        return None
    judge = response.get("judge")
    if isinstance(judge, dict) and judge.get("metric") == "judge" and isinstance(judge.get("scale"), str):
        try:
            scale = parse_scale(judge["scale"])
        except ValueError:
            return float(score)
        return (float(score) - scale.low) / (scale.high - scale.low)
    return float(score)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2) + 0.0  # + 0.0: never -0.0 (a mean of -1e-17)


def _model_usage(records: list[RecordDict]) -> dict[str, int]:
    total: dict[str, int] = {}
    for record in records:
        try:
            responses = target_turn(record).get("responses") or []
        except ValueError:
            continue
        for response in responses:
            if isinstance(response, dict) and isinstance(response.get("usage"), dict):
                add_usage(total, response["usage"])
    return total


def _untagged(judged: Judged) -> bool:
    """Whether the judge gave a verdict of this response outside the request's nonce tag."""
    verdict = judged.details.get("verdict")
    if isinstance(verdict, dict) and verdict.get("tagged") is False:
        return True
    orders = judged.details.get("orders")
    return isinstance(orders, list) and any(isinstance(o, dict) and o.get("tagged") is False for o in orders)


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
    scores = [j.score for j in results if j.status == "scored" and j.score is not None]
    if metric == "judge":
        span = scale.high - scale.low
        summary["scale"] = str(scale)
        summary["mean_score"] = _round(_mean(scores))
        summary["score_100"] = _round(_mean([(s - scale.low) / span * 100 for s in scores]))
    elif metric == "pairwise":
        counts: dict[str, int] = {}
        for judged in results:  # the response's judge entry, as the report reads it back
            count_pairwise({"status": judged.status, **judged.details}, counts)
        summary["win"], summary["tie"], summary["loss"] = (counts.get(k, 0) for k in ("win", "tie", "loss"))
        mean = _mean(scores)
        summary["mean_x100"] = _round(None if mean is None else mean * 100)
        both, disagreements = counts.get("both_orders", 0), counts.get("disagreements", 0)
        summary["pairs_both_orders"] = both
        summary["disagreements"] = disagreements
        summary["disagreement_rate"] = _round(disagreements / both) if both else None
    elif metric == "math-judge":
        all_scores: list[float] = []
        for record in records:
            try:
                responses: list[Any] = target_turn(record).get("responses") or []
            except ValueError:
                continue
            all_scores += [r["score"] for r in responses if isinstance(r, dict) and r.get("score") is not None]
        summary["strict_accuracy"] = _round(_mean([100.0 if s >= 1.0 else 0.0 for s in all_scores]))
        summary["loose_accuracy"] = _round(_mean([s * 100 for s in all_scores]))
    summary["untagged"] = sum(_untagged(j) for j in results)
    summary["judge_usage"] = judge_usage
    summary["model_usage"] = _model_usage(records)
    return summary


def _num(value: Any) -> str:
    return "—" if not isinstance(value, (int, float)) else f"{round(value, 2) + 0.0:.2f}"


def summary_lines(summary: JudgeSummary) -> list[str]:
    """The judges' summary for people (the text report): what the verdicts say, and what could not be had.

    Pairwise: mean x100, win/tie/loss and how often the two orders disagreed; absolute: the mean on the
    scale; math-judge: strict and loose accuracy. Then the responses without a verdict by cause, and the
    judge requests bought against those reused from the journal.
    """
    metric = summary.get("metric")
    model = summary.get("judge_model") or "?"
    responses = int(summary.get("responses") or 0)
    scored = int(summary.get("scored") or 0)
    head = f"Judge {model} ({metric}): {scored} of {responses} response(s) scored"
    if metric == "judge":
        head += f", mean {_num(summary.get('mean_score'))} on {summary.get('scale')}"
        head += f" ({_num(summary.get('score_100'))} of 100)"
    elif metric == "pairwise":
        head += (
            f"; mean ×100 {_num(summary.get('mean_x100'))}; win {summary.get('win', 0)}, "
            f"tie {summary.get('tie', 0)}, loss {summary.get('loss', 0)}"
        )
        pairs = int(summary.get("pairs_both_orders") or 0)
        if pairs:
            disagreements = int(summary.get("disagreements") or 0)
            head += (
                f"; the two orders disagreed on {disagreements} of {pairs} pair(s) ({disagreements / pairs * 100:.1f}%)"
            )
    elif metric == "math-judge":
        head += (
            f"; strict accuracy {_num(summary.get('strict_accuracy'))}, "
            f"loose accuracy {_num(summary.get('loose_accuracy'))}"
        )
    lines = [head]
    fallback = summary.get("fallback")
    if isinstance(fallback, dict):
        lines.append(
            f"  sent to the judge: {fallback.get('judged', 0)} response(s) the math rules could not settle; "
            f"{fallback.get('settled_by_rules', 0)} settled by the rules"
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
    lines.append(
        f"  judge requests: {summary.get('judge_requests', 0)} bought, "
        f"{summary.get('judge_reused', 0)} reused from the journal"
    )
    return lines
