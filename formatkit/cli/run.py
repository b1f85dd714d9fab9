"""``formatkit run IN -o OUT.jsonl --base-url URL --model NAME [...]``: infer every pending turn.

The command validates IN, then hands it to :func:`scoring._runner.run_file.run_file`, which journals each
finished record to ``OUT.journal`` and writes OUT atomically at the end. Rerunning resumes.
Exit codes: 0 every record finished with content, 1 some ended in error or with an empty reply (or the
run stopped because the endpoint cannot serve), 2 bad usage (or OUT is being written by another run),
130 interrupted by Ctrl-C, 143 stopped by SIGTERM; the journal keeps what finished in every case and no
temporary file is left.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from formatkit.cli._common import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, ModeOption, fail_usage, paths_or_fail, print_report

if TYPE_CHECKING:
    from scoring._runner.job import RunJob, RunSummary

__all__ = ["parse_params", "read_api_key", "register", "run"]

EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


def parse_params(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; a value is JSON when it parses as JSON, else the text as given.

    A key of the parameter table (FORMATS.md) must have a value of its type and range, as in a set:
    ``--param temperature=5`` would make the endpoint refuse every request. Other keys (``top_k``, a
    server's own options) are sent as given.
    """
    import orjson

    from formatkit._rules.parameters import KNOWN_PARAMETERS

    params: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            fail_usage(f"--param {item!r}: expected KEY=VALUE, e.g. --param temperature=0.7")
        if key in ("stream", "stream_options"):
            fail_usage(
                f"--param {item!r}: formatkit decides streaming itself (it streams by default and reads the "
                "whole reply); use --no-stream to send plain requests"
            )
        try:
            params[key] = orjson.loads(raw)
        except orjson.JSONDecodeError:
            params[key] = raw
        spec = KNOWN_PARAMETERS.get(key)
        problem = spec.problem(params[key]) if spec is not None else None
        if spec is not None and problem is not None:
            kind, _, allowed = problem.partition(":")
            fail_usage(f"--param {item!r}: {key} must be {allowed}" + (" (JSON)" if kind == "type" else ""))
    return params


def read_api_key(command: str, api_key_env: str) -> str | None:
    """The key in ``$api_key_env``, cleaned (a CRLF ``.env`` leaves a ``\\r``), with a warning on stderr when
    it had to be cleaned or when a variable named with --api-key-env is not set (no key is then sent)."""
    from scoring._client.http import clean_api_key

    api_key, warning = clean_api_key(os.environ.get(api_key_env))
    if warning:
        typer.echo(f"formatkit {command}: warning: ${api_key_env}: {warning}", err=True)
    if api_key is None and api_key_env != "OPENAI_API_KEY":
        typer.echo(
            f"formatkit {command}: warning: --api-key-env {api_key_env}: that variable is not set (or empty); "
            "requests are sent without an API key",
            err=True,
        )
    return api_key


def _pairs(option: str, items: list[str], example: str) -> dict[str, str]:
    """``K=V`` items of a repeatable option (the value may itself hold ``=``)."""
    pairs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            fail_usage(f"{option} {item!r}: expected {example}")
        pairs[key.strip()] = value.strip() if option != "--header" else value.lstrip()
    return pairs


def _summary_lines(summary: RunSummary, out: Path) -> list[str]:
    lines = [
        f"run: {summary.records} records written to {out}: {summary.finished} finished, "
        f"{summary.with_errors} with errors",
        f"  this run: {summary.requests} requests for {summary.sent_records} records"
        + (f" ({summary.attempts} HTTP attempts with the retries)" if summary.attempts > summary.requests else "")
        + f"; {summary.resumed} taken from the journal; {summary.nothing_to_do} had nothing to send",
    ]
    if summary.errors_by_kind:
        kinds = ", ".join(f"{kind} {count}" for kind, count in summary.errors_by_kind.most_common())
        lines.append(f"  errors by kind: {kinds}")
    if summary.empty_replies or summary.cut_off:
        lines.append(
            f"  replies: {summary.empty_replies} empty (no content: nothing to score), "
            f"{summary.cut_off} cut off at the token limit (finish_reason: length)"
        )
        if summary.empty_replies:
            lines.append(
                "  rerun with --retry-empty N to ask the empty ones again "
                "(a reasoning model may need a larger max_tokens)"
            )
    tokens = summary.tokens
    lines.append(
        f"  tokens: prompt {tokens['prompt_tokens']}, completion {tokens['completion_tokens']}, "
        f"total {tokens['total_tokens']}"
    )
    if summary.stale_journal_entries:
        lines.append(
            f"  note: {summary.stale_journal_entries} journal entries did not match the input or settings "
            "(changed since) and were ignored"
        )
    lines.extend(f"  note: {note}" for note in summary.notes)
    if summary.with_errors:
        lines.append("  rerun the same command to retry the records that ended in error")
    return lines


