"""``formatkit report`` (not yet built)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("report", hidden=True)
    def _not_yet() -> None:
        typer.echo("formatkit report: not available yet", err=True)
        raise typer.Exit(2)
