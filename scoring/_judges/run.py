"""``judge_records``: put every response of a list of canonical records to an LLM judge.

Everything that can be checked without the network is checked first (judge endpoint and model given,
scale, language, templates and their placeholders, the ``--against`` file), so a mistake is a
:class:`JudgeSetupError` before any request is sent. Then all judge calls run concurrently through one
:class:`~scoring._client.http.ChatClient` (its concurrency, retries and rate limits), journaled so that a rerun
after a kill buys nothing twice.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import os
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from formatkit._core.record import SCORE_FIELDS, JsonObject, Parameters, RecordDict, ResponseDict
from scoring._errors import JudgeSetupError, JudgeUnavailableError
from scoring._judges.against import Against, AgainstError, load_against
from scoring._judges.call import JournaledAsker, Reply
from scoring._judges.fallback import needs_fallback
from scoring._judges.inputs import target_turn
from scoring._judges.kinds import Case, JudgeKind, fallback_judge, judge_kind, judge_names, versus_names
from scoring._judges.options import JudgeOptions
from scoring._judges.prompts import Prompts, parse_lang
from scoring._judges.result import Judged
from scoring._judges.scale import DEFAULT_SCALE, Scale, parse_scale
from scoring._judges.summary import JudgeSummary, summarize
from scoring._judges.templates import TemplateError
from scoring._runner.progress import Progress
from scoring._runner.stopping import GracefulStop, Stopped

if TYPE_CHECKING:
    from scoring._client.pool import AnyClient

__all__ = ["JUDGE_PARAMS", "METRICS", "JudgeOutcome", "JudgeSetupError", "judge_records"]

#: The judge metrics of the metric table (its entries with kind "judge"), when this module was loaded.
METRICS = tuple(judge_names())

#: Sampling parameters of every judge request: deterministic verdicts.
JUDGE_PARAMS: Parameters = {"temperature": 0.0}


@dataclass
class JudgeOutcome:
    """The records, in input order, with ``score``/``analysis``/``judge`` filled in each judged response,
    and the summary (counts, verdict statistics, judge token totals; see :func:`summarize`)."""

    records: list[RecordDict]
    summary: JudgeSummary = field(default_factory=dict)


@dataclass
class _Plan:
    metric: str
    kind: JudgeKind
    prompts: Prompts
    scale: Scale
    against: Against | None
    against_label: str
    fallback: bool


def _plan(metric: str, options: JudgeOptions) -> _Plan:
    if options.judge_fallback:  # --metric math --judge-fallback: the judge kind that takes math's leftovers
        metric = fallback_judge(metric) or metric
    kind = judge_kind(metric)
    if kind is None:
        raise JudgeSetupError(f"unknown judge metric {metric!r}: expected one of {', '.join(judge_names())}")
    if not options.judge_base_url or not options.judge_model:
        raise JudgeSetupError(f"--metric {metric} needs --judge-base-url and --judge-model")
    if options.concurrency < 1 or options.max_retries < 0 or options.timeout <= 0:
        raise JudgeSetupError("judge concurrency must be at least 1, retries 0 or more, and the timeout positive")
    try:
        scale = parse_scale(options.judge_scale) if options.judge_scale else DEFAULT_SCALE
        lang = parse_lang(options.judge_lang)
        prompts = Prompts.load(kind.stages, lang=lang, template=options.judge_template)
    except (ValueError, TemplateError) as exc:
        raise JudgeSetupError(str(exc)) from exc
    against = None
    label = "reference answer"
    if options.against is not None:
        if not kind.versus:
            raise JudgeSetupError(f"--against only applies to --metric {' or '.join(versus_names())}")
        try:
            against = load_against(Path(options.against))
        except AgainstError as exc:
            raise JudgeSetupError(str(exc)) from exc
        label = f"response in {options.against}"
    if options.journal_path is not None:
        _check_writable(Path(options.journal_path))
    fallback = options.judge_fallback and kind.fallback_for is not None
    return _Plan(metric, kind, prompts, scale, against, label, fallback)


def _check_writable(path: Path) -> None:
    """The journal must be writable before the first verdict is bought, or that verdict would be lost. A
    journal the check makes is removed again: a run refused before any request leaves no empty journal."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        with path.open("ab"):
            pass
        if not existed:
            path.unlink()
    except OSError as exc:
        raise JudgeSetupError(f"judge journal {path}: cannot write it ({exc.strerror or exc})") from exc


