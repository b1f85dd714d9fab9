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
import contextlib
import copy
import os
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from formatkit._core.judge_entry import REFERENCE_OPPONENT, JudgeEntry, text_fingerprint
from formatkit._core.record import SCORE_FIELDS, JsonObject, Parameters, RecordDict, ResponseDict, target_responses
from scoring._errors import EndpointUnavailableError, JudgeSetupError, JudgeUnavailableError
from scoring._judges.against import Against, AgainstError, load_against
from scoring._judges.call import JournaledAsker, Reply
from scoring._judges.fallback import needs_fallback
from scoring._judges.kinds import Case, JudgeKind, fallback_judge, judge_kind, judge_names, versus_names
from scoring._judges.options import AGGREGATES, JudgeOptions, PanelJudge
from scoring._judges.panel import Seat, judge_with_panel
from scoring._judges.prompts import Prompts, parse_lang
from scoring._judges.result import Judged
from scoring._judges.scale import DEFAULT_SCALE, Scale, parse_scale
from scoring._judges.summary import JudgeSummary, panel_summary, summarize
from scoring._judges.templates import TemplateError
from scoring._metrics.registry import JUDGE_NEEDED
from scoring._metrics.registry import METRICS as METRIC_TABLE
from scoring._runner.progress import Progress
from scoring._runner.stopping import GracefulStop, Stopped

if TYPE_CHECKING:
    from scoring._client.pool import AnyClient

__all__ = ["JUDGE_PARAMS", "METRICS", "JudgeOutcome", "JudgeSetupError", "RuleScore", "judge_records"]

#: The settled rule score of a response (by the record's place in the list and the response's in the
#: record), for ``judge_escalate`` to check the first verdict against; None when the rules cannot settle it.
RuleScore = Callable[[int, int], float | None]
#: ``only``: why a record's response goes to the judge (None: it stays as it is, judged by the rules).
SendReason = Callable[[RecordDict, ResponseDict], str | None]

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
    fallback = options.judge_fallback and any(spec.judge_fallback == metric for spec in METRIC_TABLE.values())
    kind = judge_kind(metric)
    if kind is None:
        raise JudgeSetupError(f"unknown judge metric {metric!r}: expected one of {', '.join(judge_names())}")
    judges = options.judges()
    if not judges or not all(j.base_url for j in judges):
        raise JudgeSetupError(f"--metric {metric} needs --judge-base-url and --judge-model")
    _check_panel(options, judges)
    if options.concurrency < 1 or options.max_retries < 0 or options.timeout <= 0:
        raise JudgeSetupError("judge concurrency must be at least 1, retries 0 or more, and the timeout positive")
    try:
        scale = parse_scale(options.judge_scale) if options.judge_scale else DEFAULT_SCALE
        lang = parse_lang(options.judge_lang)
        prompts = Prompts.load(kind.stages, lang=lang, template=options.judge_template)
    except (ValueError, TemplateError) as exc:
        raise JudgeSetupError(str(exc)) from exc
    against = None
    label = REFERENCE_OPPONENT
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
    return _Plan(metric, kind, prompts, scale, against, label, fallback)


def _check_panel(options: JudgeOptions, judges: tuple[PanelJudge, ...]) -> None:
    """A panel's options, checked before any verdict is bought."""
    if options.judge_aggregate not in AGGREGATES:
        raise JudgeSetupError(f"--judge-aggregate {options.judge_aggregate!r}: expected one of {', '.join(AGGREGATES)}")
    if options.judge_repeats < 1:
        raise JudgeSetupError("--judge-repeats must be at least 1")
    if not 1 <= options.judge_min_valid <= len(judges):
        raise JudgeSetupError(
            f"--judge-min-valid {options.judge_min_valid}: the panel has {len(judges)} judge(s), so it must be "
            f"1 to {len(judges)}"
        )
    if options.judge_escalate and len(judges) < 2:
        raise JudgeSetupError("--judge-escalate needs two judges or more (--judge-model given twice, or --judge-panel)")


