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
    shown_issues,
    terminate_cleanly,
)


def convert(
    paths: list[str] = typer.Argument(..., help="Input files, converted in order into one output.", metavar="PATH..."),
    output: str = typer.Option(..., "-o", "--output", help="The canonical jsonl to write."),
    mode: ModeOption = typer.Option(ModeOption.infer_eval, "--mode", help="What the files are for."),
    profile: ProfileOption = typer.Option(ProfileOption.platform, "--profile", help="Upload limits to apply."),
    no_meta: bool = typer.Option(False, "--no-meta", help="Leave out meta (the bare seed shape)."),
    max_issues: int = typer.Option(5, "--max-issues", min=1, help="Places listed per issue code."),
    show_all: bool = typer.Option(False, "--all", help="List every issue, not only the first of each code."),
    sheet: str | None = typer.Option(
        None, "--sheet", metavar="NAME", help="Read this sheet of a workbook, not the first."
    ),
    lang: str | None = lang_option(),
) -> None:
    """Validate, then write canonical jsonl. Nothing is written when any error is found."""
    from formatkit._api.conversion import convert as run_convert
    from formatkit._core.errors import OutputError
    from formatkit._core.messages import locale_lang, ui

    terminate_cleanly()
    shown = shown_issues(max_issues, show_all)
    try:
        report = run_convert(
            paths_or_fail(paths),
            output,
            mode=mode.value,
            profile=profile.value,
            meta=not no_meta,
            sheet=sheet,
        )
    except (OutputError, OSError) as exc:
        fail_usage(str(exc))
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
