"""The pairwise judge: the model's response against an opponent (the reference, or another model's
response), judged in both orders, the two verdicts combined (see :mod:`scoring._judges.verdicts`).
:data:`PAIRWISE` is its entry of the judge kinds' table."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from formatkit._core.judge_entry import JudgeEntry, OrderEntry, text_fingerprint
from formatkit._core.record import RecordDict, ResponseDict
from scoring._judges.call import Ask, CallFailed, Reply, add_usage, failure_text
from scoring._judges.inputs import checklist_text, conversation_text
from scoring._judges.kinds import Case, JudgeKind, SummaryKeys
from scoring._judges.parse import PairwiseVerdict, UnparseableReply, parse_pairwise
from scoring._judges.prompts import Prompts
from scoring._judges.result import Judged, not_judged
from scoring._judges.scale import Scale
from scoring._judges.summary import mean_of, rounded, scored_values, shown
from scoring._judges.templates import Stage, neutralize
from scoring._judges.verdicts import CHOICE_VALUE, Order, combine, count_pairwise, model_side, outcome

__all__ = ["PAIRWISE", "judge_pairwise"]

_ORDERS: tuple[Order, Order] = ("model_first", "model_second")


def _empty_result(model_empty: bool, other_empty: bool) -> tuple[float, str]:
    if model_empty and other_empty:
        return 0.0, "both replies are empty: a tie (the judge was not asked)"
    if model_empty:
        return -1.0, "empty reply: an empty answer loses to any answer (the judge was not asked)"
    return 1.0, "the opponent's reply is empty: any answer beats it (the judge was not asked)"


async def judge_pairwise(
    ask: Ask,
    record: RecordDict,
    response: ResponseDict,
    opponent: str | None,
    *,
    opponent_label: str,
    prompts: Prompts,
) -> Judged:
    """``opponent`` is the text the response is compared with; None when there is none (``opponent_label``
    says what it should have been, e.g. "reference answer")."""
    content = response.get("content")
    if not isinstance(content, str):
        error = response.get("error")
        return not_judged(f"the response has no content{f' (inference error: {error})' if error else ''}")
    if opponent is None:
        return not_judged(f"no {opponent_label} to compare with")
    template, lang = prompts.get("pairwise", record)
    details: JudgeEntry = {"against": opponent_label, "opponent_fingerprint": text_fingerprint(opponent)}
    if not content.strip() or not opponent.strip():
        score, why = _empty_result(not content.strip(), not opponent.strip())
        details.update({"combined": score, "outcome": outcome(score), "disagree": False, "orders": []})
        return Judged(score, why, "scored", details, template=template.source, lang=lang)

    question = conversation_text(record, lang)
    checklist = checklist_text(record, lang)
    mine, theirs = neutralize(content), neutralize(opponent)
    prompts_by_order = {
        "model_first": template.prompt(
            {"question": question, "response_a": mine, "response_b": theirs, "checklist": checklist}
        ),
        "model_second": template.prompt(
            {"question": question, "response_a": theirs, "response_b": mine, "checklist": checklist}
        ),
    }
    replies = await asyncio.gather(*(ask(prompts_by_order[o][0]) for o in _ORDERS), return_exceptions=True)

    judged = Judged(score=None, analysis="", status="scored", details=details, template=template.source, lang=lang)
    orders: list[OrderEntry] = []
    verdicts: dict[Order, PairwiseVerdict] = {}
    problems: list[str] = []
    failed = False
    for order, reply in zip(_ORDERS, replies, strict=True):
        item: OrderEntry = {"order": order}
        orders.append(item)
        if isinstance(reply, CallFailed):
            failed = True
            item["error"] = failure_text(reply)
            problems.append(f"{order}: {failure_text(reply)}")
            continue
        if not isinstance(reply, Reply):
            raise reply
        add_usage(judged.usage, reply.usage)
        item["reply"] = reply.content
        try:
            verdict = parse_pairwise(
                reply.content, nonce=prompts_by_order[order][1], quoted=[content, opponent, mine, theirs]
            )
        except UnparseableReply as exc:
            item["error"] = why = reply.no_verdict(exc.reason)
            problems.append(f"{order}: judge reply has no verdict: {why}")
            continue
        verdicts[order] = verdict
        item.update(
            {
                "choice": verdict.choice,
                "value": model_side(verdict.choice, order),
                "analysis": verdict.analysis,
                "tagged": verdict.tagged if prompts_by_order[order][1] else None,
            }
        )
    details["orders"] = orders

    if problems:
        judged.status = "request_failed" if failed else "unparseable"
        judged.analysis = "no combined verdict: " + "; ".join(problems)
        return judged
    combined = combine(verdicts["model_first"].choice, verdicts["model_second"].choice)
    judged.score = combined.score
    judged.answer = f"{verdicts['model_first'].choice}/{verdicts['model_second'].choice}"
    details.update({"combined": combined.score, "outcome": combined.outcome, "disagree": combined.disagree})
    first, second = verdicts["model_first"], verdicts["model_second"]
    lines = [
        f"model as A: {first.choice} ({CHOICE_VALUE[first.choice]:+g} for the model) — {first.analysis}",
        f"model as B: {second.choice} ({-CHOICE_VALUE[second.choice]:+g} for the model) — {second.analysis}",
        f"combined {combined.score:+g} ({combined.outcome})"
        + ("; the two orders disagree (position bias)" if combined.disagree else ""),
    ]
    judged.analysis = "\n".join(lines)
    return judged


async def _judge(ask: Ask, case: Case) -> Judged:
    opponent, label = case.opponent()
    return await judge_pairwise(ask, case.record, case.response, opponent, opponent_label=label, prompts=case.prompts)


def _summarise(records: list[RecordDict], results: list[Judged], scale: Scale) -> SummaryKeys:
    """``win``, ``tie``, ``loss``, ``mean_x100``, ``pairs_both_orders``, ``disagreements`` and
    ``disagreement_rate``."""
    counts: dict[str, int] = {}
    for judged in results:  # the response's judge entry, as the report reads it back
        count_pairwise({**judged.details, "status": judged.status}, counts)
    summary: SummaryKeys = {key: counts.get(key, 0) for key in ("win", "tie", "loss")}
    mean = mean_of(scored_values(results))
    summary["mean_x100"] = rounded(None if mean is None else mean * 100)
    both, disagreements = counts.get("both_orders", 0), counts.get("disagreements", 0)
    summary["pairs_both_orders"] = both
    summary["disagreements"] = disagreements
    summary["disagreement_rate"] = rounded(disagreements / both) if both else None
    return summary


def _headline(summary: Mapping[str, Any]) -> str:
    head = (
        f"; mean ×100 {shown(summary.get('mean_x100'))}; win {summary.get('win', 0)}, "
        f"tie {summary.get('tie', 0)}, loss {summary.get('loss', 0)}"
    )
    pairs = int(summary.get("pairs_both_orders") or 0)
    if pairs:
        disagreements = int(summary.get("disagreements") or 0)
        head += f"; the two orders disagreed on {disagreements} of {pairs} pair(s) ({disagreements / pairs * 100:.1f}%)"
    return head


PAIRWISE = JudgeKind(
    stages=(Stage("pairwise", required=frozenset({"question", "response_a", "response_b", "checklist"})),),
    judge=_judge,
    summarise=_summarise,
    headline=_headline,
    versus=True,
)
