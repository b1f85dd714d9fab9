"""``formatkit run`` (not yet built)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("run", hidden=True)
    def _not_yet() -> None:
        typer.echo("formatkit run: not available yet", err=True)
        raise typer.Exit(2)
