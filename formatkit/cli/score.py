"""``formatkit score IN -o OUT.jsonl [--metric M] [--json] [--judge-* ...]``"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from formatkit.cli._common import EXIT_ERRORS, EXIT_OK, fail_usage, output_or_fail, paths_or_fail, print_report

if TYPE_CHECKING:
    from formatkit._core.modes import Mode
    from scoring._errors import JudgeUnavailableError
    from scoring._judges.options import JudgeOptions
    from scoring._metrics.auto import MetricChoice
    from scoring._report.aggregate import Aggregate


class MetricOption(str, Enum):
    auto = "auto"
    choice = "choice"
    exact = "exact"
    math = "math"
    judge = "judge"
    pairwise = "pairwise"
    math_judge = "math-judge"


class JudgeLangOption(str, Enum):
    auto = "auto"
    en = "en"
    zh = "zh"


JUDGE_METRICS = ("judge", "pairwise", "math-judge")

_HELP = """Score the responses already present in IN and write every record, in input order, to OUT.

IN is canonical jsonl, or any Excel/jsonl input in `scored` mode (a reference and a response per
record). Each response gets `score` and `analysis`; one that cannot be scored (inference failed, a
judge is needed) gets `score: null` and the reason. The summary (0–100) is printed; --json prints the
summary JSON.

Metrics: auto (picks choice/exact/math per dataset from its references and says why), choice, exact,
math (partial credit, sympy under a per-item time limit), and the LLM judges judge, pairwise, math-judge.

Exit codes: 0 scored (some responses may be unscorable: they are counted in the summary); 1 the input is
invalid (issues are printed, nothing is written) or no response at all could be scored; 2 bad usage, an
unreadable path, or judge metrics not available.
"""


def _input_mode(path: str) -> Mode:
    """``scored``, or ``infer-eval`` for canonical records whose only problem is a response that failed at
    inference (those are kept and reported unscorable, never dropped)."""
    from formatkit._api.validate import validate_file

    report = validate_file(path, mode="scored", profile="none")
    if report.valid:
        return "scored"
    only_failed = report.format == "canonical" and all(
        issue.code == "missing_response" for issue in report.issues if issue.severity == "error"
    )
    if only_failed:
        retry = validate_file(path, mode="infer-eval", profile="none")
        if retry.valid:
            return "infer-eval"
    from formatkit._core.issues import Report

    print_report(Report.build([report], []), err=True)
    raise typer.Exit(EXIT_ERRORS)


def _judge_options(output: Path, **values: Any) -> JudgeOptions:
    from scoring._judges.options import JudgeOptions

    return JudgeOptions(journal_path=Path(str(output) + ".journal"), **values)


def _run_judges(
    records: list[dict[str, Any]], metric: str, options: JudgeOptions
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The judged records and the judges' own summary (verdict counts, judge tokens)."""
    from scoring._errors import JudgeUnavailableError
    from scoring._judges import judge_records  # importable: the command checked it before any work
    from scoring._runner.progress import make_progress

    progress = make_progress(label="judge", unit="responses")  # on stderr, as the runner's
    try:
        outcome = judge_records(records, metric=metric, options=options, progress=progress)
    except ValueError as exc:  # JudgeSetupError and template errors: nothing was sent
        fail_usage(str(exc))
    except JudgeUnavailableError as exc:
        _judge_stopped(exc, options)
    except KeyboardInterrupt:
        typer.echo(
            f"formatkit score: interrupted; the verdicts bought so far are kept in {options.journal_path}; "
            "rerun the same command to resume (none is bought twice).",
            err=True,
        )
        raise typer.Exit(130) from None
    summary = getattr(outcome, "summary", None)
    return list(outcome.records), dict(summary) if isinstance(summary, dict) else {}


def _judge_stopped(exc: JudgeUnavailableError, options: JudgeOptions) -> NoReturn:
    """The judge endpoint was unusable: say why and what is kept; exit 1 with OUT not written."""
    hint = exc.hint or "check the judge endpoint"
    if exc.status == 401:
        hint += f" in ${options.judge_api_key_env}"
    elif exc.status == 404:
        hint += f" (--judge-base-url {options.judge_base_url}, --judge-model {options.judge_model})"
    typer.echo(
        f"formatkit score: stopped: {exc}\n  {hint}.\n  {exc.bought} verdict(s) bought in this run are kept in "
        f"{options.journal_path} ({exc.reused} reused from it); the output was not written. Rerun the same "
        "command to resume: no verdict is bought twice.",
        err=True,
    )
    raise typer.Exit(EXIT_ERRORS)


def _check_judges_importable() -> None:
    try:
        import scoring._judges  # noqa: F401
    except ImportError:
        fail_usage("judge metrics are not available")


def _write(output: Path, records: list[dict[str, Any]]) -> None:
    from formatkit._core.writers import atomic_writer, dumps_line

    with atomic_writer(output) as handle:
        for record in records:
            handle.write(dumps_line(record))


