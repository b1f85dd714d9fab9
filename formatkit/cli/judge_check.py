"""``formatkit judge-check SCORED.jsonl --human LABELS [--json]``"""

from __future__ import annotations

import json

import typer

from formatkit.cli._common import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, lang_option, paths_or_fail
from formatkit.cli._failures import exits, say
from formatkit.messages import escape_controls

_HELP = """How far the judges of SCORED agree with people's labels: overall and per dataset, the number of
pairs n, the raw agreement, Cohen's κ with a 95 % bootstrap interval (seeded: the same files give the
same interval), the confusion matrix (judge verdict × human label), the swap consistency of a pairwise
judge asked in both orders and the self-consistency of a judge asked several times (where the results
hold them), and the correlation of (judge − human) with the answer's length (does the judge favour long
answers?). With a panel, each judge and the panel are checked.

κ is quadratic-weighted for a judge's ordinal scale (0-2, 1-10: a near miss costs less than a far one)
and unweighted for pairwise verdicts (A better, B better, tie).

SCORED is a scored results file (score's or eval's output). LABELS is a jsonl of {"dataset"?,
"session_id", "human"} (human: a number on the judge's scale, or A / B / tie for pairwise, A being the
scored model's response), or a sheet `formatkit export` wrote whose human_score column a reviewer
filled, or the results of scoring such a sheet. A label without a dataset finds its record by session id
alone when one dataset has that id. A record the judge gave no verdict is counted as void, outside the
pairs; a verdict given on another text (the response edited after judging) is stale: left out, counted.

Every label is checked: off the judge's scale, not a number (or not A/B/tie), not finite, a second label
for one response, or matching no record, each named by its file and line (or sheet row). Any such label
refuses the check (exit 1, nothing computed) unless --skip-bad-labels leaves them out (and says how many).

Exit codes: 0 checked; 1 labels that cannot be used; 2 bad usage, an unreadable path, a file that is
neither results nor labels, or a labels file that holds no label.
"""


def judge_check(
    scored: str = typer.Argument(..., help="Scored results (jsonl).", metavar="SCORED.jsonl"),
    human: str = typer.Option(
        ..., "--human", help="The human labels: jsonl, or a reviewed export (.xlsx).", metavar="LABELS"
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON on stdout."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap interval."),
    skip_bad_labels: bool = typer.Option(
        False,
        "--skip-bad-labels",
        help="Leave out the labels that cannot be used (and say how many) instead of refusing.",
    ),
    lang: str | None = lang_option(),
) -> None:
    from formatkit.messages import locale_lang
    from scoring import judge_check as check
    from scoring.report import render_judge_check

    scored, human = paths_or_fail([scored, human], lang=lang)
    shown = lang or locale_lang()
    with exits("judge-check", lang):
        outcome = check(scored, human, seed=seed, skip_bad_labels=skip_bad_labels, raise_bad_labels=False)
    problems = [p.render(shown) for p in outcome.skipped]
    if outcome.refused:  # nothing was computed: the problems, each at its place (on stdout too with --json)
        if as_json:
            refused = {"refused": True, "bad_labels": len(problems), "problems": problems}
            typer.echo(json.dumps(refused, ensure_ascii=False, indent=2))
        listed = _listed(problems)
        typer.echo(say("labels.refused", lang, command="judge-check", count=len(problems), problems=listed), err=True)
        raise typer.Exit(EXIT_ERRORS)
    if not outcome.labels:
        typer.echo(say("labels.empty", lang, path=human), err=True)
        raise typer.Exit(EXIT_USAGE)
    if problems:
        listed = _listed(problems)
        typer.echo(say("labels.skipped", lang, command="judge-check", count=len(problems), problems=listed), err=True)
    if outcome.stale:
        typer.echo(say("judge_check.stale", lang, count=outcome.stale), err=True)
    summary = outcome.to_dict()
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False, indent=2, allow_nan=False))
    else:
        from formatkit.messages import locale_lang

        for line in render_judge_check(summary, lang=lang or locale_lang()).splitlines():
            typer.echo(escape_controls(line))  # judge and dataset names come from files
    if not outcome.judges:
        typer.echo(say("judge_check.nothing", lang, labels=outcome.labels, unmatched=outcome.unmatched), err=True)
    raise typer.Exit(EXIT_OK)


def _listed(problems: list[str], limit: int = 20) -> str:
    """The problems, one indented line each: the first ``limit``, then how many more (--json has them all)."""
    more = [f"… +{len(problems) - limit}"] if len(problems) > limit else []
    return "".join(f"\n  {line}" for line in [*problems[:limit], *more])


judge_check.__doc__ = _HELP


def register(app: typer.Typer) -> None:
    app.command("judge-check", help=_HELP)(judge_check)
