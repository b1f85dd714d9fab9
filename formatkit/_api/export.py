"""Canonical records back to a spreadsheet people can read, and that reads back as it was written.

The layout follows the Excel input layout (one row per user turn, rows of a conversation sharing its
session_id, the target turn's reference and response on its last row). The result columns use seed 001's
field names: ``response``, ``score``, ``analysis``, ``usage`` (JSON), ``error`` and the ``model`` that
answered; the last column, ``row_key``, says where each row stands (``record.turn/turns``, zero-padded:
sorting by it puts the sheet back; :func:`row_key`), so that a sheet people sorted reads back in the order it
was written. The scores-as-data fields (``metric``, ``extracted_answer`` — the response's ``answer``, renamed
because ``answer`` names the reference in the input formats —, ``settled``, ``unsettled_reason``), the
judge's verdicts (``judge``, JSON), the endpoint and the record's ``dataset`` and other ``meta`` (JSON)
follow, each only when some record has it. A record with several samples gets ``response_2``,
``score_2``, … columns. Every one of these is a known column of the Excel reader, so an exported file can
be validated, edited and scored again. Cell safety (text never a formula, escapes, sizes) is
:mod:`formatkit._core.xlsx_style`'s.

Results of several sets (``eval``'s, where each set numbers its sessions from 0) keep their ids: the
``dataset`` cell stands on every row, and the Excel reader keys a session by dataset and session_id. An id
the sheet cannot hold — text, too large, or used twice in one dataset — is replaced by a free number and
the original kept in ``meta`` as ``original_session_id`` (``notes`` says so). With ``check``, the workbook
is read back before it is put in place, in the mode ``score`` (responses present) or ``run`` (none) reads
it: a sheet that would be refused is never written (:class:`SheetReadBackError`).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from formatkit._core.errors import SheetReadBackError
from formatkit._core.judge_entry import judge_scale
from formatkit._core.modes import Mode
from formatkit._core.record import RecordDict, ResponseDict, reference_of, response_entries, target_turn
from formatkit._core.writers import atomic_writer, output_lock
from formatkit._core.xlsx_style import EXCEL_MAX_TEXT, Fill, Sheet, safe_text, write_sheet
from formatkit._rules.excel_values import MAX_ID
from formatkit._rules.results import (
    RESULT_FIELDS,  # per sample, in order; JSON-valued ones as JSON text
    ROW_KEY,
)

__all__ = [
    "BASE_COLUMNS",
    "EXCEL_MAX_TEXT",
    "RESULT_FIELDS",
    "SheetReadBackError",
    "export_excel",
    "read_back_mode",
    "row_key",
    "safe_text",
]

BASE_COLUMNS = ["session_id", "system_prompt", "query", "reference_response", "parameters"]
_ALWAYS = {"response", "score", "analysis", "usage", "error", "model"}
_JSON_FIELDS = {"usage", "judge", "extra"}
#: Response keys with a place of their own (a column, or the row's parameters); the rest go to ``extra``.
_PLACED = {"content", "answer", "parameters", *RESULT_FIELDS}
_RECORD_FIELDS = ["dataset", "meta"]


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _extra(response: ResponseDict, notes: list[str] | None) -> dict[str, object] | None:
    """The response's keys without a column of their own; the largest left out when they would not fit
    a cell (a long logprobs list), which ``notes`` says."""
    extra = {k: v for k, v in response.items() if k not in _PLACED and v is not None}
    while extra and len(_json(extra) or "") > EXCEL_MAX_TEXT:
        largest = max(extra, key=lambda k: len(_json(extra[k]) or ""))
        del extra[largest]
        if notes is not None and not any(largest in n for n in notes):
            notes.append(f"{largest}: too long for a cell, left out of the extra column")
    return extra or None


def _response_cells(response: ResponseDict, suffix: str, notes: list[str] | None = None) -> dict[str, object]:
    cells: dict[str, object] = {}
    for name in RESULT_FIELDS:
        if name == "extra":
            value: Any = _extra(response, notes)
        else:
            value = response.get({"response": "content", "extracted_answer": "answer"}.get(name, name))
        if name in _JSON_FIELDS:
            value = _json(value) if value else None
        elif isinstance(value, dict | list):
            value = _json(value)
        if value is not None:
            cells[f"{name}{suffix}"] = value
    return cells


def _rows(record: RecordDict, notes: list[str] | None = None) -> Iterator[dict[str, object]]:
    """One row per user turn; the last row carries the target turn's reference and responses."""
    messages = record.get("messages", [])
    system = messages[0].get("content") if messages and messages[0].get("role") == "system" else None
    responses = response_entries(record)
    parameters = responses[0].get("parameters") if responses else None
    turns: list[dict[str, object]] = []
    for message in messages[:-1]:
        if message.get("role") == "user":
            turns.append({"query": message.get("content")})
        elif message.get("role") == "assistant" and turns:
            turns[-1]["response"] = message.get("content")
    meta = dict(record.get("meta") or {})
    meta.pop("source", None)  # where it was read from last time; the exported file is its new source
    dataset = meta.pop("dataset", None)
    for index, turn in enumerate(turns):
        row: dict[str, object] = {"session_id": record.get("session_id"), "system_prompt": system, **turn}
        if dataset is not None:
            row["dataset"] = dataset  # on every row: a session is the rows sharing dataset and session_id
        if index == len(turns) - 1:
            row["reference_response"] = reference_of(record)
            row["parameters"] = _json(parameters) if parameters else None
            for n, response in enumerate(responses, start=1):
                row.update(_response_cells(response, "" if n == 1 else f"_{n}", notes))
            if meta:
                row["meta"] = _json(meta)
        yield row


