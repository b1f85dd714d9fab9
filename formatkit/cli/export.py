"""``formatkit export RESULTS.jsonl -o OUT.xlsx [--mode M]``"""

from __future__ import annotations

from collections import Counter

import typer

from formatkit.cli._common import (
    EXIT_ERRORS,
    EXIT_OK,
    ModeOption,
    fail_usage,
    lang_option,
    output_or_fail,
    paths_or_fail,
    print_report,
)
from formatkit.cli._failures import exits, say

_HELP = """Write records back to a spreadsheet people can read (one row per user turn).

Every field is kept, with seed 001's names: reference_response, parameters, response, score, analysis,
usage, error and the model, then metric, extracted_answer, settled, the judge's verdicts (JSON), dataset
and meta when any record has them; several samples get response_2, score_2, … The file validates, and
scores again after an edit (formatkit score OUT.xlsx).

For review, each scored response also gets judge_verdict and judge_rationale (each judge's verdict and
reason, when a judge scored it), an empty human_score column and a fingerprint of what it was scored
from. `formatkit score OUT.xlsx` then keeps every score whose response, reference and question were not
edited, as it was (a judge's too: no judge is asked), scores again only what was edited, and takes a
filled human_score as the score (scored_by: human; the machine's score kept in overridden). A verdict
given on another text than the response holds (edited after judging) is left out of judge_verdict and
judge_rationale (kept as stale_verdict in the extra column), and export says how many.

Text is never a formula; control characters and text that looks like Excel's _x0041_ escape read back
as written.

The input is read in the mode it needs (scored when responses are filled in, else infer-eval when
references are — results where some inference failed read so —, else infer-only); --mode reads it in
the one you name. Results of several sets (eval's) keep their session ids: a dataset column stands on
every row and a session is the rows sharing dataset and session_id. An id a sheet cannot hold (text, or
used twice in a dataset) becomes a free number, the original kept in meta. The sheet is read back in the
same mode before it is written: export never writes a sheet that validate or score would refuse.

Exit codes: 0 written; 1 the input has errors, or the sheet would not read back (nothing written); 2 bad
usage or an unreadable path.
"""

_AUTO_ORDER = ("scored", "infer-eval", "infer-only")


def export(
    path: str = typer.Argument(..., help="Canonical jsonl (or any valid input) to export.", metavar="RESULTS.jsonl"),
    output: str = typer.Option(..., "-o", "--output", help="The .xlsx to write."),
    mode: ModeOption | None = typer.Option(
        None, "--mode", help="Read the input in this mode (default: the mode it needs)."
    ),
    lang: str | None = lang_option(),
) -> None:
    from formatkit import Report, export_excel, iter_dicts, validate_file
    from scoring import review_fields

    if not output.lower().endswith(".xlsx"):
        fail_usage(f"{output}: export writes .xlsx files")
    [source] = paths_or_fail([path], read_twice="export", lang=lang)
    output_or_fail(output)
    modes = (mode.value,) if mode is not None else _AUTO_ORDER
    for chosen in modes:
        report = validate_file(source, mode=chosen, profile="none")  # type: ignore[arg-type]
        if report.valid:
            break
    if not report.valid:
        print_report(Report.build([report]), err=True, lang=lang)
        raise typer.Exit(EXIT_ERRORS)
    notes: list[str] = []
    stale: Counter[str] = Counter()
    with exits("export", lang, output=output):
        records = review_fields(iter_dicts(source, mode=chosen), stale)  # type: ignore[arg-type]
        rows = export_excel(records, output, check=True, notes=notes)
    for note in notes:
        typer.echo(say("export.note", lang, note=note), err=True)
    if stale["verdicts"]:
        typer.echo(say("export.stale", lang, count=stale["verdicts"]), err=True)
    why = "" if mode is not None or chosen == _AUTO_ORDER[0] else say(_WHY[chosen], lang)
    typer.echo(say("export.wrote", lang, rows=rows, output=output, mode=chosen, why=why), err=True)
    raise typer.Exit(EXIT_OK)


#: Why the input was read in a mode other than scored: the ui.* key of the words.
_WHY = {"infer-eval": "export.why_infer_eval", "infer-only": "export.why_infer_only"}


def register(app: typer.Typer) -> None:
    app.command("export", help=_HELP)(export)
