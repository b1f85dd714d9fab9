"""``formatkit convert PATH... -o OUT.jsonl [--mode M] [--profile P] [--no-meta]``

The options are declared here (typer); the body is :func:`formatkit.cli._convert.run_convert`, which the
fast path of :func:`formatkit.cli.main` runs too: a new option here needs its entry in
:mod:`formatkit.cli._fast` (tests/cli/test_fast_path.py fails until it has one).
"""

from __future__ import annotations

import typer

from formatkit.cli._common import ModeOption, ProfileOption, lang_option
from formatkit.cli._convert import run_convert
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
    code = run_convert(
        paths,
        output,
        mode=mode.value,
        profile=profile.value,
        meta=not no_meta,
        sheet=sheet,
        lang=lang,
        shown=issues.shown,
    )
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("convert")(convert)
