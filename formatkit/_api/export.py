"""Canonical records back to a spreadsheet people can read, and that reads back as it was written.

The layout follows the Excel input layout (one row per user turn, rows of a conversation sharing its
session_id, the target turn's reference and response on its last row). The result columns use seed 001's
field names: ``response``, ``score``, ``analysis``, ``usage`` (JSON), ``error`` and the ``model`` that
answered; the scores-as-data fields (``metric``, ``extracted_answer`` — the response's ``answer``, renamed
because ``answer`` names the reference in the input formats —, ``settled``, ``unsettled_reason``), the
judge's verdicts (``judge``, JSON), the endpoint and the record's ``dataset`` and other ``meta`` (JSON)
follow, each only when some record has it. A record with several samples gets ``response_2``,
``score_2``, … columns. Every one of these is a known column of the Excel reader, so an exported file can
be validated, edited and scored again. Cell safety (text never a formula, escapes, sizes) is
:mod:`formatkit._api.xlsx_style`'s.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from formatkit._api.xlsx_style import EXCEL_MAX_TEXT, Fill, Sheet, safe_text, write_sheet
from formatkit._core.writers import output_lock, save_workbook
from formatkit._rules.results import RESULT_FIELDS  # per sample, in order; JSON-valued ones as JSON text

__all__ = ["BASE_COLUMNS", "EXCEL_MAX_TEXT", "RESULT_FIELDS", "export_excel", "safe_text"]

BASE_COLUMNS = ["session_id", "system_prompt", "query", "reference_response", "parameters"]
_ALWAYS = {"response", "score", "analysis", "usage", "error", "model"}
_JSON_FIELDS = {"usage", "judge"}
_RECORD_FIELDS = ["dataset", "meta"]


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _response_cells(response: dict[str, Any], suffix: str) -> dict[str, Any]:
    cells: dict[str, Any] = {}
    for name in RESULT_FIELDS:
        value = response.get({"response": "content", "extracted_answer": "answer"}.get(name, name))
        if name in _JSON_FIELDS:
            value = _json(value) if value else None
        elif isinstance(value, dict | list):
            value = _json(value)
        if value is not None:
            cells[f"{name}{suffix}"] = value
    return cells


def _rows(record: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """One row per user turn; the last row carries the target turn's reference and responses."""
    messages = record.get("messages", [])
    system = messages[0].get("content") if messages and messages[0].get("role") == "system" else None
    target = messages[-1] if messages else {}
    responses = [r for r in target.get("responses") or [] if isinstance(r, dict)]
    parameters = responses[0].get("parameters") if responses else None
    turns: list[dict[str, Any]] = []
    for message in messages[:-1]:
        if message.get("role") == "user":
            turns.append({"query": message.get("content")})
        elif message.get("role") == "assistant" and turns:
            turns[-1]["response"] = message.get("content")
    meta = dict(record.get("meta") or {})
    meta.pop("source", None)  # where it was read from last time; the exported file is its new source
    dataset = meta.pop("dataset", None)
    for index, turn in enumerate(turns):
        row: dict[str, Any] = {"session_id": record.get("session_id"), "system_prompt": system, **turn}
        if index == len(turns) - 1:
            row["reference_response"] = target.get("reference_response")
            row["parameters"] = _json(parameters) if parameters else None
            for n, response in enumerate(responses, start=1):
                row.update(_response_cells(response, "" if n == 1 else f"_{n}"))
            if dataset is not None:
                row["dataset"] = dataset
            if meta:
                row["meta"] = _json(meta)
        yield row


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    present = {key for row in rows for key in row}
    samples = max((int(k.rsplit("_", 1)[1]) for k in present if k.startswith("response_")), default=1)
    columns = list(BASE_COLUMNS)
    for n in range(1, samples + 1):
        suffix = "" if n == 1 else f"_{n}"
        columns += [f"{f}{suffix}" for f in RESULT_FIELDS if f in _ALWAYS or f"{f}{suffix}" in present]
    return columns + [name for name in _RECORD_FIELDS if name in present]


def _fill(row: dict[str, Any], column: str) -> Fill | None:
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
            scale = json.loads(judge).get("scale", "")
            top = float(str(scale).split("-")[-1])
        except (ValueError, AttributeError):
            top = 1.0
    if score >= top:
        return "right"
    return "wrong" if score <= 0 else "partial"


def export_excel(records: Iterable[dict[str, Any]], output: str | os.PathLike[str]) -> int:
    """Write ``records`` (canonical dicts) to an .xlsx at ``output``, atomically; return the row count.
    The output's lock is held from the first record read (OutputBusyError when another command writes it)."""
    with output_lock(output):
        return _export(records, output)


def _export(records: Iterable[dict[str, Any]], output: str | os.PathLike[str]) -> int:
    from openpyxl import Workbook

    rows = [row for record in records for row in _rows(record)]
    columns = _columns(rows)
    sheet = Sheet("results", columns, decimals={c for c in columns if c.startswith("score")})
    for row in rows:
        sheet.rows.append([row.get(name) for name in columns])
        sheet.fills.append([_fill(row, name) for name in columns])
    workbook = Workbook(write_only=True)
    write_sheet(workbook, sheet)
    save_workbook(workbook, Path(output))
    return len(rows)
