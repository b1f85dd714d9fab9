"""The fast path of ``formatkit convert`` and ``formatkit validate``: their ordinary invocations, run
without importing typer.

Importing typer and building its command costs ~65 ms per start (typer builds a pydantic adapter per
option at parse time), a third of converting a small file. :func:`run` reads the arguments itself when,
and only when, they are made purely of the command's known options in unambiguous forms (``-o X``,
``--output X``, ``--output=X``, each option at most once, values that cannot be mistaken for options) and
at least one path, and then calls the same body as the typer command (:mod:`formatkit.cli._convert`,
:mod:`formatkit.cli._validate`). Anything else -- ``--help``, an unknown or misspelt option, a missing or
bad value, ``--``, no paths, a shell-completion request -- returns None, and typer runs as it always did,
so every usage message is typer's.

The option tables below mirror the typer commands (:mod:`formatkit.cli.convert`,
:mod:`formatkit.cli.validate`, and :class:`formatkit.cli._options.IssueArgs`); tests/cli/test_fast_path.py
checks them option by option against typer's own command, so an option added or changed there fails a test
until it is added here. An option this table does not know only ever makes the fast path decline.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, TextIO, cast

from formatkit.cli._base import ModeOption, ProfileOption, echo

__all__ = ["COMMANDS", "FastCommand", "FastOption", "parse", "run"]

_COUNT = re.compile(r"[1-9][0-9]{0,8}")


class FastOption:
    """One option of a command as the fast path reads it.

    ``name``: the typer parameter it fills; ``flags``: every spelling (``-o``, ``--output``); ``kind``:
    ``flag`` (no value, True when given), ``text``, ``choice`` (one of ``choices``), ``count`` (an integer
    ≥ 1) or ``lang`` (a language a catalogue exists for, resolved as typer's callback resolves it);
    ``default``: its value when not given (an enum's value, not the enum); ``required``; ``multiple``
    (repeatable: its values come as a list; any other option given twice makes the fast path decline)."""

    __slots__ = ("choices", "default", "flags", "kind", "multiple", "name", "required")

    def __init__(
        self,
        name: str,
        flags: tuple[str, ...],
        kind: str,
        default: object = None,
        choices: tuple[str, ...] = (),
        *,
        required: bool = False,
        multiple: bool = False,
    ) -> None:
        self.name = name
        self.flags = flags
        self.kind = kind
        self.default = default
        self.choices = choices
        self.required = required
        self.multiple = multiple

    def __repr__(self) -> str:
        return f"FastOption({self.name!r}, {self.flags!r}, {self.kind!r}, {self.default!r}, {self.choices!r})"

    def convert(self, raw: str) -> object | None:
        """The value of ``raw``, or None when typer might read it differently or refuse it."""
        if not raw or raw.startswith("-"):
            return None
        if self.kind == "text":
            return raw
        if self.kind == "choice":
            return raw if raw in self.choices else None
        if self.kind == "count":
            return int(raw) if _COUNT.fullmatch(raw) else None
        if self.kind == "lang":
            from formatkit.messages import resolve_lang

            return resolve_lang(raw)
        raise ValueError(f"unknown kind {self.kind!r}")


class FastCommand:
    """A command's options (besides its PATH... argument, named ``paths``) and how to run its body."""

    __slots__ = ("body", "options")

    def __init__(self, options: tuple[FastOption, ...], body: Callable[[list[str], Mapping[str, Any]], int]) -> None:
        self.options = options
        self.body = body


def _mode() -> FastOption:
    return FastOption("mode", ("--mode",), "choice", ModeOption.infer_eval.value, tuple(m.value for m in ModeOption))


def _profile() -> FastOption:
    return FastOption(
        "profile", ("--profile",), "choice", ProfileOption.platform.value, tuple(p.value for p in ProfileOption)
    )


def _shape(name: str, flag: str) -> FastOption:
    # a name of formatkit.SHAPES, checked by the body against the table as it is then (a shape may be registered)
    return FastOption(name, (flag,), "text")


_SHARED = (
    FastOption("sheet", ("--sheet",), "text"),
    FastOption("lang", ("--lang",), "lang"),
    # IssueArgs (formatkit/cli/_options.py)
    FastOption("max_issues", ("--max-issues",), "count", 5),
    FastOption("show_all", ("--all",), "flag", False),
)


def _convert(paths: list[str], values: Mapping[str, Any]) -> int:
    from formatkit.cli._convert import run_convert
    from formatkit.cli._shapes import ShapeRequest, run_shapes

    request = ShapeRequest(
        values["mode"],
        values["profile"],
        not values["no_meta"],
        values["sheet"],
        to=values["to"],
        from_shape=values["from_shape"],
        set_path=values["set_path"],
        model=values["model"],
    )
    if request.given:
        shown = None if values["show_all"] else values["max_issues"]
        return run_shapes(paths, values["output"], request, lang=values["lang"], shown=shown)
    return run_convert(
        paths,
        values["output"],
        mode=values["mode"],
        profile=values["profile"],
        meta=not values["no_meta"],
        sheet=values["sheet"],
        lang=values["lang"],
        shown=None if values["show_all"] else values["max_issues"],
    )


def _validate(paths: list[str], values: Mapping[str, Any]) -> int:
    from formatkit.cli._validate import run_validate

    return run_validate(
        paths,
        mode=values["mode"],
        profile=values["profile"],
        as_json=values["as_json"],
        sheet=values["sheet"],
        lang=values["lang"],
        shown=None if values["show_all"] else values["max_issues"],
        from_shape=values["from_shape"],
    )


COMMANDS: dict[str, FastCommand] = {
    "convert": FastCommand(
        (
            FastOption("output", ("-o", "--output"), "text", required=True),
            _mode(),
            _profile(),
            FastOption("no_meta", ("--no-meta",), "flag", False),
            *_SHARED,
            _shape("to", "--to"),
            _shape("from_shape", "--from"),
            FastOption("set_path", ("--set",), "text"),
            FastOption("model", ("--model",), "text"),
        ),
        _convert,
    ),
    "validate": FastCommand(
        (
            _mode(),
            _profile(),
            FastOption("as_json", ("--json",), "flag", False),
            *_SHARED,
            _shape("from_shape", "--from"),
        ),
        _validate,
    ),
}


def parse(options: Sequence[FastOption], args: Sequence[str]) -> tuple[list[str], dict[str, Any]] | None:
    """The paths and every option's value (defaults filled in), or None when the fast path must decline:
    anything but known options given once each in plain forms, paths, and at least one path."""
    by_flag = {flag: option for option in options for flag in option.flags}
    paths: list[str] = []
    values: dict[str, Any] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        try:
            arg.encode("utf-8")  # a name that is not UTF-8 (surrogate escapes): leave it to typer
        except UnicodeEncodeError:
            return None
        if not arg.startswith("-"):
            paths.append(arg)
            continue
        flag, equals, attached = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        option = by_flag.get(flag)
        if option is None or (option.name in values and not option.multiple):
            return None
        if option.kind == "flag":
            if equals or option.multiple:
                return None
            values[option.name] = True
            continue
        if not equals:
            if i >= len(args):
                return None
            attached = args[i]
            i += 1
        value = option.convert(attached)
        if value is None:
            return None
        if option.multiple:  # every value in order, as typer hands a repeatable option
            values.setdefault(option.name, []).append(value)
        else:
            values[option.name] = value
    if not paths:
        return None
    for option in options:
        if option.name not in values:
            if option.required:
                return None
            values[option.name] = list(cast(Sequence[str], option.default or ())) if option.multiple else option.default
    return paths, values


def run(argv: Sequence[str]) -> int | None:
    """Run ``formatkit ARGV`` when it is an ordinary ``convert`` or ``validate``; its exit code, or None
    (nothing done, nothing printed) when typer must handle it. Around the body, what typer's own main
    does: Ctrl+C is exit 130, a closed pipe on the output exit 1 without a word."""
    if not argv or os.name == "nt":  # Windows: click expands wildcards in the arguments; leave that to it
        return None
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return None  # a shell-completion request (click's _PROG_COMPLETE)
    command = COMMANDS.get(argv[0])
    parsed = parse(command.options, argv[1:]) if command is not None else None
    if command is None or parsed is None:
        return None
    paths, values = parsed
    try:
        return command.body(paths, values)
    except EOFError:
        echo(err=True)
        echo("Aborted!", err=True)
        return 1
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        sys.stdout = cast(TextIO, _PacifyFlush(sys.stdout))
        sys.stderr = cast(TextIO, _PacifyFlush(sys.stderr))
        return 1


class _PacifyFlush:
    """Swallows the broken pipe of the final flush at exit (click's PacifyFlushWrapper)."""

    def __init__(self, wrapped: IO[Any]) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.wrapped, attr)
