"""``formatkit fix IN -o OUT [--dry-run] [--lang en|zh] [--mode M] [--profile P] [--json]``"""

from __future__ import annotations

import json

import typer

from formatkit.cli._common import (
    EXIT_ERRORS,
    EXIT_OK,
    ModeOption,
    ProfileOption,
    lang_option,
    paths_or_fail,
    print_report,
    terminate_cleanly,
)
from formatkit.cli._failures import exits
from formatkit.cli._options import IssueArgs, takes
from formatkit.cli._printing import escape_controls


@takes(issues=IssueArgs)
def fix(
    path: str = typer.Argument(..., help="The set to repair (.xlsx, .xls, .jsonl); never written.", metavar="IN"),
    output: str = typer.Option(..., "-o", "--output", help="The repaired copy (.xlsx for a workbook, .jsonl)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List the changes and validate the result; write nothing."),
    lang: str | None = lang_option(),
    mode: ModeOption = typer.Option(ModeOption.infer_eval, "--mode", help="What the file is for."),
    profile: ProfileOption = typer.Option(ProfileOption.platform, "--profile", help="Upload limits to apply."),
    as_json: bool = typer.Option(False, "--json", help="Print the changes and the copy's report as JSON."),
    *,
    issues: IssueArgs,
) -> None:
    """Write a repaired copy: every mechanical repair with one right answer, each listed at its cell or line.
    Exit 0 when the copy validates, 1 when errors remain (listed after the changes) or when a workbook
    validate reads cannot be opened for repair (nothing written, the reason said), 2 on bad usage."""
    from formatkit import Report, fix_file
    from formatkit.messages import Msg, locale_lang

    terminate_cleanly()
    language = lang or locale_lang()
    [source] = paths_or_fail([path], lang=lang)
    with exits("fix", language, why=lambda exc: exc.why.render(language)):
        result = fix_file(source, output, dry_run=dry_run, mode=mode.value, profile=profile.value)
    if as_json:
        typer.echo(json.dumps(result.document(language), ensure_ascii=False, indent=2))
        raise typer.Exit(EXIT_OK if result.valid else EXIT_ERRORS)
    fill = {"source": escape_controls(source), "output": escape_controls(output), "count": len(result.changes)}
    unread = not result.readable  # the input could not be read: its own report follows
    head = "unread" if unread else ("none" if not result.changes else "head") + ("_dry" if dry_run else "")
    typer.echo(Msg(f"fix.ui.{head}", **fill).render(language))
    for change in [*result.changes, *result.notes]:
        place = escape_controls(change.place) or fill["source"]
        typer.echo(f"  {place}: {escape_controls(change.message(language))}")
    typer.echo(Msg("fix.ui." + ("input" if unread else "after_dry" if dry_run else "after")).render(language))
    print_report(Report.build([result.report]), shown=issues.shown, lang=language)
    if result.valid:
        raise typer.Exit(EXIT_OK)
    if not unread:
        typer.echo(Msg("fix.ui.left", errors=result.report.errors, output=fill["output"]).render(language))
    raise typer.Exit(EXIT_ERRORS)


def register(app: typer.Typer) -> None:
    app.command("fix")(fix)
