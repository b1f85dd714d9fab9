"""The typer application: every command's one definition (options, help, usage errors).

Built when first asked for (``from formatkit.cli import app``, or :func:`formatkit.cli.main` when the fast
path declines). Each command lives in its own module with a ``register(app)`` function; heavy libraries
(pandas, httpx, sympy) are imported inside the commands that need them.
"""

from __future__ import annotations

import importlib

import typer

from formatkit.cli._usage import UsageGroup

__all__ = ["app"]

app = typer.Typer(
    name="formatkit",
    help="Validate, convert, run and score LLM evaluation sets (Excel and jsonl).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=UsageGroup,
)


def _version(value: bool) -> None:
    if value:
        from formatkit import __version__

        typer.echo(f"formatkit {__version__}")
        raise typer.Exit(0)


@app.callback()
def _options(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the installed version and exit."
    ),
) -> None:
    """Validate, convert, run and score LLM evaluation sets (Excel and jsonl)."""


_COMMAND_MODULES: tuple[str, ...] = ("validate", "fix", "convert", "schema", "export", "run", "score", "report", "eval")
_COMMAND_MODULES += ("merge", "judge_check")
_COMMAND_MODULES += ("serve",)

for _name in _COMMAND_MODULES:
    importlib.import_module(f"formatkit.cli.{_name}").register(app)
