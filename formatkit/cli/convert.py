"""``formatkit convert PATH... -o OUT.jsonl [--mode M] [--profile P] [--no-meta]``

The options are declared here (typer); the body is :func:`formatkit.cli._convert.run_convert`, which the
fast path of :func:`formatkit.cli.main` runs too: a new option here needs its entry in
:mod:`formatkit.cli._fast` (tests/cli/test_fast_path.py fails until it has one).
"""

from __future__ import annotations

import typer

from formatkit.cli._common import ModeOption, ProfileOption, lang_option
from formatkit.cli._convert import run_convert
from formatkit.cli._options import IssueArgs, takes
from formatkit.cli._shapes import ShapeRequest, option_help, run_shapes, shapes_help


@takes(issues=IssueArgs)
def convert(
    paths: list[str] = typer.Argument(..., help="Input files, converted in order into one output.", metavar="PATH..."),
    output: str = typer.Option(..., "-o", "--output", help="The canonical jsonl to write."),
    mode: ModeOption = typer.Option(ModeOption.infer_eval, "--mode", help="What the files are for."),
    profile: ProfileOption = typer.Option(ProfileOption.platform, "--profile", help="Upload limits to apply."),
    no_meta: bool = typer.Option(False, "--no-meta", help="Leave out meta (the bare seed shape)."),
    sheet: str | None = typer.Option(
        None, "--sheet", metavar="NAME", help="Read this sheet of a workbook, not the first."
    ),
    lang: str | None = lang_option(),
    to: str | None = typer.Option(
        None, "--to", metavar="KIND", help=option_help("Write the records in another tool's shape instead", "write")
    ),
    from_shape: str | None = typer.Option(
        None, "--from", metavar="KIND", help=option_help("The inputs are another tool's files, in this shape", "read")
    ),
    set_path: str | None = typer.Option(
        None, "--set", metavar="SET", help="With --from openai-batch: the set the batch file was written from."
    ),
    model: str | None = typer.Option(None, "--model", help="With --to openai-batch: the model every request names."),
    *,
    issues: IssueArgs,
) -> None:
    request = ShapeRequest(
        mode.value,
        profile.value,
        not no_meta,
        sheet,
        to=to,
        from_shape=from_shape,
        set_path=set_path,
        model=model,
    )
    if request.given:
        raise typer.Exit(run_shapes(paths, output, request, lang=lang, shown=issues.shown))
    code = run_convert(
        paths,
        output,
        mode=mode.value,
        profile=profile.value,
        meta=not no_meta,
        sheet=sheet,
        lang=lang,
        shown=issues.shown,
    )
    raise typer.Exit(code)


_HELP = """Validate, then write canonical jsonl. Nothing is written when any error is found.

--to KIND writes another tool's shape instead, listing every field it cannot hold; --from KIND reads one.
With --from openai-batch and --set SET, the inputs are a batch's results, written back into SET's records.

{shapes}"""


def register(app: typer.Typer) -> None:
    # the help is written from the table of shapes (formatkit.SHAPES) when the command is registered
    app.command("convert", help=_HELP.format(shapes=shapes_help()))(convert)
