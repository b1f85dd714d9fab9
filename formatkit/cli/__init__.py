"""The ``formatkit`` command: a thin layer over the library API.

Each command lives in its own module with a ``register(app)`` function; heavy libraries (pandas,
httpx, sympy) are imported inside the commands that need them, so ``formatkit validate`` starts fast.
"""

from __future__ import annotations

import importlib

import typer

__all__ = ["app", "main"]

app = typer.Typer(
    name="formatkit",
    help="Validate, convert, run and score LLM evaluation sets (Excel and jsonl).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

_COMMAND_MODULES = ("validate", "fix", "convert", "schema", "export", "run", "score", "report", "eval")

for _name in _COMMAND_MODULES:
    importlib.import_module(f"formatkit.cli.{_name}").register(app)


def main() -> None:
    """The ``formatkit`` command. Bad input is reported by each command; what is left here is the
    machine refusing (a full disk, a read-only or missing directory, a path that is a file): one line
    and exit 1, never a traceback; an output another command is writing: one line and exit 2, as ``run``."""
    from formatkit._core.errors import FormatkitError, OutputBusyError

    try:
        app()
    except OutputBusyError as exc:
        typer.echo(f"formatkit: error: {exc}; nothing was written", err=True)
        raise SystemExit(2) from None
    except (FormatkitError, OSError) as exc:
        typer.echo(f"formatkit: error: {exc}", err=True)
        raise SystemExit(1) from None
