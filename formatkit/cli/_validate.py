"""The body of ``formatkit validate``, without typer: the typer command (:mod:`formatkit.cli.validate`) and
the fast path (:mod:`formatkit.cli._fast`) both run it, so there is one body; it returns the exit code."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from formatkit.cli._base import EXIT_ERRORS, EXIT_OK, echo, paths_or_fail

if TYPE_CHECKING:
    from formatkit import Mode, Profile

__all__ = ["run_validate"]


def run_validate(
    paths: Sequence[str],
    *,
    mode: Mode,
    profile: Profile,
    as_json: bool,
    sheet: str | None,
    lang: str | None,
    shown: int | None,
    from_shape: str | None = None,
) -> int:
    """Check the files and print the report (JSON on stdout with ``as_json``); 1 when errors are found.
    ``lang``: a catalogue's name or None (the locale's); ``shown``: issues listed per code (None: all)."""
    from formatkit._cli_support import check_files

    if from_shape is not None:
        from formatkit.cli._shapes import check_shape

        check_shape(from_shape, "--from", "read")
    outcome = check_files(paths_or_fail(paths, lang=lang), mode=mode, profile=profile, sheet=sheet, shape=from_shape)
    if as_json:
        from formatkit.messages import locale_lang

        echo(outcome.document(lang or locale_lang()))
    elif outcome.clean:  # a line per file and the verdict: no Report (pydantic) needed
        from formatkit.cli._printing import print_clean

        print_clean(outcome.summaries(), lang=lang)
    else:
        from formatkit.cli._printing import print_report

        print_report(outcome.report(), shown=shown, lang=lang, sheet_option=True)
    return EXIT_OK if outcome.valid else EXIT_ERRORS
