"""The two-stage math judge: (1) extract the final answer from the response, (2) grade it against the
reference to ``<score>x</score>`` with partial credit. No answer found is a wrong answer (score 0), not
an error; proof and drawing items are accepted with 1.0 without asking, flagged in the analysis.
:data:`MATH_JUDGE` is its entry of the judge kinds' table (and ``--metric math --judge-fallback``'s judge)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from formatkit._core.record import RecordDict, ResponseDict, reference_of, target_responses
from scoring._judges.call import Ask, CallFailed, add_usage, failure_text
from scoring._judges.inputs import conversation_text, reference_text
from scoring._judges.kinds import Case, JudgeKind, SummaryKeys
from scoring._judges.parse import UnparseableReply, parse_extraction, parse_math_grade
from scoring._judges.prompts import Prompts
from scoring._judges.result import Judged, not_judged
from scoring._judges.scale import Scale
from scoring._judges.summary import mean_of, rounded, shown
from scoring._judges.templates import Stage, neutralize

__all__ = ["MATH_JUDGE", "PROOF_TYPES", "judge_math"]

#: ``meta.question_type`` values that mark proof and drawing items.
PROOF_TYPES = frozenset({"proof", "drawing", "证明", "证明题", "作图", "作图题", "画图", "画图题"})


def _question_type(record: RecordDict) -> str | None:
    meta = record.get("meta")
    value = meta.get("question_type") if isinstance(meta, dict) else None
    return value.strip().lower() if isinstance(value, str) else None


async def judge_math(ask: Ask, record: RecordDict, response: ResponseDict, *, prompts: Prompts) -> Judged:
    content = response.get("content")
    if not isinstance(content, str):
        error = response.get("error")
        return not_judged(f"the response has no content{f' (inference error: {error})' if error else ''}")
    qtype = _question_type(record)
    if qtype in PROOF_TYPES:
        return Judged(
            1.0, f"{qtype} item: every answer is accepted with full credit (not graded)", "scored", {"verdict": None}
        )
    reference = reference_text(record)
    if reference is None:
        return not_judged("the record has no reference answer to grade against")
    if not content.strip():
        return Judged(0.0, "empty reply: no answer, so it is wrong (the judge was not asked)", "scored", {})

    extract_template, lang = prompts.get("math_extract", record)
    grade_template, _ = prompts.get("math_grade", record)
    question = conversation_text(record, lang)
    judged = Judged(score=None, analysis="", status="scored", template=grade_template.source, lang=lang)
    details = judged.details
    replies: dict[str, str] = {}
    details["replies"] = replies

    try:
        extract_prompt, extract_nonce = extract_template.prompt({"question": question, "response": neutralize(content)})
        extract_reply = await ask(extract_prompt)
    except CallFailed as exc:
        judged.status, judged.analysis = "request_failed", f"extraction: {failure_text(exc)}"
        return judged
    add_usage(judged.usage, extract_reply.usage)
    replies["extract"] = extract_reply.content
    try:
        extraction = parse_extraction(extract_reply.content, nonce=extract_nonce)
    except UnparseableReply as exc:
        judged.status, judged.analysis = (
            "unparseable",
            f"extraction judge reply has no answer: {extract_reply.no_verdict(exc.reason)}",
        )
        return judged
    details["extracted"] = extraction.answer
    if extraction.answer is None:
        judged.score = 0.0
        judged.analysis = "final answer not found in the response (the extraction judge found none): wrong"
        return judged

    judged.answer = extraction.answer
    grade_prompt, grade_nonce = grade_template.prompt(
        {"question": question, "reference": reference, "answer": neutralize(extraction.answer)}
    )
    try:
        grade_reply = await ask(grade_prompt)
    except CallFailed as exc:
        judged.status = "request_failed"
        judged.analysis = f"extracted answer {extraction.answer!r}; grading: {failure_text(exc)}"
        return judged
    add_usage(judged.usage, grade_reply.usage)
    replies["grade"] = grade_reply.content
    try:
        grade = parse_math_grade(
            grade_reply.content, nonce=grade_nonce, quoted=[extraction.answer, neutralize(extraction.answer)]
        )
    except UnparseableReply as exc:
        judged.status = "unparseable"
        why = grade_reply.no_verdict(exc.reason)
        judged.analysis = f"extracted answer {extraction.answer!r}; grading judge reply has no score: {why}"
        return judged
    judged.score = grade.score
    details["verdict"] = {
        "score": grade.score,
        "raw_score": grade.raw_score,
        "tagged": grade.tagged if grade_nonce else None,
    }
    raw_reference = reference_of(record)
    judged.analysis = (
        f"extracted answer {extraction.answer!r}, compared with reference {raw_reference!r}: score {grade.score:g}"
    )
    return judged


async def _judge(ask: Ask, case: Case) -> Judged:
    return await judge_math(ask, case.record, case.response, prompts=case.prompts)


def _summarise(records: list[RecordDict], results: list[Judged], scale: Scale) -> SummaryKeys:
    """``strict_accuracy`` (share scoring 1.0) and ``loose_accuracy`` (mean score), both 0-100, over every
    response with a score (with ``--judge-fallback``, those the rules settled too)."""
    all_scores: list[float] = []
    for record in records:
        responses = target_responses(record)
        all_scores += [s for r in responses if isinstance(r, dict) and (s := r.get("score")) is not None]
    return {
        "strict_accuracy": rounded(mean_of([100.0 if s >= 1.0 else 0.0 for s in all_scores])),
        "loose_accuracy": rounded(mean_of([s * 100 for s in all_scores])),
    }


def _headline(summary: Mapping[str, Any]) -> str:
    return (
        f"; strict accuracy {shown(summary.get('strict_accuracy'))}, "
        f"loose accuracy {shown(summary.get('loose_accuracy'))}"
    )


MATH_JUDGE = JudgeKind(
    stages=(
        Stage("math_extract", required=frozenset({"question", "response"})),
        Stage("math_grade", required=frozenset({"question", "reference", "answer"})),
    ),
    judge=_judge,
    summarise=_summarise,
    headline=_headline,
)
