"""``formatkit merge PART... -o OUT.jsonl``: the parts of ``--shard K/N`` runs back together, in input order."""

from __future__ import annotations

from pathlib import Path

import typer

from formatkit.cli._common import EXIT_OK, fail_usage, lang_option, output_or_fail, terminate_cleanly
from formatkit.cli._failures import exits, say
from formatkit.messages import escape_controls

_HELP = """Put the outputs of `run --shard K/N` (or `eval --shard K/N` directories) back together.

Each PART is an output of `run --shard K/N` with its run record beside it (OUT.jsonl.run.json), a file
`score` wrote from one (it carries the record along), or a directory `eval --shard K/N` wrote (its
scored.jsonl with run.json). Part K's i-th record is written at input position K+(i-1)*N: the same
records, in the same order, as one run without --shard. A part whose records are out of input order
(their meta.source line or row steps back while another part's do not) is refused. OUT gets its own run record
(OUT.run.json) listing the parts'.

Nothing is written unless the parts make the whole input exactly once: every part 1/N to N/N given once,
all run on the same input, each holding exactly its share of the records. Every problem is listed, each
naming its part.

Exit codes: 0 merged; 1 the parts do not make the whole input (nothing written); 2 bad usage.
"""


def merge(
    ctx: typer.Context,
    parts: list[str] = typer.Argument(..., metavar="PART...", help="The parts: run outputs or eval directories."),
    output: Path = typer.Option(..., "-o", "--output", help="The merged canonical jsonl to write."),
    lang: str | None = lang_option(),
) -> None:
    from formatkit.cli.run import recorded_command
    from scoring import merge_parts

    terminate_cleanly()
    output_or_fail(output)
    for part in parts:
        if not Path(part).exists():
            fail_usage(f"{part}: no such file or directory")
    refused = {"count": len(parts), "problems": lambda exc: "".join(f"\n  {_said(p, lang)}" for p in exc.messages)}
    with exits("merge", lang, **refused):  # the output or its run record cannot be written: a full disk, a pipe
        outcome = merge_parts(parts, output, command=recorded_command(ctx))
    said = "merge.merged_unordered" if not outcome.order_checked else "merge.merged"
    said = "merge.merged_unchecked" if outcome.order_checked and outcome.unchecked else said
    typer.echo(say(said, lang, outcome, parts=len(outcome.parts)), err=True)
    raise typer.Exit(EXIT_OK)


def _said(problem: object, lang: str | None) -> str:
    """A problem of the merge in ``lang`` (a message of the catalogue), escaped for the terminal."""
    from formatkit.messages import Msg, locale_lang

    text = problem.render(lang or locale_lang()) if isinstance(problem, Msg) else str(problem)
    return escape_controls(text)


def register(app: typer.Typer) -> None:
    app.command("merge", help=_HELP)(merge)
