"""The body of ``formatkit convert``, without typer: the typer command (:mod:`formatkit.cli.convert`) and
the fast path (:mod:`formatkit.cli._fast`) both run it, so there is one body; it returns the exit code (bad
usage and the failures of :mod:`formatkit.cli._failures` end it with SystemExit)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from formatkit.cli._base import EXIT_ERRORS, EXIT_OK, echo, paths_or_fail, terminate_cleanly
from formatkit.cli._failures import exits

if TYPE_CHECKING:
    from formatkit import Mode, Profile

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
) -> int:
    """Validate, then write canonical jsonl; nothing is written when any error is found. ``lang``: a
    catalogue's name or None (the locale's); ``shown``: issues listed per code (None: all)."""
    from formatkit._cli_support import check_output, run_conversion
    from formatkit.cli._printing import print_clean, print_report
    from formatkit.messages import locale_lang, ui

    terminate_cleanly()
    paths = paths_or_fail(paths, lang=lang)
    with exits("output", lang):  # a folder, a spreadsheet's name, an input: bad usage
        check_output(output, paths)
    with exits("convert", lang):  # a full disk, a folder that cannot be written: the machine's refusal
        outcome = run_conversion(paths, output, mode=mode, profile=profile, meta=meta, sheet=sheet)
    if outcome.clean:  # one line to print: no Report (pydantic) needed
        print_clean(outcome.summaries(), err=True, quiet_valid=True, lang=lang)
    else:
        print_report(outcome.report(), err=True, quiet_valid=outcome.valid, shown=shown, lang=lang, sheet_option=True)
    if outcome.valid:
        echo(ui("wrote_records", lang or locale_lang(), records=outcome.records, output=output), err=True)
        return EXIT_OK
    echo(ui("nothing_written", lang or locale_lang(), output=output), err=True)
    return EXIT_ERRORS
