"""Writing a set in another tool's shape: ``convert IN --to KIND -o OUT``.

The input files are validated as ``convert`` validates them (every rule, each issue at its place); each
record is then written by the shape's module (:mod:`formatkit._rules.shapes`). What the shape cannot
hold is said, never dropped silently: a field some records lose is one ``shape_field_lost`` warning per
field and file, with the count of records; a record the shape cannot hold at all is a
``shape_record_unfit`` error at the record's place, and then nothing is written (every record appears
in every output, or there is no output).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from formatkit._api.conversion import check_output
from formatkit._api.validate import Checked, StrPath, _Run, check_combined, check_path, upload_issues
from formatkit._core.errors import OutputError
from formatkit._core.messages import Msg
from formatkit._core.modes import Mode, Profile
from formatkit._core.writers import atomic_writer, dumps_line, output_lock
from formatkit._rules.combined import combined_ids
from formatkit._rules.shapes import SHAPES, shape_names, shape_writer
from formatkit._rules.shapes.common import Unfit

__all__ = ["SHAPES", "ShapeWritten", "write_shape"]


class _Abort(Exception):
    pass


class ShapeWritten(Checked):
    """What :func:`write_shape` found and wrote: the checks of the input files, and how many lines
    of the shape were written (a batch file has one per pending turn)."""

    lines: int = 0


def _source_place(record: Mapping[str, object]) -> dict[str, object]:
    meta = record.get("meta")
    source = meta.get("source") if isinstance(meta, dict) else None
    if not isinstance(source, dict):
        return {}
    place: dict[str, object] = {}
    if "line" in source:
        place["line"] = source["line"]
    if "sheet" in source:
        place["sheet"] = source["sheet"]
    rows = source.get("rows")
    if isinstance(rows, list) and rows:
        place["row"] = rows[-1]
    return place


def write_shape(
    paths: Sequence[StrPath],
    output: StrPath,
    to: str,
    *,
    mode: Mode = "infer-eval",
    profile: Profile = "platform",
    sheet: str | None = None,
    model: str | None = None,
) -> ShapeWritten:
    """Validate ``paths`` and write their records to ``output`` in shape ``to`` (one of :data:`SHAPES`).
    ``model``: the model a batch file's requests name (``openai-batch``). Nothing is written when any file
    has an error or a record the shape cannot hold; fields it cannot hold are listed as warnings. The
    outcome: ``.valid``, ``.lines`` written, ``.report()`` (the :class:`~formatkit.Report`)."""
    if to not in shape_names("write"):
        raise ValueError(f"unknown shape {to!r}: one of {', '.join(shape_names('write'))}")
    for path in paths:
        check_path(path)
    check_output(output, paths)
    if SHAPES[to].requests and len(paths) != 1:
        # a custom_id names a record by its position in the set: one set, one batch file
        raise OutputError(f"{output}: a batch file is written from one set; give one input file")
    write_record = shape_writer(to)
    options = {"model": model or ""}
    runs: list[_Run] = []
    ids = combined_ids(len(paths), by_dataset=True)
    lines = 0
    try:
        with output_lock(output), atomic_writer(output) as handle:
            for path in paths:
                run = _Run(path, mode, profile, sheet=sheet)
                lost: dict[str, int] = {}
                for record in run:
                    if ids is not None:
                        check_combined(ids, run, record)
                    try:
                        written = write_record(record, run.records, options)
                    except Unfit as exc:
                        run.sink.add("shape_record_unfit", exc.reason, **_source_place(record))
                        continue
                    for name in written.lost:
                        lost[name] = lost.get(name, 0) + 1
                    if run.sink.errors == 0:
                        for line in written.lines:
                            handle.write(dumps_line(line))  # type: ignore[arg-type]
                        lines += len(written.lines)
                for name, count in lost.items():
                    message = Msg("shape_field_lost", shape=to, field=name, count=count, output=str(output))
                    run.sink.add("shape_field_lost", message)
                runs.append(run)
            result = ShapeWritten(runs, upload_issues(paths, profile))
            result.lines = lines
            if not result.valid:
                raise _Abort
    except _Abort:
        pass
    return result
