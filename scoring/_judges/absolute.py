"""The absolute judge: question (with its history), reference and response in; a score on the scale out."""

from __future__ import annotations

from formatkit._core.record import RecordDict, ResponseDict
from scoring._judges.call import Ask, CallFailed, add_usage, failure_text
from scoring._judges.inputs import conversation_text, reference_text
from scoring._judges.parse import UnparseableReply, parse_absolute
from scoring._judges.prompts import Prompts
from scoring._judges.result import Judged, not_judged
from scoring._judges.scale import Scale
from scoring._judges.templates import neutralize

__all__ = ["judge_absolute"]


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
        "clamped": verdict.clamped,
        "tagged": verdict.tagged if nonce else None,
    }
    analysis = verdict.analysis or "(the judge gave no analysis)"
    if verdict.clamped:
        analysis += f" [judge score {scale.label(verdict.raw_score)} clamped to the {scale} scale]"
    judged.analysis = analysis
    return judged