def _result_fields(judged: Judged, metric: str) -> ResponseDict:
    """Scores as data: ``metric``, ``answer`` (what the verdict says), ``settled`` (false, with the
    reason, when the judge gave no verdict)."""
    fields: ResponseDict = {
        "score": judged.score,
        "analysis": judged.analysis,
        "metric": metric,
        "answer": judged.answer,
        "settled": judged.status == "scored",
    }
    if judged.status != "scored":
        fields["unsettled_reason"] = judged.analysis
    return fields


def _fill(response: ResponseDict, judged: Judged, metric: str, model: str) -> ResponseDict:
    """The response with its result fields in canonical position (where ``score`` goes) and ``judge``
    last; the judge entry names the judge model that gave the verdict."""
    fields = judged.kept_rule if judged.kept_rule is not None else _result_fields(judged, metric)
    judge: JsonObject = {"metric": metric, "model": model}
    if judged.template is not None:
        judge["template"] = judged.template
    if judged.lang is not None:
        judge["lang"] = judged.lang
    judge.update(judged.details)
    judge["usage"] = judged.usage
    judge["status"] = judged.status
    out: JsonObject = {}
    placed = False
    for key, value in response.items():
        if key in SCORE_FIELDS or key == "judge":
            continue
        if key == "error" and not placed:
            out.update(fields)
            placed = True
        out[key] = value
    if not placed:
        out.update(fields)
    out["judge"] = judge
    return cast(ResponseDict, out)


async def _judge_all(
    records: list[RecordDict], plan: _Plan, options: JudgeOptions, progress: Progress | None, stop: GracefulStop
) -> tuple[list[RecordDict], JudgeSummary]:
    from scoring._runner.journal import Journal

    assert options.judge_base_url is not None and options.judge_model is not None
    journal: Journal | None = None
    api_key = os.environ.get(options.judge_api_key_env) if options.judge_api_key_env else None
    out = [copy.deepcopy(record) for record in records]
    slots: list[tuple[int, int]] = []
    skipped = 0
    try:
        async with _judge_client(options, api_key) as client:
            note = getattr(progress, "note", None)
            if callable(note):  # a long wait the server asked for, a stop under way: said above the bar
                client.on_notice = note
            stop.watch(client)  # Ctrl-C, SIGTERM: the verdicts in flight are journaled, nothing more is bought
            # opened once the client stands: an endpoint refused before any request leaves no empty journal
            journal = Journal(Path(options.journal_path)) if options.journal_path is not None else None
            ask = JournaledAsker(client, params=JUDGE_PARAMS, journal=journal, concurrency=options.concurrency)
            jobs: list[Awaitable[Judged]] = []
            for r, record in enumerate(out):
                try:
                    responses = target_turn(record).get("responses") or []
                except ValueError:
                    continue
                # as the file holds them: an entry that is no object is passed over
                for i, response in enumerate(cast("list[ResponseDict | None]", responses)):
                    if not isinstance(response, dict):
                        continue
                    if plan.fallback and not needs_fallback(response):
                        skipped += 1
                        continue
                    slots.append((r, i))
                    jobs.append(_judge_one(ask, plan, record, response, i, progress))
            if progress is not None:
                progress.start(len(jobs))
            results = await asyncio.gather(*jobs)
    finally:
        if progress is not None:
            progress.stop()
        if journal is not None:
            journal.close()
    if ask.down is not None:
        down = ask.down
        raise JudgeUnavailableError(
            f"judge {down}", status=down.status, hint=down.hint, bought=ask.bought, reused=ask.reused
        ) from down
    for (r, i), judged in zip(slots, results, strict=True):
        responses = target_turn(out[r])["responses"]
        if plan.fallback:
            judged = _keep_rule_score(responses[i], judged)
        responses[i] = _fill(responses[i], judged, plan.metric, options.judge_model)
    summary = summarize(out, [j for j in results], plan.metric, scale=plan.scale)
    summary.update(
        {
            "judge_model": options.judge_model,
            "judge_requests": ask.bought,
            "judge_reused": ask.reused,
        }
    )
    if plan.fallback:
        summary["fallback"] = {"judged": len(results), "settled_by_rules": skipped}
    return out, summary


