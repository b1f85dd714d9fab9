"""``formatkit eval SET... --base-url URL --model NAME [-o DIR] [--limit N] [--judge-...]``: the whole flow."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

if TYPE_CHECKING:
    from formatkit import Profile
    from scoring import EndpointOptions, EvalOptions, EvalOutcome

from formatkit.cli._common import (
    EXIT_ERRORS,
    EXIT_OK,
    ModeOption,
    ProfileOption,
    fail_usage,
    lang_option,
    paths_or_fail,
    print_report,
)
from formatkit.cli._estimate import EstimateArgs
from formatkit.cli._failures import exits, say
from formatkit.cli._options import (
    EndpointArgs,
    IssueArgs,
    JudgeArgs,
    ReportArgs,
    RunArgs,
    ScoreArgs,
    VerdictArgs,
    takes,
)
from formatkit.cli.run import (
    parse_shard,
    recorded_command,
    shard_option,
    summary_lines,
)

_HELP = """Validate, convert, run, score and report in one command; rerun it to resume at any stage.

Into DIR (-o, default ./formatkit-eval): canonical.jsonl (the sets converted), answered.jsonl (the
model's responses, journaled), scored.jsonl (auto scoring: choice, exact or math per record; free text
goes to the judge when --judge-base-url and --judge-model are given, else it is left unscored) and
report.txt, report.json, report.html, report.xlsx, and run.json (what produced them: version, times,
command, endpoint, model, parameters, judge; never a key). --limit N runs only the first N records of each
dataset (a smoke run). --shard K/N runs only part K of N (records K, K+N, ...): N machines each run one
part into its own DIR, and `formatkit merge DIR1 DIR2 ... -o all.jsonl` puts them back together.

Exit codes: 0 every record answered and scored; 1 a set is invalid (issues printed, nothing run), some
records ended in error, an endpoint could not serve, or nothing could be scored; 2 bad usage; 130
interrupted (Ctrl-C) and 143 terminated (SIGTERM): rerun to resume.
"""


@takes(
    endpoint=EndpointArgs,
    requests=RunArgs,
    judge=JudgeArgs,
    scoring=ScoreArgs,
    report=ReportArgs,
    verdicts=VerdictArgs,
    issues=IssueArgs,
    bill=EstimateArgs,
)
def eval_command(
    ctx: typer.Context,
    sets: list[str] = typer.Argument(..., metavar="SET...", help="Evaluation sets: Excel (.xlsx/.xls) or jsonl."),
    directory: Path = typer.Option(Path("formatkit-eval"), "-o", "--output", help="The directory to write into."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N records of each dataset."),
    shard: str | None = shard_option(),
    mode: ModeOption = typer.Option(ModeOption.infer_eval, "--mode", help="What the sets are for."),
    profile: ProfileOption | None = typer.Option(
        None,
        "--profile",
        help="Upload limits to check the sets against (default: none, as a set is run, not uploaded).",
        show_default=False,
    ),
    lang: str | None = lang_option(),
    *,
    endpoint: EndpointArgs,
    requests: RunArgs,
    judge: JudgeArgs,
    scoring: ScoreArgs,
    report: ReportArgs,
    verdicts: VerdictArgs,
    issues: IssueArgs,
    bill: EstimateArgs,
) -> None:
    part = parse_shard(shard)
    bill.check()
    # the platform's upload limits (10 files, 1,000 rows a file) say what may be uploaded; an eval runs the sets,
    # whole or sharded, and uploads nothing: no limit unless --profile platform asks to check them too (#39)
    limits: Profile = profile.value if profile is not None else "none"
    defaults = requests.defaults()
    endpoint.check()
    judge.check_together()
    if directory.exists() and not directory.is_dir():
        fail_usage(f"-o {directory}: not a directory")
    sets = paths_or_fail(sets, lang=lang)
    dimensions = report.mapping()

    from formatkit.messages import locale_lang
    from scoring import EvalOptions, evaluate
    from scoring._cli_support import make_progress

    said = lang or locale_lang()
    options = endpoint.endpoint_options("eval", lang)
    judge_options = None
    if judge.given:
        judge_options = judge.judge_options(
            command="eval", lang=lang, concurrency=endpoint.concurrency, max_retries=endpoint.max_retries
        )
    settings = EvalOptions(
        judge=judge_options,
        limit=limit,
        mode=mode.value,
        profile=limits,
        defaults=defaults,
        restart=requests.restart,
        retry_empty=requests.retry_empty,
        processes=requests.processes,
        math_timeout=scoring.math_timeout,
        dataset_metrics=scoring.dataset_metrics(),
        dimensions=dimensions,
        lang=said,
        void_as_zero=verdicts.void_as_zero,
        shard=part,
        command=recorded_command(ctx),
    )
    if bill.estimate:
        _estimate(sets, directory, options, settings, bill, lang)
    interval = requests.progress_interval
    with exits("eval", lang, shown=issues.shown, hint=endpoint.stopped_hint, judge_hint=_judge_hint(lang)):
        outcome = evaluate(
            sets,
            directory,
            options,
            settings,
            run_progress=make_progress(interval=interval, lang=said),
            judge_progress=make_progress(label="judge", unit="responses", interval=interval, lang=said),
        )
    _finish(outcome, judged=judge_options is not None, shown=issues.shown, scoring=scoring, lang=lang)


def _judge_hint(lang: str | None) -> Callable[[Any], str]:
    """What a stopped judge's message says to do: the endpoint's own hint, else the catalogue's."""
    return lambda exc: exc.hint or say("judge_hint", lang)


