"""click's usage errors ("No such option", "Missing argument", "Invalid value", ...) said from the catalogue.

click words them in English whatever ``--lang`` says. :class:`UsageGroup`, the typer application's group,
catches each ``UsageError`` (click's, as typer vendors it in ``typer._click``) as the command line is parsed
and raises it again as one whose text is a ``ui.usage.*`` template in the language the command line asks
for (``--lang``, else the locale's, as every other message): the option's or argument's name, the value and
the choices are kept as the user typed or the command declares them. A message this module does not know
stays click's.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import IO, Any

from typer._click import exceptions as click_errors
from typer._click.core import Context
from typer._click.utils import echo, get_text_stream
from typer.core import TyperGroup

__all__ = ["UsageGroup", "command_line_lang"]


def command_line_lang(args: Sequence[str]) -> str:
    """The language ``args`` ask for: the value of ``--lang`` (``--lang zh``, ``--lang=zh``) when it names a
    catalogue, else the locale's."""
    from formatkit.messages import locale_lang, resolve_lang

    for i, arg in enumerate(args):
        value = None
        if arg == "--lang" and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--lang="):
            value = arg.removeprefix("--lang=")
        if value is not None and (lang := resolve_lang(value)) is not None:
            return lang
    return locale_lang()


class SaidUsageError(click_errors.UsageError):
    """A usage error whose text, and the lines around it, are the catalogue's in ``lang``."""

    def __init__(self, message: str, ctx: Context | None, lang: str) -> None:
        super().__init__(message, ctx)
        self.lang = lang

    def show(self, file: IO[Any] | None = None) -> None:
        from formatkit.messages import ui

        file, ctx = file or get_text_stream("stderr"), self.ctx
        if ctx is not None:
            option = ctx.command.get_help_option(ctx)
            hint = (
                "" if option is None else ui("usage.hint", self.lang, command=ctx.command_path, option=option.opts[0])
            )
            usage = ui("usage.line", self.lang, usage=ctx.get_usage().removeprefix("Usage: "))
            echo(f"{usage}\n{hint}\n" if hint else f"{usage}\n", file, color=ctx.color)
        echo(ui("usage.said", self.lang, message=self.format_message()), file, color=ctx.color if ctx else None)


class UsageGroup(TyperGroup):
    """The application's group: its usage errors, and its commands', said in the command line's language."""

    _args: Sequence[str] = ()

    def main(self, args: Sequence[str] | None = None, *rest: Any, **extra: Any) -> Any:
        self._args = list(sys.argv[1:] if args is None else args)
        return super().main(args, *rest, **extra)

    def make_context(self, *args: Any, **extra: Any) -> Context:
        try:
            return super().make_context(*args, **extra)
        except click_errors.UsageError as exc:
            raise _said(exc, command_line_lang(self._args)) from None

    def invoke(self, ctx: Context) -> Any:
        try:
            return super().invoke(ctx)
        except click_errors.UsageError as exc:
            raise _said(exc, command_line_lang(self._args)) from None


def _said(exc: click_errors.UsageError, lang: str) -> click_errors.UsageError:
    """``exc`` again, its text from the catalogue in ``lang`` (click's own when it is not one it knows)."""
    message = _message(exc, lang)
    if message is None:
        return exc
    said = SaidUsageError(message, exc.ctx, lang)
    said.exit_code = exc.exit_code
    return said


_REQUIRES = re.compile(r"Option '(?P<name>.+)' requires an argument\.?$")
_EXTRA = re.compile(r"Got unexpected extra arguments? \((?P<args>.*)\)$")
_COMMAND = re.compile(r"No such command '(?P<name>[^']*)'\.?(?: Did you mean (?P<matches>.+)\?)?$", re.DOTALL)
_CHOICE = re.compile(r"(?:Value error, )?'(?P<value>.*?)' is not one of ", re.DOTALL)


def _message(exc: click_errors.UsageError, lang: str) -> str | None:
    from formatkit.messages import escape_controls, ui

    if isinstance(exc, click_errors.NoSuchOption):
        name = escape_controls(exc.option_name)
        if exc.possibilities:
            matches = ", ".join(sorted(exc.possibilities))
            return ui("usage.no_such_option_like", lang, name=name, matches=escape_controls(matches))
        return ui("usage.no_such_option", lang, name=name)
    if isinstance(exc, click_errors.MissingParameter):
        hint = _hint(exc)
        kind = exc.param_type or (exc.param.param_type_name if exc.param is not None else "parameter")
        return ui("usage.missing_option" if kind == "option" else "usage.missing_argument", lang, name=hint)
    if isinstance(exc, click_errors.BadParameter):
        return ui("usage.invalid_value", lang, name=_hint(exc), detail=_detail(exc, lang))
    text = exc.message
    if match := _REQUIRES.match(text):
        return ui("usage.needs_value", lang, name=escape_controls(match["name"]))
    if match := _EXTRA.match(text):
        return ui("usage.extra_arguments", lang, args=escape_controls(match["args"]))
    if match := _COMMAND.match(text):
        name = escape_controls(match["name"])
        if match["matches"]:
            return ui("usage.no_such_command_like", lang, name=name, matches=escape_controls(match["matches"]))
        return ui("usage.no_such_command", lang, name=name)
    return None


def _hint(exc: click_errors.BadParameter) -> str:
    """The option's or argument's name as click shows it (``'--mode'``, ``'SET...'``)."""
    hint: Any = exc.param_hint
    if hint is None and exc.param is not None:
        hint = exc.param.get_error_hint()
    if isinstance(hint, (list, tuple)):
        hint = " / ".join(hint)
    return str(hint or "")


_BOUNDS = {
    "greater_than_equal": ("ge", ">="),
    "greater_than": ("gt", ">"),
    "less_than_equal": ("le", "<="),
    "less_than": ("lt", "<"),
}


def _detail(exc: click_errors.BadParameter, lang: str) -> str:
    """What is wrong with the value: the catalogue's words for the checks typer makes (a choice, a bound, a
    number; the value and the choices as given), else the message as raised."""
    from formatkit.messages import escape_controls, ui

    text = exc.message
    if match := _CHOICE.match(text):
        listed = text[match.end() :].rstrip(".")
        return ui("usage.not_a_choice", lang, value=escape_controls(match["value"]), choices=escape_controls(listed))
    errors = getattr(exc.__cause__, "errors", None)  # typer checks a value with pydantic
    if not callable(errors):
        return text
    try:
        first = errors()[0]
    except Exception:  # not pydantic's: the message as raised
        return text
    kind, value, context = first.get("type"), escape_controls(str(first.get("input"))), first.get("ctx") or {}
    if kind in _BOUNDS:
        name, sign = _BOUNDS[kind]
        return ui("usage.out_of_range", lang, value=value, range=f"x{sign}{context.get(name)}")
    if kind == "int_parsing":
        return ui("usage.not_an_integer", lang, value=value)
    if kind in ("float_parsing", "finite_number"):
        return ui("usage.not_a_number", lang, value=value)
    return text
