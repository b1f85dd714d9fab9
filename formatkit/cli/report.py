"""``formatkit report RESULTS.jsonl... [--dimensions MAP] [--format text|json|md|html|xlsx] [-o OUT]``"""

from __future__ import annotations

import contextlib
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from formatkit.cli._common import EXIT_OK, fail_usage, lang_option, output_or_fail, paths_or_fail, terminate_cleanly
from formatkit.cli._failures import exits, say
from formatkit.cli._options import ReportArgs, VerdictArgs, takes

if TYPE_CHECKING:
    from scoring.report import CollectedResults

_HELP = """Aggregate scored results by model, then dimension and dataset, on 0–100.

Records are grouped by the model that answered (each response's "model", or seed 001's "endpoint_id";
records without one are "(unknown model)"): several models' results, given as several files, are shown
side by side as a leaderboard with the models as columns, never merged. A file given twice (the same
file under another path or a link, or a byte-for-byte copy of one) is read once, and said on stderr.

A dataset is meta.dataset, else the file's name. Its dimension comes from --dimensions (a JSON file
{"dataset": "dimension"}), else meta.dimension; a dataset without one is a dimension of its own. A
dimension's score is the mean of its datasets; overall is the mean of the dimensions (seed 001). A
pairwise dataset shows its own scale (mean ×100 on −100..100, win/tie/loss) and enters its dimension as a
0–100 win rate (win 1, tie ½, loss 0).

Every score carries a 95 % interval: Wilson when every record of a dataset scored 0 or 1, else a
smoothed Bayesian bootstrap over records (1000 resamples, fixed seed) that stays wide for small or
all-right strata. Two models that answered the same records get their paired
difference with its interval ("within noise" when it holds 0). Several samples per record add pass@k
and majority vote (over the extracted answers).

A judge reply from which no verdict could be read is a void verdict: left out of the mean (which can
raise a score), so it is counted and shown beside the score ("1 of 2 records scored, 1 void verdict").
--void-as-zero counts each void verdict as the lowest score instead (0; pairwise a loss): use it for a
leaderboard, where a judge failing on a model's answers must not help that model. A dataset of fewer
than 30 scored records is flagged "small".

Formats: text (tables sized to the terminal), md (Markdown), json (machine-readable: today's keys for the
first model, plus "models", "comparisons" and "intervals"), html (one offline page with charts and a
per-sample browser), xlsx (a workbook; needs -o).

Exit codes: 0 report written; 2 bad usage, an unreadable path, or a line that is not a JSON record.
"""


_HUMAN = "Labels as judge-check takes: each judged dataset shows its judge's κ; an uncalibrated one's are unranked."


class ReportFormat(str, Enum):
    text = "text"
    json = "json"
    md = "md"
    html = "html"
    xlsx = "xlsx"


@takes(grouping=ReportArgs, verdicts=VerdictArgs)
def report(
    paths: list[str] = typer.Argument(..., help="Scored results files (canonical jsonl).", metavar="RESULTS..."),
    fmt: ReportFormat | None = typer.Option(
        None, "--format", help="text, json, md, html or xlsx (default: from -o's extension, else text)."
    ),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the report here instead of stdout."),
    lang: str | None = lang_option(),
    human: Path | None = typer.Option(None, "--human", help=_HUMAN, metavar="LABELS"),
    min_kappa: float = typer.Option(0.4, "--min-kappa", help="With --human: below it a judge is uncalibrated."),
    *,
    grouping: ReportArgs,
    verdicts: VerdictArgs,
) -> None:
    from formatkit._cli_support import output_lock

    terminate_cleanly()  # SIGTERM unwinds like Ctrl-C: no temporary output is left behind
    fmt = _format_for(fmt, output, lang)
    if fmt.value == "xlsx" and output is None:
        fail_usage("--format xlsx writes a workbook: name it with -o REPORT.xlsx")
    if output is not None:
        output_or_fail(output)
    mapping = grouping.mapping()
    paths = paths_or_fail(paths, lang=lang)
    with contextlib.ExitStack() as stack:
        if output is not None:  # one writer per output, held while the results are read
            stack.enter_context(output_lock(output))
        _report(paths, (mapping, grouping.dimensions), fmt, output, verdicts, lang, (human, min_kappa))