def row_key(record: int, turn: int, turns: int, widths: tuple[int, int]) -> str:
    """The ``row_key`` cell of a record's turn (each counted from 1): ``0012.2/3`` is the second of the
    three turns of the twelfth record; ``widths`` pads the record's and the turn's numbers."""
    return f"{record:0{widths[0]}d}.{turn:0{widths[1]}d}/{turns}"


def _keyed_rows(records: list[RecordDict], notes: list[str] | None) -> list[dict[str, object]]:
    """Every record's rows, in order, each with its ``row_key``."""
    per_record = [list(_rows(record, notes)) for record in records]
    widths = (len(str(len(per_record))), len(str(max((len(rows) for rows in per_record), default=1))))
    for number, rows in enumerate(per_record, start=1):
        for turn, row in enumerate(rows, start=1):
            row[ROW_KEY] = row_key(number, turn, len(rows), widths)
    return [row for rows in per_record for row in rows]


def _columns(rows: list[dict[str, object]]) -> list[str]:
    present = {key for row in rows for key in row}
    samples = max((int(k.rsplit("_", 1)[1]) for k in present if k.startswith("response_")), default=1)
    columns = list(BASE_COLUMNS)
    for n in range(1, samples + 1):
        suffix = "" if n == 1 else f"_{n}"
        columns += [
            f"{f}{suffix}"
            for f in RESULT_FIELDS
            if f in _ALWAYS or f"{f}{suffix}" in present or _review(f, suffix, present)
        ]
    return columns + [name for name in _RECORD_FIELDS if name in present] + [ROW_KEY]


def _review(field: str, suffix: str, present: set[str]) -> bool:
    """A sheet for review (its responses carry a ``fingerprint``) has a ``human_score`` column, empty for
    the reviewer to fill."""
    return field == "human_score" and f"fingerprint{suffix}" in present


def _fill(row: dict[str, object], column: str) -> Fill | None:
    """right / partial / wrong for a score cell, on the score's own scale (a judge's 0-2 included)."""
    if not column.startswith("score"):
        return None
    score = row.get(column)
    if not isinstance(score, int | float) or isinstance(score, bool):
        return None
    suffix = column[len("score") :]
    top = 1.0
    judge = row.get(f"judge{suffix}")
    if isinstance(judge, str) and '"scale"' in judge:
        try:
            entry = json.loads(judge)  # the response's judge entry, as its cell holds it
            scale = judge_scale(entry) if isinstance(entry, dict) else None
            top = float(scale.split("-")[-1]) if scale is not None else 1.0
        except ValueError:
            top = 1.0
    if score >= top:
        return "right"
    return "wrong" if score <= 0 else "partial"


