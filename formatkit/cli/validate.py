"""``formatkit validate PATH... [--mode M] [--profile P] [--json] [--max-issues N | --all]``"""

from __future__ import annotations

import typer

from formatkit.cli._common import (
    EXIT_ERRORS,
    EXIT_OK,
    ModeOption,
    ProfileOption,
    lang_option,
    paths_or_fail,
    print_report,
)
from formatkit.cli._options import IssueArgs, takes


@takes(issues=IssueArgs)
def validate(
    paths: list[str] = typer.Argument(..., help="Excel (.xlsx, .xls) or jsonl files to check.", metavar="PATH..."),
    mode: ModeOption = typer.Option(ModeOption.infer_eval, "--mode", help="What the files are for."),
    profile: ProfileOption = typer.Option(ProfileOption.platform, "--profile", help="Upload limits to apply."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON on stdout (every kept issue)."),
    sheet: str | None = typer.Option(
        None, "--sheet", metavar="NAME", help="Read this sheet of a workbook, not the first."
    ),
    lang: str | None = lang_option(),
    *,
    issues: IssueArgs,
) -> None:
    """Check evaluation files; report every problem with its place. Exit 1 when errors are found."""
    from formatkit._api.validate import validate_files

    report = validate_files(paths_or_fail(paths), mode=mode.value, profile=profile.value, sheet=sheet)
    if as_json:
        from formatkit._core.messages import locale_lang

        typer.echo(report.translated(lang or locale_lang()).model_dump_json(indent=2))
    else:
        print_report(report, shown=issues.shown, lang=lang)
    raise typer.Exit(EXIT_OK if report.valid else EXIT_ERRORS)


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)