def _finish(agg: Aggregate, as_json: bool, output: Path, extra: dict[str, Any] | None = None) -> None:
    from scoring._report.render import render

    typer.echo(render(agg, "json" if as_json else "text", extra), nl=False)
    if not as_json:
        if extra and isinstance(extra.get("judge"), dict):
            from scoring._judges import summary_lines

            for line in summary_lines(extra["judge"]):
                typer.echo(line)
        typer.echo(f"wrote {output}")
    scored = sum(s.scored_responses for s in agg.datasets.values())
    if scored == 0:
        typer.echo("formatkit score: no response could be scored", err=True)
        raise typer.Exit(EXIT_ERRORS)
    raise typer.Exit(EXIT_OK)


def score(
    path: str = typer.Argument(..., help="Canonical jsonl, or an Excel/jsonl file in scored mode.", metavar="IN"),
    output: Path = typer.Option(..., "-o", "--output", help="Where to write the scored records (jsonl)."),
    metric: MetricOption = typer.Option(MetricOption.auto, "--metric", help="How to score."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary JSON on stdout."),
    math_timeout: float = typer.Option(2.0, "--math-timeout", help="Per-item time limit for sympy (seconds)."),
    judge_base_url: str | None = typer.Option(None, "--judge-base-url", help="OpenAI-compatible judge endpoint."),
    judge_model: str | None = typer.Option(None, "--judge-model", help="Judge model name."),
    judge_api_key_env: str = typer.Option("OPENAI_API_KEY", "--judge-api-key-env", help="Env var with the key."),
    judge_scale: str = typer.Option("0-2", "--judge-scale", help="Absolute judge scale, e.g. 0-2 or 1-10."),
    judge_lang: JudgeLangOption = typer.Option(JudgeLangOption.auto, "--judge-lang", help="Judge prompt language."),
    judge_template: Path | None = typer.Option(None, "--judge-template", help="Your own judge prompt file."),
    against: Path | None = typer.Option(None, "--against", help="pairwise: another model's results file."),
    judge_fallback: bool = typer.Option(
        False, "--judge-fallback", help="With --metric math: send only unsettled items to the math judge."
    ),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Judge requests in flight."),
    max_retries: int = typer.Option(5, "--max-retries", min=0, help="Retries per judge request."),
    timeout: float = typer.Option(120.0, "--timeout", help="Judge request timeout (seconds)."),
) -> None:
    from formatkit._api.validate import iter_dicts
    from scoring._metrics.auto import JUDGE_NEEDED
    from scoring._metrics.math.sympy_guard import SympyGuard
    from scoring._pipeline.score import Scorer, choose_metrics
    from scoring._report.aggregate import aggregate

    (path,) = paths_or_fail([path])
    output_or_fail(output)
    chosen = metric.value
    if judge_fallback and chosen != "math":
        fail_usage("--judge-fallback goes with --metric math")
    if chosen in JUDGE_METRICS or judge_fallback:
        _check_judges_importable()
    options = _judge_options(
        output,
        judge_base_url=judge_base_url,
        judge_model=judge_model,
        judge_api_key_env=judge_api_key_env,
        judge_scale=judge_scale,
        judge_lang=judge_lang.value,
        judge_template=judge_template,
        against=against,
        judge_fallback=judge_fallback,
        concurrency=concurrency,
        max_retries=max_retries,
        timeout=timeout,
    )
    mode = _input_mode(path)
    default_dataset = Path(path).stem

    if chosen in JUDGE_METRICS:
        judged, summary = _run_judges(list(iter_dicts(path, mode=mode, profile="none")), chosen, options)
        _write(output, judged)
        names = {str((r.get("meta") or {}).get("dataset") or default_dataset) for r in judged}
        agg = aggregate(judged, default_dataset=default_dataset, metrics=dict.fromkeys(names, chosen))
        _finish(agg, as_json, output, {"judge": summary} if summary else None)

    metrics: dict[str, MetricChoice] = {}
    if chosen == "auto":
        metrics = choose_metrics(iter_dicts(path, mode=mode, profile="none"), default_dataset=default_dataset)
        for name, pick in metrics.items():
            if pick.metric == JUDGE_NEEDED:
                typer.echo(f"formatkit score: {name}: a judge is needed — {pick.reason}; left unscored", err=True)
    judge_summary: dict[str, Any] = {}
    guard = SympyGuard(timeout=math_timeout)
    scorer = Scorer(metric=chosen, metrics=metrics, default_dataset=default_dataset, guard=guard)
    try:
        if judge_fallback:
            records = [scorer.score_record(r) for r in iter_dicts(path, mode=mode, profile="none")]
            records, judge_summary = _run_judges(records, "math-judge", options)
            _write(output, records)
            agg = aggregate(records, default_dataset=default_dataset, metrics=dict.fromkeys(scorer.stats, "math"))
        else:
            from formatkit._core.writers import atomic_writer, dumps_line

            with atomic_writer(output) as handle:
                for record in iter_dicts(path, mode=mode, profile="none"):
                    handle.write(dumps_line(scorer.score_record(record)))
            agg = scorer.result()
    finally:
        guard.close()
    _finish(agg, as_json, output, {"judge": judge_summary} if judge_summary else None)


score.__doc__ = _HELP


def register(app: typer.Typer) -> None:
    app.command("score", help=_HELP)(score)