#: What an output's extension says it holds: ``-o compare.xlsx`` without ``--format`` is a workbook, never the
#: text report under a name Excel then refuses to open.
_BY_SUFFIX = {
    ".txt": ReportFormat.text,
    ".json": ReportFormat.json,
    ".md": ReportFormat.md,
    ".markdown": ReportFormat.md,
    ".html": ReportFormat.html,
    ".htm": ReportFormat.html,
    ".xlsx": ReportFormat.xlsx,
}


def _format_for(fmt: ReportFormat | None, output: Path | None, lang: str | None) -> ReportFormat:
    """``--format`` as given, else the one ``-o``'s extension names, else text; a format the extension
    contradicts (``--format text -o r.xlsx``) is bad usage, said before anything is read."""
    named = _BY_SUFFIX.get(output.suffix.lower()) if output is not None else None
    if fmt is None:
        return named or ReportFormat.text
    if output is not None and named is not None and named is not fmt:
        fail_usage(say("report.format_mismatch", lang, output=output, format=fmt.value, named=named.value))
    return fmt


def _report(
    paths: list[str],
    dimensions: tuple[dict[str, str] | None, Path | None],
    fmt: ReportFormat,
    output: Path | None,
    verdicts: VerdictArgs,
    lang: str | None,
    checked: tuple[Path | None, float] = (None, 0.4),
) -> None:
    from formatkit.messages import locale_lang
    from scoring import collect_results
    from scoring._cli_support import SAMPLE_FORMATS, judge_calibration
    from scoring.report import render_report, save_report

    mapping, source = dimensions
    human, min_kappa = checked
    with exits("report"):
        checks = (
            {"calibration": judge_calibration(paths, paths_or_fail([str(human)])[0], min_kappa=min_kappa)}
            if human
            else {}
        )
        collected = collect_results(
            paths, dimensions=mapping, samples=fmt.value in SAMPLE_FORMATS, void_as_zero=verdicts.void_as_zero, **checks
        )
    for repeat in collected.repeats:  # a file given twice is read once (scoring.distinct_files)
        typer.echo(say(f"report.{repeat.how}", lang, path=repeat.path, first=repeat.first), err=True)
    _say_dimensions(collected, source, lang)
    for name in collected.unscored:
        # Not one response carries a score or a scorer's analysis: the file was never scored, and
        # its responses are counted as unscorable under an unknown metric; say what to do instead.
        typer.echo(say("report.unscored", lang, dataset=name), err=True)
    if output is not None:
        save_report(collected, output, fmt.value, lang=lang or locale_lang())
        typer.echo(say("wrote", lang, output=output), err=True)
        raise typer.Exit(EXIT_OK)
    from scoring._cli_support import terminal_width

    tty = sys.stdout.isatty()
    width = terminal_width() if tty else None
    said = lang or locale_lang()  # the text and Markdown report in the reader's language
    typer.echo(render_report(collected, fmt.value, color=tty, width=width, lang=said), nl=False)
    raise typer.Exit(EXIT_OK)


def _say_dimensions(collected: CollectedResults, source: Path | None, lang: str | None) -> None:
    """A --dimensions key that is surely a misspelled dataset is bad usage (it would make the dataset a
    dimension of its own and move the overall); keys naming no dataset and datasets left alone are said."""
    check = collected.dimensions
    if check is None:
        return
    if check.misspelled:
        pairs = ", ".join(f'"{key}" → "{meant}"' for key, meant in check.misspelled)
        fail_usage(say("report.dimensions_misspelled", lang, file=source, pairs=pairs))
    if check.unused:
        typer.echo(say("report.dimensions_unused", lang, file=source, names=", ".join(check.unused)), err=True)
    if check.alone:
        typer.echo(say("report.dimensions_alone", lang, file=source, names=", ".join(check.alone)), err=True)


def register(app: typer.Typer) -> None:
    app.command("report", help=_HELP)(report)
