"""``formatkit validate PATH... [--mode M] [--profile P] [--json] [--max-issues N | --all]``

The options are declared here (typer); the body is :func:`formatkit.cli._validate.run_validate`, which the
fast path of :func:`formatkit.cli.main` runs too: a new option here needs its entry in
:mod:`formatkit.cli._fast` (tests/cli/test_fast_path.py fails until it has one).
"""

from __future__ import annotations

import typer

from formatkit.cli._common import ModeOption, ProfileOption, lang_option
from formatkit.cli._options import IssueArgs, takes
from formatkit.cli._shapes import option_help
from formatkit.cli._validate import run_validate


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
    from_shape: str | None = typer.Option(
        None, "--from", metavar="KIND", help=option_help("The files are another tool's, in this shape", "read")
    ),
    *,
    issues: IssueArgs,
) -> None:
    """Check evaluation files; report every problem with its place. Exit 1 when errors are found."""
    code = run_validate(
        paths,
        mode=mode.value,
        profile=profile.value,
        as_json=as_json,
        sheet=sheet,
        lang=lang,
        shown=issues.shown,
        from_shape=from_shape,
    )
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)
