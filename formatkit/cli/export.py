"""``formatkit export RESULTS.jsonl -o OUT.xlsx``"""

from __future__ import annotations

import typer

from formatkit.cli._common import EXIT_ERRORS, EXIT_OK, fail_usage, output_or_fail, paths_or_fail, print_report


def export(
    path: str = typer.Argument(..., help="Canonical jsonl (or any valid input) to export.", metavar="RESULTS.jsonl"),
    output: str = typer.Option(..., "-o", "--output", help="The .xlsx to write."),
) -> None:
    """Write canonical records back to a spreadsheet people can read (one row per user turn)."""
    from formatkit._api.export import export_excel
    from formatkit._api.validate import iter_dicts, validate_file
    from formatkit._core.errors import InvalidFileError
    from formatkit._core.issues import Report

    if not output.lower().endswith(".xlsx"):
        fail_usage(f"{output}: export writes .xlsx files")
    [source] = paths_or_fail([path])
    output_or_fail(output)
    report = validate_file(source, mode="infer-only", profile="none")
    if not report.valid:
        print_report(Report.build([report]), err=True)
        raise typer.Exit(EXIT_ERRORS)
    try:
        rows = export_excel(iter_dicts(source, mode="infer-only"), output)
    except (InvalidFileError, OSError) as exc:
        fail_usage(str(exc))
    typer.echo(f"wrote {rows} rows to {output}", err=True)
    raise typer.Exit(EXIT_OK)


def register(app: typer.Typer) -> None:
    app.command("export")(export)
