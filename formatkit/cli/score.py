"""``formatkit score IN -o OUT.jsonl [--metric M] [--json] [--judge-* ...]``"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from formatkit.cli._common import (
    EXIT_ERRORS,
    EXIT_OK,
    fail_usage,
    lang_option,
    output_or_fail,
    paths_or_fail,
    terminate_cleanly,
)
from formatkit.cli._failures import exits, say
from formatkit.cli._options import JudgeArgs, ScoreArgs, VerdictArgs, takes
from formatkit.messages import escape_controls
from scoring import METRICS
from scoring._cli_support import AUTO, metric_names

if TYPE_CHECKING:
    from scoring import FileScoreOutcome, JudgeOptions
    from scoring.errors import JudgeUnavailableError


_HELP = """Score the responses already present in IN and write every record, in input order, to OUT.

IN is canonical jsonl, or any Excel/jsonl input in `scored` mode (a reference and a response per
record). Each response gets `score` and `analysis`; one that cannot be scored (inference failed, a
judge is needed) gets `score: null` and the reason. The summary (0–100) is printed; --json prints the
summary JSON.

Metrics (--metric): auto picks choice, exact or math for each record from its reference and its
dataset's, and leaves free text for a judge (saying why; with --judge-base-url and --judge-model, the
judge scores it); {metrics}; or module:function, your own rule
metric (a function (reply, item) -> ItemScore, a number in [0, 1], a bool, or None).

A judge reply with no readable verdict is a void verdict: its response keeps `score: null`, and the
summary counts it beside the score ("1 of 2 records scored, 1 void verdict"); --void-as-zero counts it
as the lowest score in the summary instead.

IN may be a batch API's results file (OpenAI's /v1/batches, written from SET with `convert --to
openai-batch`): --from openai-batch --set SET writes its replies into SET's records (OUT's stem +
.answered.jsonl, beside OUT), then scores them.