def run(
    source: str = typer.Argument(..., metavar="IN", help="Canonical jsonl, or any Excel/jsonl evaluation set."),
    output: Path = typer.Option(..., "-o", "--output", help="The canonical jsonl to write (OUT.journal beside it)."),
    base_url: str = typer.Option(
        ..., "--base-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (a ?query is kept)."
    ),
    model: str = typer.Option(..., "--model", help="Model name (or a platform's endpoint id)."),
    api_key_env: str = typer.Option(
        "OPENAI_API_KEY", "--api-key-env", help="Environment variable holding the API key (unset: no key)."
    ),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Requests in flight at most."),
    rpm: float | None = typer.Option(None, "--rpm", min=0.001, help="Requests per minute at most."),
    max_retries: int = typer.Option(
        5, "--max-retries", min=0, help="Retries per request after the first try (rate limits are always waited out)."
    ),
    timeout: float = typer.Option(
        60.0,
        "--timeout",
        min=0.001,
        help="Longest silence allowed, in seconds: to connect, or between two pieces of a reply.",
    ),
    max_time: float | None = typer.Option(
        None, "--max-time", min=0.001, help="Cap on one attempt as a whole, in seconds (default: none)."
    ),
    stream: bool = typer.Option(True, "--stream/--no-stream", help="Stream replies (SSE; default) or not."),
    param: list[str] = typer.Option(
        [], "--param", metavar="KEY=VALUE", help="Default parameter (JSON value); the set's own parameters win."
    ),
    header: list[str] = typer.Option(
        [], "--header", metavar="NAME=VALUE", help="Extra HTTP header for every request (repeatable)."
    ),
    rename_param: list[str] = typer.Option(
        [],
        "--rename-param",
        metavar="OLD=NEW",
        help="Send parameter OLD as NEW, e.g. max_tokens=max_completion_tokens.",
    ),
    drop_param: list[str] = typer.Option([], "--drop-param", metavar="KEY", help="Never send parameter KEY."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N records (a smoke run)."),
    retry_empty: int = typer.Option(
        0, "--retry-empty", min=0, metavar="N", help="Ask an empty reply again up to N times (also on a rerun)."
    ),
    mode: ModeOption = typer.Option(ModeOption.infer_eval, "--mode", help="What the input is for."),
    restart: bool = typer.Option(False, "--restart", help="Discard the journal and start from scratch."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the first request body and the count; send nothing."),
    logprobs: bool = typer.Option(False, "--logprobs", help="Ask for logprobs (as --param logprobs=true)."),
    backoff_base: float = typer.Option(0.5, "--backoff-base", hidden=True, min=0.0),
    unavailable_after: int = typer.Option(
        3,
        "--unavailable-after",
        min=1,
        help="Stop when this many first requests fail the same way, or this many in a row fail endpoint-wide.",
    ),
    progress_interval: float = typer.Option(10.0, "--progress-interval", hidden=True, min=0.0),
    rate_limit_window: float = typer.Option(60.0, "--rate-limit-window", hidden=True, min=0.0),
) -> None:
    """Send every pending turn to an OpenAI-compatible endpoint and write the responses (resumable)."""
    defaults = parse_params(param)
    if logprobs:
        defaults.setdefault("logprobs", True)
    headers = _pairs("--header", header, "NAME=VALUE, e.g. --header api-key=...")
    renames = _pairs("--rename-param", rename_param, "OLD=NEW, e.g. --rename-param max_tokens=max_completion_tokens")
    if not base_url.startswith(("http://", "https://")):
        fail_usage(f"--base-url {base_url!r}: expected an http:// or https:// URL")
    paths_or_fail([source])
    if Path(source).resolve() == output.resolve():
        fail_usage("OUT must not be IN: the input is read again at the end to write the output")

    from formatkit._api.validate import validate_file

    report = validate_file(source, mode=mode.value, profile="none")
    if not report.valid or report.issues:
        from formatkit._core.issues import Report

        print_report(Report.build([report], []), err=True, quiet_valid=True)
    if not report.valid:
        raise typer.Exit(EXIT_ERRORS)

    from scoring._client.url import public_url
    from scoring._errors import EndpointUnavailableError, OutputLockedError, RunInterrupted
    from scoring._runner.job import journal_path
    from scoring._runner.progress import make_progress
    from scoring._runner.run_file import EndpointOptions, plan_file, run_file

    api_key = read_api_key("run", api_key_env)
    endpoint = EndpointOptions(
        base_url,
        model,
        api_key=api_key,
        concurrency=concurrency,
        rpm=rpm,
        timeout=timeout,
        max_time=max_time,
        max_retries=max_retries,
        stream=stream,
        headers=headers,
        rename_params=renames,
        drop_params=tuple(drop_param),
        backoff_base=backoff_base,
        unavailable_after=unavailable_after,
        rate_limit_window=rate_limit_window,
    )
    options: dict[str, Any] = {
        "defaults": defaults,
        "restart": restart,
        "limit": limit,
        "retry_empty": retry_empty,
        "mode": mode.value,
    }
    if dry_run:
        _dry_run(plan_file(source, output, endpoint, **options))
        raise typer.Exit(EXIT_OK)

    jobs: list[RunJob] = []
    journal = journal_path(output)
    shown_url = public_url(base_url)
    try:
        summary = run_file(
            source,
            output,
            endpoint,
            progress=make_progress(interval=progress_interval),
            total=report.records,
            started=jobs.append,
            **options,
        )
    except OutputLockedError as exc:
        typer.echo(f"formatkit run: {exc}; nothing was sent.", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    except EndpointUnavailableError as exc:
        hint = exc.hint or "check the endpoint"
        if exc.kind == "key":
            hint += f" in ${api_key_env}" + (" (it is not set)" if api_key is None else "")
        else:
            hint += f" (--base-url {shown_url}, --model {model})"
            if api_key is None and exc.kind in ("refused", "other"):  # LiteLLM answers a missing key with 500
                hint += f"; no API key was sent: set ${api_key_env} if the endpoint needs one"
        typer.echo(
            f"formatkit run: stopped: {exc}\n  {hint}.\n  {_kept(jobs, journal)}; "
            f"{output} was not written. Rerun the same command to resume: finished records are not sent again.",
            err=True,
        )
        raise typer.Exit(EXIT_ERRORS) from None
    except OSError as exc:
        typer.echo(
            f"formatkit run: stopped by an I/O error: {exc}; finished records are kept in {journal}; rerun to resume.",
            err=True,
        )
        raise typer.Exit(EXIT_ERRORS) from None
    except RunInterrupted:
        typer.echo(f"formatkit run: terminated (SIGTERM). {_kept(jobs, journal)}; rerun to resume.", err=True)
        raise typer.Exit(EXIT_TERMINATED) from None
    except KeyboardInterrupt:
        typer.echo(f"formatkit run: interrupted. {_kept(jobs, journal)}; rerun to resume.", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    for line in _summary_lines(summary, output):
        typer.echo(line, err=True)
    raise typer.Exit(EXIT_OK if summary.all_content else EXIT_ERRORS)


def _kept(jobs: list[RunJob], journal: Path) -> str:
    """What this run journaled before it stopped, finished records and records that ended in error apart."""
    summary = jobs[0].summary if jobs else None
    if summary is None:
        return f"nothing was journaled in {journal}"
    done = summary.sent_records - summary.sent_with_errors
    text = f"{done} record(s) finished in this run are kept in {journal}"
    if summary.sent_with_errors:
        text += f" ({summary.sent_with_errors} more ended in error and will be retried)"
    return text + f", after {summary.attempts} HTTP attempt(s)"


def _dry_run(plan: Any) -> None:
    import orjson

    if plan.first_request is not None:
        sys.stdout.write(orjson.dumps(plan.first_request, option=orjson.OPT_INDENT_2).decode() + "\n")
        sys.stdout.flush()
    typer.echo(
        f"dry run: would send {plan.requests} request(s) for {plan.records_with_work} record(s) "
        f"({plan.already_finished} of {plan.records} already finished in the journal); nothing was sent",
        err=True,
    )


def register(app: typer.Typer) -> None:
    app.command("run")(run)
