"""``POST /v1/preview``: the rows of one upload as the platform reads them, for the page to mark the cells
that hold an issue.

A workbook or CSV file gives the sheet validate reads, each cell as the text a record gets from it
(:func:`formatkit.files.sheet_rows`); a jsonl file gives its lines. Read-only: nothing is checked or
repaired here (``/v1/validate`` says what is wrong, at the same rows and columns). The upload is received,
limited, gated and removed exactly as the other ``/v1/`` routes do it (:mod:`formatkit.serve._uploads`,
:mod:`formatkit.serve._gate`), with the same token.
"""

from __future__ import annotations

import hmac
import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse, Response

from formatkit.messages import resolve_lang, ui
from formatkit.serve._gate import Busy, Gate, TimedOut
from formatkit.serve._settings import Settings
from formatkit.serve._uploads import MEGABYTE, Upload, receive_files

__all__ = ["MAX_CELL_CHARS", "MAX_COLUMNS", "MAX_ROWS", "add_preview", "preview_document"]

_LOG = logging.getLogger("formatkit.serve")

#: Rows (a sheet's, header included) or lines a preview holds: the platform's 1,000 rows and the header.
MAX_ROWS = 1001
#: Columns of a sheet a preview holds (a set has a handful; a stray far cell would make thousands).
MAX_COLUMNS = 64
#: Characters of one cell or line a preview holds; a longer text ends with "…".
MAX_CELL_CHARS = 400
#: Bytes of a jsonl file read for its lines.
_MAX_LINE_BYTES = 16 * MEGABYTE


def _cut(text: str) -> str:
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def preview_document(upload: Upload, sheet: str | None = None) -> dict[str, object]:
    """The preview of one received upload: ``kind`` ``table`` (``sheet``, ``columns``, ``rows`` of
    ``{"row", "cells"}``), ``lines`` (``rows`` of ``{"line", "text"}``) or None with the ``reason``; ``total``
    the rows or lines the file has (``rows`` holds at most :data:`MAX_ROWS` of them)."""
    from formatkit.errors import UnreadablePathError
    from formatkit.files import sheet_rows

    document: dict[str, object] = {
        "file": upload.name,
        "kind": None,
        "sheet": None,
        "columns": [],
        "rows": [],
        "total": 0,
    }
    if upload.path.suffix.lower() == ".jsonl":
        return {**document, **_lines(upload.path)}
    try:
        read = sheet_rows(upload.path, sheet=sheet, limit=MAX_ROWS)
    except UnreadablePathError as exc:
        reason = str(exc).replace(f"{upload.path.parent}/", "")
        return {**document, "reason": reason}
    width = min(len(read.columns), MAX_COLUMNS)
    return {
        **document,
        "kind": "table",
        "sheet": read.sheet,
        "columns": read.columns[:width],
        "rows": [{"row": number, "cells": [_cut(cell) for cell in cells[:width]]} for number, cells in read.rows],
        "total": read.total,
        "cut_columns": len(read.columns) - width,
    }


def _lines(path: Path) -> dict[str, object]:
    with path.open("rb") as handle:
        data = handle.read(_MAX_LINE_BYTES)
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    rows = [{"line": i + 1, "text": _cut(line.removesuffix("\r"))} for i, line in enumerate(lines[:MAX_ROWS])]
    return {"kind": "lines", "rows": rows, "total": len(lines)}


def add_preview(app: FastAPI) -> None:
    """Add ``POST /v1/preview`` to an application :func:`formatkit.serve.create_app` made (its settings, gate
    and upload folder are the application's own)."""
    settings: Settings = app.state.settings
    gate: Gate = app.state.gate
    root: Path = app.state.upload_dir

    def language(request: Request) -> str:
        # the ``lang`` query, else the first language of Accept-Language with a catalogue, else the server's
        asked = [request.query_params.get("lang") or ""]
        asked += [item.split(";")[0].strip() for item in request.headers.get("accept-language", "").split(",")]
        return next((found for found in map(resolve_lang, asked) if found), settings.lang)

    def refusal(
        request: Request, status: int, reason: str, headers: dict[str, str] | None = None, **params: Any
    ) -> Response:
        lang = language(request)
        body = {"error": {"code": reason, "message": ui(f"serve.{reason}", lang, **params)}}
        return JSONResponse(body, status_code=status, headers=headers)

    @app.post(
        "/v1/preview",
        summary="The rows of one file as the platform reads them (read-only)",
        description=(
            "One part named `file`. Answers 200 with `kind` `table` (the sheet validate reads: `sheet`, `columns` as "
            "letters, `rows` of `{row, cells}`, each cell the text a record gets from it), `lines` (a jsonl file: "
            "`rows` of `{line, text}`), or null with `reason` when the file cannot be read; `total` counts the "
            f"rows or lines, of which at most {MAX_ROWS} are given, each cut at {MAX_CELL_CHARS} characters."
        ),
        tags=["checks"],
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "multipart/form-data": {
                        "schema": {
                            "type": "object",
                            "required": ["file"],
                            "properties": {"file": {"type": "string", "format": "binary"}},
                        }
                    }
                },
            }
        },
        response_class=JSONResponse,
    )
    async def preview(
        request: Request,
        sheet: str | None = Query(None, description="The sheet of a workbook to read, not the first."),
        lang: str | None = Query(None, description="en or zh: the language of a refusal."),
    ) -> Response:
        if settings.token is not None:
            scheme, _, given = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                given.strip().encode("utf-8"), settings.token.encode("utf-8")
            ):
                return refusal(request, 401, "unauthorized", {"WWW-Authenticate": "Bearer"})
        folder = Path(tempfile.mkdtemp(prefix="upload-", dir=root))
        try:
            uploads = await receive_files(request, folder, max_mb=settings.max_upload_mb, max_files=1)
            try:
                document = await gate.run(lambda: preview_document(uploads[0], sheet))
            except Busy:
                retry = str(settings.retry_after)
                return refusal(request, 503, "busy", {"Retry-After": retry}, slots=settings.checks, retry=retry)
            except TimedOut:
                return refusal(request, 503, "time_limit", seconds=f"{settings.time_limit:g}")
            except Exception as exc:  # a defect, not bad input: said without its text, which may quote a cell
                _LOG.error(
                    "a preview failed: %s (its message is not logged: it may quote the upload)", type(exc).__name__
                )
                return refusal(request, 500, "internal")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return JSONResponse(document)