def _finish(outcome: EvalOutcome, *, judged: bool, shown: int | None, scoring: ScoreArgs, lang: str | None) -> NoReturn:
    """The validation's issues, the run's summary, the text report and where the reports are; the exit code."""
    from formatkit.messages import locale_lang

    said = lang or locale_lang()
    if not outcome.validation.valid or outcome.validation.issues or outcome.validation.warnings:
        print_report(outcome.validation, err=True, quiet_valid=True, shown=shown, lang=lang)
    if not outcome.validation.valid:
        raise typer.Exit(EXIT_ERRORS)
    assert outcome.run is not None and outcome.score is not None
    for line in summary_lines(outcome.run, outcome.paths.answered, lang):
        typer.echo(line, err=True)
    scoring.warn_undeclared(outcome.score.metrics, lang)
    if not judged:  # with a judge, those records were judged
        for name, pick in outcome.score.judge_needed.items():
            typer.echo(say("eval.judge_needed", lang, pick, dataset=name, reason=pick.said(said)), err=True)
    text = outcome.paths.report("text")
    typer.echo(text.read_text(encoding="utf-8"), nl=False)
    typer.echo(say("wrote", lang, output=", ".join(str(p) for p in outcome.reports)), err=True)
    raise typer.Exit(EXIT_OK if outcome.ok else EXIT_ERRORS)


def _estimate(
    sets: list[str],
    directory: Path,
    endpoint: EndpointOptions,
    settings: EvalOptions,
    bill: EstimateArgs,
    lang: str | None,
) -> NoReturn:
    """``--estimate``: the sets checked and converted (eval's first step), then the bill; nothing is bought."""
    from scoring import estimate_evaluation

    prices = bill.read_prices(endpoint.model)
    with exits("eval", lang):
        validation, counted = estimate_evaluation(
            sets, directory, endpoint, settings, tokenizer=bill.tokenizer, prices=prices
        )
    if not validation.valid or validation.issues or validation.warnings:
        print_report(validation, err=True, quiet_valid=True, lang=lang)
    if counted is None:
        raise typer.Exit(EXIT_ERRORS)
    bill.show(counted, lang)
    raise typer.Exit(EXIT_OK)


eval_command.__doc__ = _HELP


def register(app: typer.Typer) -> None:
    app.command("eval", help=_HELP)(eval_command)