def _sheet_ids(records: list[RecordDict], notes: list[str] | None) -> list[RecordDict]:
    """The records with ids a sheet can hold: whole numbers, unique within their dataset. An id that is not
    (text, too large, a repeat) gets the dataset's next free number; the original goes to meta."""
    seen: dict[Any, set[int]] = {}
    bad: list[int] = []
    for index, record in enumerate(records):
        sid = record.get("session_id")
        taken = seen.setdefault((record.get("meta") or {}).get("dataset"), set())
        if type(sid) is int and abs(sid) < MAX_ID and sid not in taken:
            taken.add(sid)
        else:
            bad.append(index)
    if not bad:
        return records
    out = list(records)
    examples: list[str] = []
    for index in bad:
        record = records[index].copy()
        taken = seen[(record.get("meta") or {}).get("dataset")]
        new = max(taken, default=-1) + 1
        taken.add(new)
        original = record.get("session_id")
        record["meta"] = {**(record.get("meta") or {}), "original_session_id": original}
        record["session_id"] = new
        out[index] = record
        if len(examples) < 3:
            examples.append(f"{original!r} → {new}")
    if notes is not None:
        notes.append(
            f"{len(bad)} record(s) had a session_id a sheet cannot hold (text, too large, or used twice in one "
            f"dataset): written as new numbers ({', '.join(examples)}{', …' if len(bad) > 3 else ''}), the "
            "original kept in the meta column as original_session_id"
        )
    return out


def export_excel(
    records: Iterable[RecordDict],
    output: str | os.PathLike[str],
    *,
    check: bool = False,
    notes: list[str] | None = None,
) -> int:
    """Write ``records`` (canonical dicts) to an .xlsx at ``output``, atomically; return the row count.

    ``check``: read the workbook back first (in :func:`read_back_mode`) and raise
    :class:`SheetReadBackError` (nothing written) when it is refused. ``notes`` receives what export had to
    change (ids). The output's lock is held from the first record read (OutputBusyError when another command
    writes it)."""
    with output_lock(output):
        return _export(records, output, check, notes)


def _export(records: Iterable[RecordDict], output: str | os.PathLike[str], check: bool, notes: list[str] | None) -> int:
    from openpyxl import Workbook

    listed = _sheet_ids(list(records), notes)
    rows = _keyed_rows(listed, notes)
    columns = _columns(rows)
    sheet = Sheet("results", columns, decimals={c for c in columns if c.startswith("score")})
    for row in rows:
        sheet.rows.append([row.get(name) for name in columns])
        sheet.fills.append([_fill(row, name) for name in columns])
    workbook = Workbook(write_only=True)
    write_sheet(workbook, sheet)
    data = io.BytesIO()
    workbook.save(data)
    if check:
        _check_reads_back(data.getvalue(), Path(output).name, read_back_mode(listed))
    with atomic_writer(Path(output)) as handle:
        handle.write(data.getvalue())
    return len(rows)


def read_back_mode(records: list[RecordDict]) -> Mode:
    """The mode an exported sheet is read in next: ``scored`` when a record has a response or an error
    (``score`` reads it), else ``infer-eval`` when every record has a reference (``run``), else ``infer-only``."""
    targets = [target_turn(r) for r in records]
    outcomes = ("content", "error", "score")
    if any(
        isinstance(r, dict) and any(r.get(k) is not None for k in outcomes)
        for t in targets
        if isinstance(t, dict)
        for r in t.get("responses") or []
    ):
        return "scored"
    if all(isinstance(t, dict) and t.get("reference_response") for t in targets):
        return "infer-eval"
    return "infer-only"


def _check_reads_back(data: bytes, name: str, mode: Mode) -> None:
    """Raise InvalidFileError when the workbook ``data`` does not validate in ``mode``."""
    from formatkit._api.validate import validate_file

    with tempfile.TemporaryDirectory(prefix="formatkit-export-") as folder:
        path = Path(folder) / (name if name.lower().endswith(".xlsx") else "export.xlsx")
        path.write_bytes(data)
        report = validate_file(path, mode=mode, profile="none")
    if not report.valid:
        raise SheetReadBackError(report, mode)
