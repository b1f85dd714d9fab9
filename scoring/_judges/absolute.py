"""The absolute judge (``--metric judge``): question (with its history), reference and response in; a
score on the scale out. :data:`ABSOLUTE` is its entry of the judge kinds' table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from formatkit._core.record import RecordDict, ResponseDict
from scoring._judges.call import Ask, CallFailed, add_usage, failure_text
from scoring._judges.inputs import conversation_text, reference_text
from scoring._judges.kinds import Case, JudgeKind, SummaryKeys
from scoring._judges.parse import UnparseableReply, parse_absolute
from scoring._judges.prompts import Prompts
from scoring._judges.result import Judged, not_judged
from scoring._judges.scale import Scale
from scoring._judges.summary import mean_of, rounded, scored_values, shown
from scoring._judges.templates import Stage, neutralize

__all__ = ["ABSOLUTE", "judge_absolute"]


async def judge_absolute(
    ask: Ask, record: RecordDict, response: ResponseDict, *, prompts: Prompts, scale: Scale
) -> Judged:
    content = response.get("content")
    if not isinstance(content, str):
        error = response.get("error")
        return not_judged(f"the response has no content{f' (inference error: {error})' if error else ''}")
    reference = reference_text(record)
    if reference is None:
        return not_judged("the record has no reference answer to judge against")
    template, lang = prompts.get("absolute", record)
    if not content.strip():
        return Judged(
            score=scale.low,
            analysis="empty reply: an empty answer is a wrong answer (the judge was not asked)",
            status="scored",
            details={"verdict": None},
            template=template.source,
            lang=lang,
        )
    prompt, nonce = template.prompt(
        {
            "question": conversation_text(record, lang),
            "reference": reference,
            "response": neutralize(content),
            "scale_min": scale.label(scale.low),
            "scale_max": scale.label(scale.high),
        }
    )
    judged = Judged(score=None, analysis="", status="scored", template=template.source, lang=lang)
    judged.details["scale"] = str(scale)
    try:
        reply = await ask(prompt)
    except CallFailed as exc:
        judged.status, judged.analysis = "request_failed", failure_text(exc)
        return judged
    add_usage(judged.usage, reply.usage)
    judged.details["reply"] = reply.content
    try:
        verdict = parse_absolute(reply.content, scale, nonce=nonce, quoted=[content, neutralize(content)])
    except UnparseableReply as exc:
        judged.status, judged.analysis = "unparseable", f"judge reply has no verdict: {reply.no_verdict(exc.reason)}"
        return judged
    judged.score = verdict.score
    judged.answer = scale.label(verdict.score)
    judged.details["verdict"] = {
        "score": verdict.score,
        "raw_score": verdict.raw_score,
        "tagged": verdict.tagged if nonce else None,
    }
    judged.analysis = verdict.analysis or "(the judge gave no analysis)"
    return judged


async def _judge(ask: Ask, case: Case) -> Judged:
    return await judge_absolute(ask, case.record, case.response, prompts=case.prompts, scale=case.scale)


def _summarise(records: list[RecordDict], results: list[Judged], scale: Scale) -> SummaryKeys:
    """``scale``, ``mean_score`` (on the scale) and ``score_100`` (the mean mapped to 0-100)."""
    scores = scored_values(results)
    span = scale.high - scale.low
    return {
        "scale": str(scale),
        "mean_score": rounded(mean_of(scores)),
        "score_100": rounded(mean_of([(s - scale.low) / span * 100 for s in scores])),
    }


def _headline(summary: Mapping[str, Any]) -> str:
    head = f", mean {shown(summary.get('mean_score'))} on {summary.get('scale')}"
    return head + f" ({shown(summary.get('score_100'))} of 100)"


ABSOLUTE = JudgeKind(
    stages=(
        Stage(
            "absolute",
            required=frozenset({"question", "reference", "response"}),
            optional=frozenset({"scale_min", "scale_max", "nonce"}),
        ),
    ),
    judge=_judge,
    summarise=_summarise,
    headline=_headline,
    on_scale=True,
)
