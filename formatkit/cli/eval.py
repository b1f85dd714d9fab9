"""``formatkit eval SET... --base-url URL --model NAME [-o DIR] [--limit N] [--judge-...]``: the whole flow."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import typer

from formatkit.cli._common import (
    EXIT_ERRORS,
    EXIT_OK,
    EXIT_USAGE,
    ModeOption,
    ProfileOption,
    fail_usage,
    lang_option,
    paths_or_fail,
    print_report,
)
from formatkit.cli.run import EXIT_INTERRUPTED, EXIT_TERMINATED, _pairs, _summary_lines, parse_params, read_api_key

_HELP = """Validate, convert, run, score and report in one command; rerun it to resume at any stage.

Into DIR (-o, default ./formatkit-eval): canonical.jsonl (the sets converted), answered.jsonl (the
model's responses, journaled), scored.jsonl (auto scoring: choice, exact or math per record; free text
goes to the judge when --judge-base-url and --judge-model are given, else it is left unscored) and
report.txt, report.json, report.html, report.xlsx. --limit N runs only the first N records of each dataset
(a smoke run).

Exit codes: 0 every record answered and scored; 1 a set is invalid (issues printed, nothing run), some
records ended in error, an endpoint could not serve, or nothing could be scored; 2 bad usage; 130
interrupted (Ctrl-C) and 143 terminated (SIGTERM): rerun to resume.
"""


def _stopped(stage: str, message: str, hint: str, rerun: str) -> NoReturn:
    typer.echo(f"formatkit eval: {stage} stopped: {message}\n  {hint}.\n  {rerun}", err=True)
    raise typer.Exit(EXIT_ERRORS)


def eval_command(
    sets: list[str] = typer.Argument(..., metavar="SET...", help="Evaluation sets: Excel (.xlsx/.xls) or jsonl."),
    base_url: str = typer.Option(..., "--base-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1"),
    model: str = typer.Option(..., "--model", help="Model name (or a platform's endpoint id)."),
    directory: Path = typer.Option(Path("formatkit-eval"), "-o", "--output", help="The directory to write into."),
    api_key_env: str = typer.Option("OPENAI_API_KEY", "--api-key-env", help="Environment variable with the key."),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Requests in flight at most."),
    rpm: float | None = typer.Option(None, "--rpm", min=0.001, help="Requests per minute at most."),
    max_retries: int = typer.Option(5, "--max-retries", min=0, help="Retries per request after the first try."),
    timeout: float = typer.Option(60.0, "--timeout", min=0.001, help="Seconds of silence before an attempt fails."),
    param: list[str] = typer.Option([], "--param", metavar="KEY=VALUE", help="Default parameter (JSON value)."),
    header: list[str] = typer.Option([], "--header", metavar="NAME=VALUE", help="Extra HTTP header, repeatable."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N records of each dataset."),
    mode: ModeOption = typer.Option(ModeOption.infer_eval, "--mode", help="What the sets are for."),
    profile: ProfileOption = typer.Option(ProfileOption.platform, "--profile", help="Upload limits, or none."),
    restart: bool = typer.Option(False, "--restart", help="Discard the run's journal and start from scratch."),
    judge_base_url: str | None = typer.Option(None, "--judge-base-url", help="Judge endpoint, for free text."),
    judge_model: str | None = typer.Option(None, "--judge-model", help="Judge model name."),
    judge_api_key_env: str = typer.Option("OPENAI_API_KEY", "--judge-api-key-env", help="Env var with its key."),
    lang: str | None = lang_option(),
) -> None:
    defaults = parse_params(param)
    headers = _pairs("--header", header, "NAME=VALUE, e.g. --header api-key=...")
    if not base_url.startswith(("http://", "https://")):
        fail_usage(f"--base-url {base_url!r}: expected an http:// or https:// URL")
    if (judge_base_url is None) != (judge_model is None):
        fail_usage("--judge-base-url and --judge-model go together")
    if directory.exists() and not directory.is_dir():
        fail_usage(f"-o {directory}: not a directory")
    sets = paths_or_fail(sets)

    from scoring._errors import EndpointUnavailableError, JudgeUnavailableError, OutputLockedError, RunInterrupted
    from scoring._judges import JudgeSetupError
    from scoring._judges.options import JudgeOptions
    from scoring._pipeline.evaluate import evaluate
    from scoring._runner.progress import make_progress
    from scoring._runner.run_file import EndpointOptions

    endpoint = EndpointOptions(
        base_url,
        model,
        api_key=read_api_key("eval", api_key_env),
        concurrency=concurrency,
        rpm=rpm,
        timeout=timeout,
        max_retries=max_retries,
        headers=headers,
    )
    judge = None
    if judge_base_url is not None:
        judge = JudgeOptions(
            judge_base_url=judge_base_url,
            judge_model=judge_model,
            judge_api_key_env=judge_api_key_env,
            concurrency=concurrency,
            max_retries=max_retries,
        )
    rerun = "Rerun the same command to resume: nothing finished is sent again."
    try:
        outcome = evaluate(
            sets,
            directory,
            endpoint,
            judge=judge,
            limit=limit,
            mode=mode.value,
            profile=profile.value,
            defaults=defaults,
            restart=restart,
            run_progress=make_progress(),
            judge_progress=make_progress(label="judge", unit="responses"),
        )
    except OutputLockedError as exc:
        typer.echo(f"formatkit eval: {exc}; nothing was sent.", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    except JudgeSetupError as exc:
        fail_usage(str(exc))
    except JudgeUnavailableError as exc:
        _stopped("judging", str(exc), exc.hint or "check the judge endpoint", rerun)
    except EndpointUnavailableError as exc:
        _stopped("the run", str(exc), exc.hint or "check --base-url, --model and the key", rerun)
    except RunInterrupted:
        typer.echo(f"formatkit eval: terminated (SIGTERM). {rerun}", err=True)
        raise typer.Exit(EXIT_TERMINATED) from None
    except KeyboardInterrupt:
        typer.echo(f"formatkit eval: interrupted. {rerun}", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if not outcome.validation.valid or outcome.validation.issues or outcome.validation.warnings:
        print_report(outcome.validation, err=True, quiet_valid=True, lang=lang)
    if not outcome.validation.valid:
        raise typer.Exit(EXIT_ERRORS)
    assert outcome.run is not None and outcome.score is not None
    for line in _summary_lines(outcome.run, outcome.paths.answered):
        typer.echo(line, err=True)
    for name, pick in outcome.score.judge_needed.items():
        typer.echo(f"formatkit eval: {name}: a judge is needed — {pick.reason}; left unscored", err=True)
    report = outcome.paths.report("text")
    typer.echo(report.read_text(encoding="utf-8"), nl=False)
    typer.echo(f"wrote {', '.join(str(p) for p in outcome.reports)}", err=True)
    raise typer.Exit(EXIT_OK if outcome.ok else EXIT_ERRORS)


eval_command.__doc__ = _HELP


def register(app: typer.Typer) -> None:
    app.command("eval", help=_HELP)(eval_command)