def _seat_names(judges: tuple[PanelJudge, ...]) -> list[str | None]:
    """How each judge's requests are keyed apart in the journal: the first of a model by its name alone
    (a lone judge's journal stays as it was), the same model met again by its place in the panel."""
    seen: Counter[str] = Counter()
    names: list[str | None] = []
    for n, judge in enumerate(judges):
        names.append(None if not seen[judge.model] else f"judge {n}")
        seen[judge.model] += 1
    return names


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


def _result_fields(judged: Judged, metric: str, sent_because: str | None = None) -> ResponseDict:
    """Scores as data: ``metric``, ``answer`` (what the verdict says), ``settled`` (false, with the
    reason, when the judge gave no verdict); ``matched_by: "judge"`` when the rules left it to the judge."""
    fields: ResponseDict = {
        "score": judged.score,
        "analysis": judged.analysis,
        "metric": metric,
        "answer": judged.answer,
        "settled": judged.status == "scored",
    }
    if judged.status != "scored":
        fields["unsettled_reason"] = judged.analysis
    if sent_because is not None:
        fields["matched_by"] = "judge"
    return fields


def _fill(
    response: ResponseDict, judged: Judged, metric: str, model: str, sent_because: str | None = None
) -> ResponseDict:
    """The response with its result fields in canonical position (where ``score`` goes) and ``judge``
    last; the judge entry names the judge model that gave the verdict (and, when the rules left the
    response to it, why: ``sent_because``, with the rule's own result as ``rule``)."""
    fields = judged.kept_rule if judged.kept_rule is not None else _result_fields(judged, metric, sent_because)
    judge: JudgeEntry = {"metric": metric, "model": model}
    if sent_because is not None:
        judge["sent_because"] = sent_because
        rule: dict[str, Any] = {k: response[k] for k in ("metric", "score", "answer", "matched_by") if k in response}
        if rule.get("metric") != JUDGE_NEEDED:
            judge["rule"] = rule
    if judged.template is not None:
        judge["template"] = judged.template
    if judged.lang is not None:
        judge["lang"] = judged.lang
    judge.update(judged.details)
    judge["fingerprint"] = text_fingerprint(response.get("content"))  # the text this verdict belongs to
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


@dataclass
class _Sent:
    """What goes to the judges: each job's response (its record's place in the list, its own in the record),
    why the rules left it (``auto`` with a judge), and how many the rules settled themselves."""

    slots: list[tuple[int, int]] = field(default_factory=list)
    jobs: list[Awaitable[Judged]] = field(default_factory=list)
    because: dict[tuple[int, int], str] = field(default_factory=dict)
    settled_by_rules: int = 0


async def _judge_all(
    records: list[RecordDict],
    plan: _Plan,
    options: JudgeOptions,
    progress: Progress | None,
    stop: GracefulStop,
    rule_score: RuleScore | None,
    only: SendReason | None,
) -> tuple[list[RecordDict], JudgeSummary]:
    """Judge every response of (copies of) ``records``: the judges' clients opened, the responses sent, the
    verdicts written back and summed up."""
    from scoring._runner.journal import Journal

    judges = options.judges()
    journal: Journal | None = None
    out = [copy.deepcopy(record) for record in records]
    askers: list[JournaledAsker] = []
    try:
        async with contextlib.AsyncExitStack() as clients:
            standing = await _open_clients(clients, options, judges, progress, stop)
            # opened once the clients stand: an endpoint refused before any request leaves no empty journal
            journal = Journal(Path(options.journal_path)) if options.journal_path is not None else None
            askers += [
                JournaledAsker(client, params=JUDGE_PARAMS, journal=journal, concurrency=options.concurrency)
                for client in standing
            ]
            panel = _Panel(askers, _seats(judges, askers, options), plan, options)
            sent = _send(out, panel, progress, rule_score, only)
            if progress is not None:
                progress.start(len(sent.jobs))
            results = await asyncio.gather(*sent.jobs)
    finally:
        if progress is not None:
            progress.stop()
        if journal is not None:
            journal.close()
    downs = _downs(askers, options)
    model = ", ".join(j.model for j in judges)
    for (r, i), judged in zip(sent.slots, results, strict=True):
        responses = target_responses(out[r])
        if plan.fallback:
            judged = _keep_rule_score(responses[i], judged)
        responses[i] = _fill(responses[i], judged, plan.metric, model, sent.because.get((r, i)))
    return out, _summary(out, list(results), plan, options, askers, downs, sent, only is not None)


