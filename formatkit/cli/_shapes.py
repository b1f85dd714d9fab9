"""The body of ``formatkit convert`` with another tool's shape: ``--to KIND`` writes one, ``--from KIND``
reads one, ``--from openai-batch --set SET`` reads a batch's replies back into their set. The typer
command (:mod:`formatkit.cli.convert`) and the fast path (:mod:`formatkit.cli._fast`) both run it when one
of those options is given (the plain convert stays :mod:`formatkit.cli._convert`); it returns the exit code.

The names ``--to`` and ``--from`` take, their help and the usage checks are read from the table of shapes,
:data:`formatkit.SHAPES`, when they are needed: a shape added to it (or registered) is taken at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from formatkit.cli._base import EXIT_ERRORS, EXIT_OK, echo, fail_usage, paths_or_fail, terminate_cleanly
from formatkit.cli._failures import exits

if TYPE_CHECKING:
    from formatkit import Mode, Profile
    from formatkit._cli_support import Checked

__all__ = ["ShapeRequest", "check_shape", "run_shapes", "shapes_help"]


def _names(direction: str) -> list[str]:
    from formatkit import SHAPES

    return [name for name, spec in SHAPES.items() if direction in spec.directions]


def shapes_help() -> str:
    """The shapes as ``convert --help`` lists them: one line each, its name and its help line (and the one way
    it goes, for a shape that is only read or only written)."""
    from formatkit import SHAPES

    only: dict[tuple[str, ...], str] = {("read",): " (--from only)", ("write",): " (--to only)"}
    width = max(map(len, SHAPES), default=0)
    lines = [f"  {name:<{width}}  {spec.summary}{only.get(spec.directions, '')}" for name, spec in SHAPES.items()]
    return "\n".join(["\b", "KIND, another tool's shape:", *lines])


def option_help(text: str, direction: str) -> str:
    """An option's help ending with the names of the shapes that go ``direction`` (as the table is now)."""
    return f"{text}: {', '.join(_names(direction))}."


def check_shape(name: str | None, flag: str, direction: str) -> None:
    """Exit 2 (bad usage) when ``name`` is not a shape that goes ``direction`` (``read``: --from, ``write``: --to)."""
    if name is not None and name not in _names(direction):
        fail_usage(f"{flag} {name!r} is not one of {', '.join(_names(direction))}")


def _requests(name: str | None) -> bool:
    from formatkit import SHAPES

    spec = SHAPES.get(name or "")
    return spec is not None and spec.requests


@dataclass(frozen=True)
class ShapeRequest:
    """What convert is asked to do with another tool's shape, with the options of a plain convert."""

    mode: Mode
    profile: Profile
    meta: bool
    sheet: str | None
    #: Write this shape (a name of formatkit.SHAPES) instead of canonical jsonl.
    to: str | None = None
    #: The inputs are of this shape.
    from_shape: str | None = None
    #: With ``from_shape`` openai-batch: the set the batch file was written from (the inputs: its results).
    set_path: str | None = None
    #: With ``to`` openai-batch: the model every request names.
    model: str | None = None

    @property
    def given(self) -> bool:
        return any(v is not None for v in (self.to, self.from_shape, self.set_path, self.model))


def run_shapes(paths: Sequence[str], output: str, request: ShapeRequest, *, lang: str | None, shown: int | None) -> int:
    """Write or read another tool's shape (see the module docstring); nothing is written when any error is
    found. ``lang``: a catalogue's name or None (the locale's); ``shown``: issues listed per code."""
    from formatkit import read_batch, write_shape
    from formatkit._cli_support import check_output, run_conversion
    from formatkit.cli._printing import print_report
    from formatkit.messages import locale_lang, ui

    terminate_cleanly()
    paths = paths_or_fail(paths, lang=lang)
    to, set_path = request.to, request.set_path
    check_shape(to, "--to", "write")
    check_shape(request.from_shape, "--from", "read")
    if to is not None and request.from_shape is not None:
        fail_usage("--to and --from go apart: convert to canonical jsonl first, then to the other shape")
    if set_path is not None and request.from_shape != "openai-batch":
        fail_usage("--set goes with --from openai-batch (the set the batch file was written from)")
    with_model = " or ".join(f"--to {name}" for name in _names("write") if _requests(name))
    if request.model is not None and not _requests(to):
        fail_usage(f"--model goes with {with_model} (the model every request names)")
    if _requests(to) and not request.model:
        fail_usage(f"--to {to} needs --model NAME (every request of a batch names its model)")
    with exits("output", lang):  # a folder, a spreadsheet's name, an input: bad usage
        check_output(output, [*paths, *([set_path] if set_path else [])])
    said = lang or locale_lang()
    outcome: Checked
    mode, profile, sheet = request.mode, request.profile, request.sheet
    with exits("convert", lang):  # a full disk, a folder that cannot be written: the machine's refusal
        if to is not None:
            written = write_shape(paths, output, to, mode=mode, profile=profile, sheet=sheet, model=request.model)
            outcome = written
            done = ui("shapes.wrote", said, records=written.records, shape=to, output=output, lines=written.lines)
        elif set_path is not None:
            (set_path,) = paths_or_fail([set_path], lang=lang)
            read = read_batch(paths, set_path, output, mode=mode, profile=profile, sheet=sheet)
            outcome, counts = read, read.counts
            done = ui(
                "batch.read",
                said,
                replies=counts.replies,
                records=counts.records,
                errors=counts.errors,
                pending=counts.pending,
            )
        else:
            outcome = run_conversion(
                paths, output, mode=mode, profile=profile, meta=request.meta, sheet=sheet, shape=request.from_shape
            )
            done = ui("wrote_records", said, records=outcome.records, output=output)
    print_report(outcome.report(), err=True, quiet_valid=outcome.valid, shown=shown, lang=lang, sheet_option=True)
    if outcome.valid:
        echo(done, err=True)
        return EXIT_OK
    echo(ui("nothing_written", said, output=output), err=True)
    return EXIT_ERRORS
