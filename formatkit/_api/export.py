"""Canonical records back to a spreadsheet people can read.

The layout follows the Excel input layout (one row per user turn, rows of a conversation sharing
its session_id, the target turn's reference and response on its last row). Columns after
``response`` carry the outcome: score, analysis, error, token usage; a record with several samples gets
``response_2``, ``score_2``, … columns. Text is always written as text: a cell starting with ``=`` is
never turned into a formula, control characters Excel cannot hold are dropped, and a text over
Excel's 32,767-character limit is cut with a visible marker.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from formatkit._core.writers import atomic_writer

__all__ = ["export_excel"]

EXCEL_MAX_TEXT = 32_767
_TRUNCATED = "…[truncated by formatkit]"
_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
BASE_COLUMNS = ["session_id", "system_prompt", "query", "reference_response", "parameters", "response"]
SAMPLE_COLUMNS = ["response", "score", "analysis", "error", "total_tokens"]


def _text(value: str) -> str:
    value = _ILLEGAL.sub("", value)
    if len(value) > EXCEL_MAX_TEXT:
        value = value[: EXCEL_MAX_TEXT - len(_TRUNCATED)] + _TRUNCATED
    return value


def _rows(record: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """One row per user turn; the last row carries the target turn's reference and responses."""
    messages = record.get("messages", [])
    system = messages[0].get("content") if messages and messages[0].get("role") == "system" else None
    target = messages[-1] if messages else {}
    responses = target.get("responses") or []
    parameters = responses[0].get("parameters") if responses else None
    turns: list[dict[str, Any]] = []
    for message in messages[:-1]:
        if message.get("role") == "user":
            turns.append({"query": message.get("content")})
        elif message.get("role") == "assistant" and turns:
            turns[-1]["response"] = message.get("content")
    for index, turn in enumerate(turns):
        row: dict[str, Any] = {"session_id": record.get("session_id"), "system_prompt": system, **turn}
        if index == len(turns) - 1:
            row["reference_response"] = target.get("reference_response")
            row["parameters"] = json.dumps(parameters, ensure_ascii=False) if parameters else None
            for n, response in enumerate(responses, start=1):
                suffix = "" if n == 1 else f"_{n}"
                usage = response.get("usage") or {}
                row[f"response{suffix}"] = response.get("content")
                row[f"score{suffix}"] = response.get("score")
                row[f"analysis{suffix}"] = response.get("analysis")
                row[f"error{suffix}"] = response.get("error")
                row[f"total_tokens{suffix}"] = usage.get("total_tokens")
        dataset = (record.get("meta") or {}).get("dataset")
        if dataset is not None:
            row["dataset"] = dataset
        yield row


def _columns(max_samples: int, with_dataset: bool) -> list[str]:
    columns = [*BASE_COLUMNS, *SAMPLE_COLUMNS[1:]]
    for n in range(2, max_samples + 1):
        columns += [f"{name}_{n}" for name in SAMPLE_COLUMNS]
    if with_dataset:
        columns.append("dataset")
    return columns


def export_excel(records: Iterable[dict[str, Any]], output: str | os.PathLike[str]) -> int:
    """Write ``records`` (canonical dicts) to an .xlsx at ``output``, atomically; return the row count."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Alignment, Font

    rows = [row for record in records for row in _rows(record)]
    max_samples = max(
        (int(k.rsplit("_", 1)[1]) for r in rows for k in r if re.fullmatch(r"response_\d+", k)), default=1
    )
    columns = _columns(max_samples, any("dataset" in r for r in rows))

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("results")
    sheet.freeze_panes = "A2"
    wrap = Alignment(wrap_text=True, vertical="top")
    for index, name in enumerate(columns, start=1):
        width = 60 if name.split("_")[0] in ("query", "reference", "response", "analysis", "system") else 12
        sheet.column_dimensions[_letter(index)].width = width
    header = []
    for name in columns:
        cell = WriteOnlyCell(sheet, value=name)
        cell.font = Font(bold=True)
        header.append(cell)
    sheet.append(header)
    for row in rows:
        out = []
        for name in columns:
            value = row.get(name)
            if isinstance(value, str):
                cell = WriteOnlyCell(sheet, value=_text(value))
                cell.data_type = "s"  # never a formula, whatever the text starts with
                cell.alignment = wrap
            else:
                cell = WriteOnlyCell(sheet, value=value)
            out.append(cell)
        sheet.append(out)
    with atomic_writer(Path(output)) as handle:
        workbook.save(handle)
    return len(rows)


def _letter(index: int) -> str:
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters
