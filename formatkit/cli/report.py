"""``formatkit report RESULTS.jsonl... [--dimensions MAP] [--format text|json|md] [-o OUT]``"""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any

import typer

from formatkit.cli._common import EXIT_OK, fail_usage, output_or_fail, paths_or_fail

_HELP = """Aggregate scored results: dataset → capability dimension → overall, on 0–100.

A dataset is meta.dataset, else the file's name. Its dimension comes from --dimensions (a JSON file
{"dataset": "dimension"}), else meta.dimension; a dataset without one is a dimension of its own. A
dimension's score is the mean of its datasets; overall is the mean of the dimensions (seed 001).
The report counts records, unscorable responses and token usage; math shows strict (share of full
marks) next to the loose mean; several samples per record add pass@k and majority vote.

Formats: text (a table), md (Markdown tables), json (machine-readable), html (a page), xlsx (a
workbook; needs -o).

Exit codes: 0 report written; 2 bad usage, an unreadable path, or a line that is not a JSON record.
"""


class ReportFormat(str, Enum):
    text = "text"
    json = "json"
    md = "md"
    html = "html"
    xlsx = "xlsx"


def _records(path: str) -> Iterator[dict[str, Any]]:
    import orjson

    with open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                fail_usage(f"{path}: line {number} is not JSON ({exc}); is this a results file from `score`?")
            if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
                fail_usage(f"{path}: line {number} is not a canonical record (no messages list)")
            yield record


def _has_scoring(record: dict[str, Any]) -> bool:
    """Whether a scorer has been over the record: a response holds a score or an analysis."""
    messages = record["messages"]
    target = messages[-1] if messages and isinstance(messages[-1], dict) else {}
    responses = target.get("responses")
    return isinstance(responses, list) and any(
        isinstance(r, dict) and ("score" in r or "analysis" in r) for r in responses
    )


def _dimensions(path: Path | None) -> dict[str, str] | None:
    if path is None:
        return None
    import orjson

    try:
        data = orjson.loads(path.read_bytes())
    except OSError as exc:
        fail_usage(f"{path}: {exc.strerror or exc}")
    except orjson.JSONDecodeError as exc:
        fail_usage(f'{path}: not JSON ({exc}); write {{"dataset": "dimension", ...}}')
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        fail_usage(f'{path}: expected a JSON object of dataset names to dimension names, {{"gsm8k": "推理数学"}}')
    return dict(data)


def report(
    paths: list[str] = typer.Argument(..., help="Scored results files (canonical jsonl).", metavar="RESULTS..."),
    dimensions: Path | None = typer.Option(None, "--dimensions", help='JSON file: {"dataset": "dimension"}.'),
    fmt: ReportFormat = typer.Option(ReportFormat.text, "--format", help="text, json, md, html or xlsx."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the report here instead of stdout."),
) -> None:
    from scoring._report.aggregate import Aggregator, dataset_of
    from scoring._report.render import render

    if fmt.value == "xlsx" and output is None:
        fail_usage("--format xlsx writes a workbook: name it with -o REPORT.xlsx")
    if output is not None:
        output_or_fail(output)
    mapping = _dimensions(dimensions)
    aggregator = Aggregator()
    scored: set[str] = set()
    for path in paths_or_fail(paths):
        stem = Path(path).stem
        for record in _records(path):
            aggregator.add(record, stem)
            if _has_scoring(record):
                scored.add(dataset_of(record, stem))
    result = aggregator.finish(mapping)
    for name in result.datasets:
        if name not in scored:
            # Not one response carries a score or a scorer's analysis: the file was never scored, and
            # its responses are counted as unscorable under an unknown metric; say what to do instead.
            typer.echo(
                f"formatkit report: {name}: no response has been scored; run `formatkit score` on it first "
                "and report the file it writes",
                err=True,
            )
    if fmt.value == "xlsx":
        assert output is not None
        from scoring._report.render import write_xlsx

        output.parent.mkdir(parents=True, exist_ok=True)
        tmp = output.with_name(f".{output.name}.tmp")
        write_xlsx(result, str(tmp))
        tmp.replace(output)
        typer.echo(f"wrote {output}", err=True)
        raise typer.Exit(EXIT_OK)
    text = render(result, fmt.value)
    if output is None:
        typer.echo(text, nl=False)
    else:
        from formatkit._core.writers import atomic_writer

        with atomic_writer(output) as handle:
            handle.write(text.encode("utf-8"))
        typer.echo(f"wrote {output}", err=True)
    raise typer.Exit(EXIT_OK)


def register(app: typer.Typer) -> None:
    app.command("report", help=_HELP)(report)