A sheet `formatkit export` wrote (edited by a reviewer) keeps every score whose response, reference
and question were not edited, as it was (a judge's too: no judge is asked), scores again only what was
edited, takes a filled human_score as the score (scored_by: human, the machine's kept in overridden), and
says on stderr which records it changed. A human_score off the score's scale or not finite refuses the
sheet (exit 1, each named by its row; nothing is written) unless --skip-bad-labels leaves it out.

A judge's verdict belongs to the text it judged (its entry's fingerprint): a response edited after judging
keeps no judge score. Its verdict moves to `stale_verdict` (the reason, the fingerprints then and now);
it is judged again when judge options are given, else scored by the rules or left `score: null` with
unsettled_reason saying why.

Exit codes: 0 scored (some responses may be unscorable: they are counted in the summary); 1 the input is
invalid (issues are printed, nothing is written), a reviewed sheet's human_score cannot be used, or no
response at all could be scored; 2 bad usage, an unreadable path, or an unknown metric.
""".format(metrics="; ".join(f"{name} ({spec.summary})" for name, spec in METRICS.items()))


def _judge_hint(exc: JudgeUnavailableError, options: JudgeOptions, lang: str | None) -> str:
    """What to check when the judge endpoint was unusable, worded from the options given."""
    hint = exc.hint or say("judge_hint", lang)
    if exc.status == 401:
        hint += f" in ${options.judge_api_key_env}"
    elif exc.status == 404:
        hint += f" (--judge-base-url {options.judge_base_url}, --judge-model {options.judge_model})"
    return hint


def _finish(outcome: FileScoreOutcome, as_json: bool, lang: str | None) -> NoReturn:
    from formatkit.messages import locale_lang
    from scoring.report import render_summary as render

    extra = {"judge": outcome.judge_summary} if outcome.judge_summary else None
    typer.echo(render(outcome.aggregate, "json" if as_json else "text", extra, lang=lang or locale_lang()), nl=False)
    if not as_json:
        if outcome.judge_summary:
            from scoring._cli_support import judge_summary_lines as summary_lines

            for line in summary_lines(outcome.judge_summary):
                typer.echo(escape_controls(line))  # the judge's model, as the server named it
        typer.echo(say("wrote", lang, output=outcome.output))
    if outcome.scored_responses == 0:
        typer.echo(say("score.nothing_scored", lang), err=True)
        raise typer.Exit(EXIT_ERRORS)
    raise typer.Exit(EXIT_OK)


@takes(judge=JudgeArgs, scoring=ScoreArgs, verdicts=VerdictArgs)
def score(
    path: str = typer.Argument(..., help="Canonical jsonl, or an Excel/jsonl file in scored mode.", metavar="IN"),
    output: Path = typer.Option(..., "-o", "--output", help="Where to write the scored records (jsonl)."),
    metric: str = typer.Option(AUTO, "--metric", help=f"{AUTO}, {', '.join(METRICS)}, or module:function."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary JSON on stdout."),
    model_name: str | None = typer.Option(
        None, "--model-name", help="The model that answered, for responses that name none (collected elsewhere)."
    ),
    against: Path | None = typer.Option(None, "--against", help="pairwise: another model's results file."),
    judge_fallback: bool = typer.Option(
        False, "--judge-fallback", help="With --metric math: send only unsettled items to the math judge."
    ),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Judge requests in flight."),
    max_retries: int = typer.Option(5, "--max-retries", min=0, help="Retries per judge request."),
    timeout: float = typer.Option(120.0, "--timeout", help="Judge request timeout (seconds)."),
    workers: int = typer.Option(
        1, "--workers", min=1, metavar="N", help="Rule metrics: score in N processes (same output, in order)."
    ),
    lang: str | None = lang_option(),
    from_shape: str | None = typer.Option(
        None, "--from", metavar="openai-batch", help="IN is a batch API's results file (with --set)."
    ),
    set_path: str | None = typer.Option(
        None, "--set", metavar="SET", help="With --from openai-batch: the set the batch file was written from."
    ),
    skip_bad_labels: bool = typer.Option(
        False,
        "--skip-bad-labels",
        help="A reviewed sheet: leave out a human_score that cannot be used instead of refusing.",
    ),
    *,
    judge: JudgeArgs,
    scoring: ScoreArgs,
    verdicts: VerdictArgs,
) -> None:
    from formatkit.messages import locale_lang
    from scoring import score_file
    from scoring._cli_support import journal_path, make_progress

    terminate_cleanly()  # SIGTERM unwinds like Ctrl-C: no temporary output is left behind
    (path,) = paths_or_fail([path], read_twice="score", lang=lang)
    output_or_fail(output)
    spec = METRICS.get(metric)
    if judge_fallback and (spec is None or spec.judge_fallback is None):  # the table names each rule's judge
        fail_usage(
            f"--judge-fallback goes with --metric {' or '.join(n for n, s in METRICS.items() if s.judge_fallback)}"
        )
    if scoring.dataset_metric and metric != AUTO:
        fail_usage(f"--dataset-metric declares what auto scores a dataset with: it goes with --metric {AUTO}")
    if (from_shape is None) != (set_path is None) or from_shape not in (None, "openai-batch"):
        fail_usage("--from openai-batch and --set SET go together: IN is the batch's results, SET its set")
    if from_shape is not None and set_path is not None:
        path = _answered(path, set_path, output, lang)
    options = judge.judge_options(
        command="score",
        lang=lang,
        journal_path=journal_path(Path(output)),
        against=against,
        judge_fallback=judge_fallback,
        concurrency=concurrency,
        max_retries=max_retries,
        timeout=timeout,
    )
    judged = metric in metric_names("judge") or judge_fallback
    progress = make_progress(label="judge", unit="responses") if judged else None  # on stderr, as the runner's
    stopped = {
        "hint": lambda exc: _judge_hint(exc, options, lang),
        "journal": options.journal_path,
        "verdicts": lambda exc: (
            say("score.verdicts_kept", lang, exc, journal=options.journal_path)
            if getattr(exc, "bought", 0) or getattr(exc, "reused", 0)
            else say("score.no_verdicts", lang)
        ),
        "kept": say("score.kept", lang, journal=options.journal_path) if judged else "",
        "command": "score",  # a reviewed sheet's human_score that cannot be used: each at its row
        "problems": lambda exc: exc.listed(lang or locale_lang()),
    }
    with exits("score", lang, **stopped):
        outcome = score_file(
            path,
            output,
            scoring.score_options(
                metric=metric,
                model_name=model_name,
                void_as_zero=verdicts.void_as_zero,
                workers=workers,
                skip_bad_labels=skip_bad_labels,
            ),
            judge=options,
            progress=progress,
        )
    scoring.warn_undeclared(outcome.metrics, lang)
    _say_sheet(outcome, lang)
    _say_changes(outcome, lang)
    if not judge.given:  # with a judge endpoint, auto's free text was judged
        for name, pick in outcome.judge_needed.items():
            typer.echo(say("score.judge_needed", lang, pick, dataset=name), err=True)
    _finish(outcome, as_json, lang)


def _answered(results: str, set_path: str, output: Path, lang: str | None) -> str:
    """The set with the batch's replies written in (``convert --from openai-batch``), beside the output:
    the file ``score`` then reads. Exit 1 with the issues when the replies do not fit the set."""
    from formatkit import read_batch
    from formatkit.cli._printing import print_report

    (set_path,) = paths_or_fail([set_path], lang=lang)
    answered = output.with_name(f"{output.stem}.answered.jsonl")
    with exits("convert", lang):
        read = read_batch([results], set_path, answered, mode="infer-eval", profile="none")
    if not read.valid:
        print_report(read.report(), err=True, lang=lang)
        raise typer.Exit(EXIT_ERRORS)
    return str(answered)


def _say_sheet(outcome: FileScoreOutcome, lang: str | None) -> None:
    """Rows of a sheet people hid, deleted or whose row_key they broke, each at its place, on stderr."""
    from formatkit.messages import locale_lang

    words = lang or locale_lang()
    for issue in outcome.sheet_warnings:
        shown = issue.translated(words)
        place, message = escape_controls(shown.place_in(words)), escape_controls(shown.message)
        typer.echo(say("score.sheet_warning", lang, place=place, message=message, code=issue.code), err=True)


def _say_changes(outcome: FileScoreOutcome, lang: str | None) -> None:
    """A reviewed sheet: which scores changed (a person's, an edit's, a person's refused), on stderr."""
    if not outcome.reviewed and not outcome.changes:
        return
    typer.echo(say("score.review", lang, changed=sum(c.how != "refused" for c in outcome.changes)), err=True)
    for change in outcome.changes:
        typer.echo(
            say(
                f"score.review_{change.how}",
                lang,
                dataset=change.dataset,
                session_id=change.session_id,
                sample="" if change.sample == 1 else f" #{change.sample}",
                human=_shown(change.human),
                before=_shown(change.before),
            ),
            err=True,
        )


def _shown(value: float | None) -> str:
    if value is None:
        return "null"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


score.__doc__ = _HELP


def register(app: typer.Typer) -> None:
    app.command("score", help=_HELP)(score)
