"""The body of ``formatkit convert``, without typer: the typer command (:mod:`formatkit.cli.convert`) and
the fast path (:mod:`formatkit.cli._fast`) both run it, so there is one body; it returns the exit code (bad
usage and the failures of :mod:`formatkit.cli._failures` end it with SystemExit)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from formatkit.cli._base import EXIT_ERRORS, EXIT_OK, echo, fail_usage, paths_or_fail, terminate_cleanly
from formatkit.cli._failures import exits

if TYPE_CHECKING:
    from formatkit import Checked, Mode, Profile

__all__ = ["run_convert"]


def run_convert(
    paths: Sequence[str],
    output: str,
    *,
    mode: Mode,
    profile: Profile,
    meta: bool,
    sheet: str | None,
    lang: str | None,
    shown: int | None,
    to: str | None = None,
    from_shape: str | None = None,
    set_path: str | None = None,
    model: str | None = None,
) -> int:
    """Validate, then write canonical jsonl; nothing is written when any error is found. ``lang``: a
    catalogue's name or None (the locale's); ``shown``: issues listed per code (None: all). ``to``: write
    another tool's shape instead (``model``: a batch file's model); ``from_shape``: the inputs are another
    tool's; with ``openai-batch`` and ``set_path``, they are batch replies read back into that set."""
    from formatkit import check_output, run_conversion
    from formatkit.cli._printing import print_clean, print_report
    from formatkit.messages import locale_lang, ui

    terminate_cleanly()
    paths = paths_or_fail(paths)
    if to is not None and from_shape is not None:
        fail_usage("--to and --from go apart: convert to canonical jsonl first, then to the other shape")
    if set_path is not None and from_shape != "openai-batch":
        fail_usage("--set goes with --from openai-batch (the set the batch file was written from)")
    if to == "openai-batch" and not model:
        fail_usage("--to openai-batch needs --model NAME (every request of a batch names its model)")
    with exits("output", lang):  # a folder, a spreadsheet's name, an input: bad usage
        check_output(output, [*paths, *([set_path] if set_path else [])])
    if to is not None or set_path is not None:
        return _other_shape(paths, output, mode, profile, sheet, lang, shown, to, set_path, model)
    with exits("convert", lang):  # a full disk, a folder that cannot be written: the machine's refusal
        outcome = run_conversion(paths, output, mode=mode, profile=profile, meta=meta, sheet=sheet, shape=from_shape)
    if outcome.clean:  # one line to print: no Report (pydantic) needed
        print_clean(outcome.summaries(), err=True, quiet_valid=True, lang=lang)
    else:
        print_report(outcome.report(), err=True, quiet_valid=outcome.valid, shown=shown, lang=lang, sheet_option=True)
    if outcome.valid:
        echo(ui("wrote_records", lang or locale_lang(), records=outcome.records, output=output), err=True)
        return EXIT_OK
    echo(ui("nothing_written", lang or locale_lang(), output=output), err=True)
    return EXIT_ERRORS


def _other_shape(
    paths: Sequence[str],
    output: str,
    mode: Mode,
    profile: Profile,
    sheet: str | None,
    lang: str | None,
    shown: int | None,
    to: str | None,
    set_path: str | None,
    model: str | None,
) -> int:
    """``convert --to KIND``, or ``convert --from openai-batch RESULTS --set SET``."""
    from formatkit import read_batch_checked, write_shape_checked
    from formatkit.cli._printing import print_report
    from formatkit.messages import locale_lang, ui

    said = lang or locale_lang()
    outcome: Checked
    with exits("convert", lang):
        if to is not None:
            written = write_shape_checked(paths, output, to, mode=mode, profile=profile, sheet=sheet, model=model)
            outcome = written
            done = ui("shapes.wrote", said, records=written.records, shape=to, output=output, lines=written.lines)
        else:
            assert set_path is not None
            (set_path,) = paths_or_fail([set_path])
            read = read_batch_checked(paths, set_path, output, mode=mode, profile=profile, sheet=sheet)
            outcome = read
            counts = read.counts
            done = ui(
                "batch.read",
                said,
                replies=counts.replies,
                records=counts.records,
                errors=counts.errors,
                pending=counts.pending,
            )
    print_report(outcome.report(), err=True, quiet_valid=outcome.valid, shown=shown, lang=lang, sheet_option=True)
    if outcome.valid:
        echo(done, err=True)
        return EXIT_OK
    echo(ui("nothing_written", said, output=output), err=True)
    return EXIT_ERRORS