def _judge_client(options: JudgeOptions, api_key: str | None) -> AnyClient:
    """The judge's client: one endpoint, or a pool of one per base URL when ``judge_replicas`` are given."""
    from scoring._client.http import ChatClient
    from scoring._client.options import Limits, RetryPolicy
    from scoring._client.pool import EndpointPool

    assert options.judge_base_url is not None and options.judge_model is not None
    clients = [
        ChatClient(
            url,
            options.judge_model,
            api_key=api_key,
            limits=Limits(concurrency=options.concurrency, timeout=options.timeout),
            retry=RetryPolicy(max_retries=options.max_retries),
        )
        for url in (options.judge_base_url, *options.judge_replicas)
    ]
    return clients[0] if len(clients) == 1 else EndpointPool(clients)


def _keep_rule_score(response: ResponseDict, judged: Judged) -> Judged:
    """In fallback mode a judge that could not give a verdict leaves the rule-based result standing:
    its score and its data fields (``metric``, ``answer``, ``settled``...), the analysis noting why."""
    if judged.status == "scored" or response.get("score") is None:
        return judged
    rule = f"{response.get('analysis') or ''}".strip()
    judged.score = response["score"]
    judged.analysis = f"{rule} [judge fallback gave no verdict: {judged.analysis}]".strip()
    kept = {key: response[key] for key in SCORE_FIELDS if key in response}
    kept["analysis"] = judged.analysis
    judged.kept_rule = cast(ResponseDict, kept)
    return judged


async def _judge_one(
    ask: JournaledAsker,
    plan: _Plan,
    record: RecordDict,
    response: ResponseDict,
    index: int,
    progress: Progress | None,
) -> Judged:
    bought = 0

    async def counted(prompt: str) -> Reply:
        nonlocal bought
        reply = await ask(prompt)
        bought += not reply.from_journal
        return reply

    case = Case(record, response, index, plan.prompts, plan.scale, plan.against, plan.against_label)
    judged = await plan.kind.judge(counted, case)
    if progress is not None and not ask.stopping:  # a stop's unsent verdicts are not errors to count
        progress.advance(error=judged.status != "scored", resumed=bought == 0)
    return judged


def judge_records(
    records: list[RecordDict], *, metric: str, options: JudgeOptions, progress: Progress | None = None
) -> JudgeOutcome:
    """Judge every response of ``records`` with ``metric`` (``judge``, ``pairwise``, ``math-judge``; or
    ``math`` with ``options.judge_fallback``: only the responses the rule-based math metric left unsettled).

    Synchronous: runs its own event loop (in a worker thread when called from inside a running loop).
    Raises :class:`JudgeSetupError` before any request when the options, templates or ``--against`` file
    are unusable, and :class:`~scoring._errors.JudgeUnavailableError` when the judge endpoint proves
    unusable (down, or refusing every request): the verdicts bought are journaled. Other judge failures
    never raise: each becomes a response with ``score`` null, an ``analysis`` saying why and the raw
    reply in ``response["judge"]``.
    ``progress`` (optional, as the runner's) advances once per judged response.
    On Ctrl-C (``KeyboardInterrupt``) or SIGTERM (:class:`~scoring._errors.RunInterrupted`) no new verdict is
    bought and those in flight get a few seconds to land in the journal; a second Ctrl-C leaves at once.
    """
    plan = _plan(metric, options)
    stop = GracefulStop()
    try:
        out, summary = _run_sync(stop.guard(_judge_all(records, plan, options, progress, stop)))
    except Stopped as stopped:
        raise GracefulStop.error(stopped) from None
    return JudgeOutcome(records=out, summary=summary)


_T = TypeVar("_T")


def _run_sync(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coro`` to completion; from inside a running event loop (a notebook, an async caller) it
    runs on its own loop in a worker thread, since a loop cannot be nested."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="judges") as pool:
        return pool.submit(asyncio.run, coro).result()
