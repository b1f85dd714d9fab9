"""``formatkit convert PATH... -o OUT.jsonl [--mode M] [--profile P] [--no-meta]``"""

from __future__ import annotations

import typer

from formatkit.cli._common import (
    EXIT_ERRORS,
    EXIT_OK,
    ModeOption,
    ProfileOption,
    fail_usage,
    lang_option,
    paths_or_fail,
    print_report,
    terminate_cleanly,
)
from formatkit.cli._options import IssueArgs, takes


@takes(issues=IssueArgs)
def convert(
    paths: list[str] = typer.Argument(..., help="Input files, converted in order into one output.", metavar="PATH..."),
    output: str = typer.Option(..., "-o", "--output", help="The canonical jsonl to write."),
    mode: ModeOption = typer.Option(ModeOption.infer_eval, "--mode", help="What the files are for."),
    profile: ProfileOption = typer.Option(ProfileOption.platform, "--profile", help="Upload limits to apply."),
    no_meta: bool = typer.Option(False, "--no-meta", help="Leave out meta (the bare seed shape)."),
    sheet: str | None = typer.Option(
        None, "--sheet", metavar="NAME", help="Read this sheet of a workbook, not the first."
    ),
    lang: str | None = lang_option(),
    *,
    issues: IssueArgs,
) -> None:
    """Validate, then write canonical jsonl. Nothing is written when any error is found."""
    from formatkit._api.conversion import check_output
    from formatkit._api.conversion import convert as run_convert
    from formatkit._core.errors import OutputBusyError, OutputError
    from formatkit._core.messages import locale_lang, ui

    terminate_cleanly()
    shown = issues.shown
    paths = paths_or_fail(paths)
    try:
        check_output(output, paths)
    except OutputError as exc:  # a folder, a spreadsheet's name, an input: bad usage
        fail_usage(str(exc))
    try:
        report = run_convert(
            paths,
            output,
            mode=mode.value,
            profile=profile.value,
            meta=not no_meta,
            sheet=sheet,
        )
    except OutputBusyError as exc:
        fail_usage(f"{exc}; nothing was written")
    except (OutputError, OSError) as exc:  # a full disk, a folder that cannot be written: the machine's refusal
        typer.echo(f"formatkit convert: {exc}; nothing was written", err=True)
        raise typer.Exit(EXIT_ERRORS) from None
    if report.valid:
        print_report(report, err=True, quiet_valid=True, shown=shown, lang=lang)
        records = sum(f.records for f in report.files)
        typer.echo(ui("wrote_records", lang or locale_lang(), records=records, output=output), err=True)
        raise typer.Exit(EXIT_OK)
    print_report(report, err=True, shown=shown, lang=lang)
    typer.echo(ui("nothing_written", lang or locale_lang(), output=output), err=True)
    raise typer.Exit(EXIT_ERRORS)


def register(app: typer.Typer) -> None:
    app.command("convert")(convert)
