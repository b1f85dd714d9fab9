"""``formatkit run IN -o OUT.jsonl --base-url URL --model NAME [...]``: infer every pending turn.

The command validates IN, then hands it to :func:`scoring._runner.run_file.run_file`, which journals each
finished record to ``OUT.journal`` and writes OUT atomically at the end. Rerunning resumes.
Exit codes: 0 every record finished with content, 1 some ended in error or with an empty reply (or the
run stopped because the endpoint cannot serve), 2 bad usage (or OUT is being written by another run),
130 interrupted by Ctrl-C, 143 stopped by SIGTERM; the journal keeps what finished in every case and no
temporary file is left.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from formatkit.cli._common import (
    EXIT_ERRORS,
    EXIT_OK,
    ModeOption,
    fail_usage,
    lang_option,
    paths_or_fail,
    print_report,
)
from formatkit.cli._estimate import EstimateArgs
from formatkit.cli._failures import exits, say
from formatkit.cli._options import EndpointArgs, RunArgs, takes

if TYPE_CHECKING:
    from scoring import RunSummary
    from scoring._cli_support import DryRunPlan, RunJob

__all__ = ["parse_shard", "recorded_command", "register", "run", "summary_lines"]


def parse_shard(text: str | None) -> Any:
    """``--shard K/N`` as a :class:`~scoring._runner.shard.Shard` (None when not given); bad usage otherwise."""
    if text is None:
        return None
    from scoring import Shard

    try:
        return Shard.parse(text)
    except ValueError as exc:
        fail_usage(f"--shard {exc}")


def shard_option() -> Any:
    return typer.Option(
        None,
        "--shard",
        metavar="K/N",
        help="Only part K of N (records K, K+N, ...; K from 1): N machines each run one; `formatkit merge` joins.",
    )


def recorded_command(ctx: typer.Context | None = None) -> str:
    """The command being run, for the run record (``--header`` values masked, URLs made public): rebuilt
    from the parsed options of ``ctx`` (every option not left at its default, in the command's order), so
    it is the same however the command was started (a shell, a script, a test's runner)."""
    from scoring._cli_support import safe_command

    if ctx is None:
        return safe_command(["formatkit", *sys.argv[1:]])
    words = ["formatkit", ctx.info_name or ""]
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        kind = getattr(param, "param_type_name", "")
        if kind == "argument":
            words += [_word(v) for v in value] if isinstance(value, (list, tuple)) else [_word(value)]
            continue
        if kind != "option" or value == param.default or value in (None, [], ()):
            continue
        if getattr(param, "is_flag", False):
            names = param.opts if value else param.secondary_opts
            words += names[-1:] if names else []
        elif isinstance(value, (list, tuple)):
            for item in value:
                words += [param.opts[-1], _word(item)]
        else:
            words += [param.opts[-1], _word(value)]
    return safe_command(words)


def _word(value: Any) -> str:
    from enum import Enum

    return str(value.value if isinstance(value, Enum) else value)


def summary_lines(summary: RunSummary, out: Path, lang: str | None = None) -> list[str]:
    """What a run did, for a person (``ui.run.summary.*`` in ``lang``; None: the locale's)."""
    attempts = (
        say("run.summary.attempts", lang, attempts=summary.attempts) if summary.attempts > summary.requests else ""
    )
    lines = [
        say("run.summary.head", lang, summary, output=out),
        say("run.summary.requests", lang, summary, with_retries=attempts),
    ]
    if summary.errors_by_kind:
        kinds = ", ".join(f"{kind} {count}" for kind, count in summary.errors_by_kind.most_common())
        lines.append(say("run.summary.errors", lang, kinds=kinds))
    if summary.empty_replies or summary.cut_off:
        lines.append(say("run.summary.replies", lang, summary))
        if summary.empty_replies:
            lines.append(say("run.summary.retry_empty", lang))
    tokens = summary.tokens
    lines.append(
        say(
            "run.summary.tokens",
            lang,
            prompt=tokens["prompt_tokens"],
            completion=tokens["completion_tokens"],
            total=tokens["total_tokens"],
        )
    )
    if summary.stale_journal_entries:
        lines.append(say("run.summary.stale", lang, summary))
    # a note the library words from the catalogue carries its message (``msg``): said in ``lang`` too
    lines.extend(say("run.summary.note", lang, note=getattr(note, "msg", note)) for note in summary.notes)
    if summary.with_errors:
        lines.append(say("run.summary.retry_errors", lang))
    return lines


@takes(endpoint=EndpointArgs, requests=RunArgs, bill=EstimateArgs)
def run(
    ctx: typer.Context,
    source: str = typer.Argument(..., metavar="IN", help="Canonical jsonl, or any Excel/jsonl evaluation set."),
    output: Path = typer.Option(..., "-o", "--output", help="The canonical jsonl to write (OUT.journal beside it)."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N records (a smoke run)."),
    shard: str | None = shard_option(),
    mode: ModeOption = typer.Option(ModeOption.infer_eval, "--mode", help="What the input is for."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the first request body and the count; send nothing."),
    lang: str | None = lang_option(),
    *,
    endpoint: EndpointArgs,
    requests: RunArgs,
    bill: EstimateArgs,
) -> None:
    """Send every pending turn to an OpenAI-compatible endpoint and write the responses (resumable)."""
    part = parse_shard(shard)
    bill.check()
    if bill.estimate and dry_run:
        fail_usage("--estimate and --dry-run each say what a run would send: give one of them")
    defaults = requests.defaults()
    endpoint.check()
    paths_or_fail([source], read_twice="run", lang=lang)
    if Path(source).resolve() == output.resolve():
        fail_usage("OUT must not be IN: the input is read again at the end to write the output")

    from formatkit import validate_file

    report = validate_file(source, mode=mode.value, profile="none")
    if not report.valid or report.issues:
        from formatkit import Report

        print_report(Report.build([report], []), err=True, quiet_valid=True, lang=lang)
    if not report.valid:
        raise typer.Exit(EXIT_ERRORS)

    from formatkit.messages import locale_lang
    from scoring import run_file
    from scoring._cli_support import journal_path, make_progress, plan_file

    options = endpoint.endpoint_options("run", lang)
    settings = requests.run_options(defaults=defaults, limit=limit, mode=mode.value, shard=part)
    if dry_run:
        _dry_run(plan_file(source, output, options, settings), lang)
        raise typer.Exit(EXIT_OK)
    if bill.estimate:
        from scoring import estimate_file

        prices = bill.read_prices(options.model)
        with exits("run", lang):
            counted = estimate_file(source, output, options, settings, tokenizer=bill.tokenizer, prices=prices)
        bill.show(counted, lang)
        raise typer.Exit(EXIT_OK)

    jobs: list[RunJob] = []
    journal = journal_path(output)
    stopped = {
        "hint": endpoint.stopped_hint,
        "kept": lambda _exc: _kept(jobs, journal, lang),
        "journal": journal,
        "output": output,
    }
    with exits("run", lang, **stopped):
        summary = run_file(
            source,
            output,
            options,
            settings,
            progress=make_progress(interval=requests.progress_interval, lang=lang or locale_lang()),
            total=report.records,
            started=jobs.append,
            command=recorded_command(ctx),
        )
    for line in summary_lines(summary, output, lang):
        typer.echo(line, err=True)
    raise typer.Exit(EXIT_OK if summary.all_content else EXIT_ERRORS)


def _kept(jobs: list[RunJob], journal: Path, lang: str | None) -> str:
    """What this run journaled before it stopped, finished records and records that ended in error apart."""
    summary = jobs[0].summary if jobs else None
    if summary is None:
        return say("run.kept_nothing", lang, journal=journal)
    done = summary.sent_records - summary.sent_with_errors
    text = say("run.kept", lang, done=done, journal=journal)
    if summary.sent_with_errors:
        text += say("run.kept_errors", lang, errors=summary.sent_with_errors)
    return text + say("run.kept_attempts", lang, attempts=summary.attempts)


def _dry_run(plan: DryRunPlan, lang: str | None) -> None:
    import orjson

    if plan.first_request is not None:
        sys.stdout.write(orjson.dumps(plan.first_request, option=orjson.OPT_INDENT_2).decode() + "\n")
        sys.stdout.flush()
    typer.echo(say("run.dry_run", lang, plan), err=True)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