async def _open_clients(
    clients: contextlib.AsyncExitStack,
    options: JudgeOptions,
    judges: tuple[PanelJudge, ...],
    progress: Progress | None,
    stop: GracefulStop,
) -> list[AnyClient]:
    """Each judge's client, entered on ``clients``, its notices said above the progress bar and watched by ``stop``."""
    standing: list[AnyClient] = []
    for judge in judges:
        assert judge.base_url is not None
        api_key = os.environ.get(judge.api_key_env) if judge.api_key_env else None
        client = _judge_client(options, judge, api_key)
        await clients.enter_async_context(client)  # its __aenter__ gives the client itself
        note = getattr(progress, "note", None)
        if callable(note):  # a long wait the server asked for, a stop under way: said above the bar
            client.on_notice = note
        stop.watch(client)  # Ctrl-C, SIGTERM: the verdicts in flight are journaled, nothing more is bought
        standing.append(client)
    return standing


def _seats(judges: tuple[PanelJudge, ...], askers: list[JournaledAsker], options: JudgeOptions) -> list[Seat]:
    """Each judge with one ``ask`` per repeat, keyed apart in the journal (:func:`_seat_names`)."""
    return [
        Seat(
            judge.model,
            tuple(asker.seat(_repeat_seat(name, r)) if (name or r) else asker for r in range(options.judge_repeats)),
        )
        for judge, asker, name in zip(judges, askers, _seat_names(judges), strict=True)
    ]


def _send(
    out: list[RecordDict],
    panel: _Panel,
    progress: Progress | None,
    rule_score: RuleScore | None,
    only: SendReason | None,
) -> _Sent:
    """One job per response the judges must see, in order: with ``--judge-fallback`` only those the rules
    left unsettled, with ``only`` those it gives a reason for."""
    plan, options = panel.plan, panel.options
    sent = _Sent()
    for r, record in enumerate(out):
        # as the file holds them: an entry that is no object is passed over
        for i, response in enumerate(cast("list[ResponseDict | None]", target_responses(record))):
            if not isinstance(response, dict):
                continue
            if plan.fallback and not needs_fallback(response):
                sent.settled_by_rules += 1
                continue
            if only is not None:
                reason = only(record, response)
                if reason is None:
                    sent.settled_by_rules += 1
                    continue
                sent.because[(r, i)] = reason
            sent.slots.append((r, i))  # one slot per job: the verdicts come back in this order
            rule = rule_score(r, i) if rule_score is not None and options.judge_escalate else None
            sent.jobs.append(_judge_one(panel, record, response, i, progress, rule))
    return sent


def _downs(askers: list[JournaledAsker], options: JudgeOptions) -> list[EndpointUnavailableError]:
    """The judges whose endpoint proved unusable; :class:`JudgeUnavailableError` when that stops the run
    (every judge down, or the one judge: a panel goes on while one judge serves)."""
    downs = [asker.down for asker in askers if asker.down is not None]
    if downs and (len(downs) == len(askers) or not options.is_panel):
        down = downs[0]
        bought, reused = sum(a.bought for a in askers), sum(a.reused for a in askers)
        raise JudgeUnavailableError(
            f"judge {down}", status=down.status, hint=down.hint, bought=bought, reused=reused
        ) from down
    return downs


def _summary(
    out: list[RecordDict],
    results: list[Judged],
    plan: _Plan,
    options: JudgeOptions,
    askers: list[JournaledAsker],
    downs: list[EndpointUnavailableError],
    sent: _Sent,
    undecided: bool,
) -> JudgeSummary:
    """The run's summary: the kind's (:func:`summarize`), the requests, the panel's figures, what the rules kept."""
    judges = options.judges()
    summary = summarize(out, results, plan.metric, scale=plan.scale)
    summary.update(
        {
            "judge_model": ", ".join(j.model for j in judges),
            "judge_requests": sum(a.bought for a in askers),
            "judge_reused": sum(a.reused for a in askers),
        }
    )
    if options.is_panel:
        summary["panel"] = panel_summary(out, [j.model for j in judges], options, plan.kind)
        if downs:
            summary["panel"]["down"] = [str(d) for d in downs]
    skipped = sent.settled_by_rules
    if plan.fallback:
        summary["fallback"] = {"judged": len(results), "settled_by_rules": skipped}
    if undecided:
        summary["undecided"] = {"judged": len(results), "settled_by_rules": skipped, **Counter(sent.because.values())}
    return summary


