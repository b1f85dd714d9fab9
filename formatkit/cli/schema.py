"""``formatkit schema [NAME] [--write]``"""

from __future__ import annotations

from pathlib import Path

import typer

from formatkit.cli._common import fail_usage


def schema(
    name: str | None = typer.Argument(
        None, help="record, report, jsonl-single-turn or jsonl-multi-turn; all when omitted."
    ),
    write: bool = typer.Option(False, "--write", help="Regenerate the schema files instead of printing."),
    folder: Path = typer.Option(Path("schemas"), "--dir", help="Where --write puts the files."),
) -> None:
    """Print the JSON Schemas of the file formats and the validation report, or write them."""
    from formatkit.schema import SCHEMA_NAMES, build_schema, render, write_all

    if name is not None and name not in SCHEMA_NAMES:
        fail_usage(f"unknown schema {name!r}; choose from {', '.join(SCHEMA_NAMES)}")
    if write:
        for path in write_all(folder):
            typer.echo(f"wrote {path}", err=True)
        return
    if name is not None:
        typer.echo(render(name), nl=False)
    else:
        import json

        typer.echo(json.dumps({n: build_schema(n) for n in SCHEMA_NAMES}, ensure_ascii=False, indent=2))


def register(app: typer.Typer) -> None:
    app.command("schema")(schema)
