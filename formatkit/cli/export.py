"""``formatkit export`` (not yet built)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("export", hidden=True)
    def _not_yet() -> None:
        typer.echo("formatkit export: not available yet", err=True)
        raise typer.Exit(2)