def _repeat_seat(name: str | None, repeat: int) -> str | None:
    parts = [p for p in (name, f"repeat {repeat}" if repeat else None) if p]
    return ", ".join(parts) or None


def _judge_client(options: JudgeOptions, judge: PanelJudge, api_key: str | None) -> AnyClient:
    """A judge's client: its endpoint, or a pool of one per base URL when the judge is at the run's
    ``judge_base_url`` and ``judge_replicas`` are given (every judge of a panel there shares them)."""
    from scoring._client.http import ChatClient
    from scoring._client.options import Limits, RetryPolicy
    from scoring._client.pool import EndpointPool

    assert judge.base_url is not None
    urls = (judge.base_url, *options.judge_replicas) if judge.base_url == options.judge_base_url else (judge.base_url,)
    clients = [
        ChatClient(
            url,
            judge.model,
            api_key=api_key,
            limits=Limits(concurrency=options.concurrency, timeout=options.timeout),
            retry=RetryPolicy(max_retries=options.max_retries),
        )
        for url in urls
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


@dataclass(frozen=True)
class _Panel:
    """What every response of a run is judged with: the judges' askers, their seats, the plan, the options."""

    askers: list[JournaledAsker]
    seats: list[Seat]
    plan: _Plan
    options: JudgeOptions


async def _judge_one(
    panel: _Panel,
    record: RecordDict,
    response: ResponseDict,
    index: int,
    progress: Progress | None,
    rule: float | None,
) -> Judged:
    bought = 0

    def counted(ask: Callable[[str], Awaitable[Reply]]) -> Callable[[str], Awaitable[Reply]]:
        async def call(prompt: str) -> Reply:
            nonlocal bought
            reply = await ask(prompt)
            bought += not reply.from_journal
            return reply

        return call

    plan, options = panel.plan, panel.options
    case = Case(record, response, index, plan.prompts, plan.scale, plan.against, plan.against_label)
    if options.is_panel:
        counted_seats = [Seat(seat.model, tuple(counted(ask) for ask in seat.asks)) for seat in panel.seats]
        judged = await judge_with_panel(
            plan.kind,
            case,
            counted_seats,
            how=options.judge_aggregate,
            min_valid=options.judge_min_valid,
            escalate=options.judge_escalate,
            rule_score=rule,
        )
    else:
        judged = await plan.kind.judge(counted(panel.seats[0].asks[0]), case)
    stopping = any(ask.stopping for ask in panel.askers)
    if progress is not None and not stopping:  # a stop's unsent verdicts are not errors to count
        progress.advance(error=judged.status != "scored", resumed=bought == 0)
    return judged


def judge_records(
    records: list[RecordDict],
    *,
    metric: str,
    options: JudgeOptions,
    progress: Progress | None = None,
    rule_score: RuleScore | None = None,
    only: SendReason | None = None,
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
    A panel (``options.judge_panel``, ``judge_repeats``, ``judge_escalate``; see :mod:`scoring._judges.panel`)
    keeps each judge's verdict in the response's ``judge.panel``; ``rule_score`` gives escalation the
    settled rule score a first verdict must not contradict. ``only`` (``auto`` with a judge): the
    responses it gives a reason for are judged, ``matched_by: "judge"`` and the reason in
    ``judge.sent_because``; the others keep their rule result. One judge of a panel whose endpoint proves
    unusable leaves its verdicts void (``request_failed``); the run stops only when every judge is.
    On Ctrl-C (``KeyboardInterrupt``) or SIGTERM (:class:`~scoring._errors.RunInterrupted`) no new verdict is
    bought and those in flight get a few seconds to land in the journal; a second Ctrl-C leaves at once.
    """
    plan = _plan(metric, options)
    stop = GracefulStop()
    try:
        out, summary = _run_sync(stop.guard(_judge_all(records, plan, options, progress, stop, rule_score, only)))
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
