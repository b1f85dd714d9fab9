"""The application: its routes, on formatkit's public API as the command line is.

``/v1/validate`` answers the document ``formatkit validate --json`` prints
(:meth:`formatkit._cli_support.Checked.document`,
the one function both use), ``/v1/fix`` the one ``fix --json`` prints (:meth:`formatkit.FixResult.document`)
with the repaired copy in it, ``/v1/convert`` the canonical jsonl. Uploads are read by
:mod:`formatkit.serve._uploads` into a private folder, checked by :mod:`formatkit.serve._gate` in a worker
thread, and the folder is removed when the answer is made, whatever happened. The files' places on the
server are replaced by their upload names in every answer: a report names a file as it was uploaded.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import hmac
import json
import logging
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field
from starlette.requests import ClientDisconnect

from formatkit import __version__
from formatkit.messages import languages, resolve_lang, ui
from formatkit.serve._gate import Busy, Gate, TimedOut
from formatkit.serve._settings import Settings
from formatkit.serve._uploads import Upload, UploadRefused, receive_files

__all__ = ["create_app"]

_LOG = logging.getLogger("formatkit.serve")

ModeQuery = Literal["infer-eval", "infer-only", "scored"]
ProfileQuery = Literal["platform", "none"]

#: Where the upload page is, when it is there (the page's own file; a placeholder otherwise).
PAGE = "page.html"

#: Media types of the repaired copies fix writes, by extension.
_MEDIA_TYPES = {
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".jsonl": "application/x-ndjson",
    ".csv": "text/csv",
}
#: A folder whose path JSON writes as it is (no quote, backslash or control character): the upload names
#: replace it in the JSON text of an answer.
_PLAIN_PATH = re.compile(r'^[^"\\\x00-\x1f\x7f]+$')


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable: `unauthorized`, `upload_too_large`, `too_many_files`, `busy`, ...")
    message: str = Field(description="What happened and what to do, in the request's language.")


class ErrorBody(BaseModel):
    """Every refusal of the API: a stable `code` and a `message` in the request's language."""

    error: ErrorDetail


class Rule(BaseModel):
    code: str = Field(description="The issue code, as reports name it.")
    severity: str = Field(description="`error` (the file fails) or `warning`.")
    summary: dict[str, str] = Field(description="Its one-line summary in each language, by language code.")


class Rules(BaseModel):
    """The rule catalogue, in the order of the code table (docs: Rules and issue codes)."""

    rules: list[Rule]


class RepairedCopy(BaseModel):
    filename: str
    media_type: str
    size: int
    base64: str


class _Refused(Exception):
    def __init__(self, status: int, reason: str, headers: dict[str, str] | None = None, **params: object) -> None:
        super().__init__(reason)
        self.status, self.reason, self.headers, self.params = status, reason, headers, params


_FILES_BODY: dict[str, object] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {
                            "type": "array",
                            "items": {"type": "string", "format": "binary"},
                            "description": "The files, one part each; a part's filename names its file in the answer.",
                        }
                    },
                }
            }
        },
    }
}
_ONE_FILE_BODY: dict[str, object] = json.loads(json.dumps(_FILES_BODY))
_ONE_FILE_BODY["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]["file"] = {  # type: ignore[index]
    "type": "string",
    "format": "binary",
    "description": "The file to repair; its filename names it in the answer.",
}


def _errors(*statuses: int) -> dict[int | str, dict[str, object]]:
    words = {
        400: "Not a multipart upload of files, a malformed one, or a query value the API does not take.",
        401: "The server asks for a token (--token-env) and the request has no `Authorization: Bearer` with it.",
        413: "The upload is larger than --max-upload-mb, or holds more files than the route takes (--max-files).",
        500: "A defect of formatkit met this upload (the log names the exception, never the upload's content).",
        422: "A file validate reads that fix could not repair (`fix_refused`, `cannot_repair`): no copy.",
        503: "Every check slot stayed taken (Retry-After says when to retry), or the check ran past the time limit.",
    }
    return {status: {"model": ErrorBody, "description": words[status]} for status in statuses}


def pick_lang(request: Request, default: str) -> str:
    """The answer's language: the ``lang`` query, else the first language of ``Accept-Language`` (by its
    weights) that has a catalogue, else ``default``."""
    asked = resolve_lang(request.query_params.get("lang"))
    if asked:
        return asked
    weighted: list[tuple[float, int, str]] = []
    for index, item in enumerate(request.headers.get("accept-language", "").split(",")):
        tag, _, params = item.strip().partition(";")
        weight = 1.0
        match = re.search(r"q=([0-9.]+)", params)
        if match:
            with contextlib.suppress(ValueError):
                weight = float(match.group(1))
        lang = resolve_lang(tag.strip()) if tag.strip() != "*" else None
        if lang and weight > 0:
            weighted.append((-weight, index, lang))
    return min(weighted)[2] if weighted else default


def create_app(settings: Settings | None = None) -> FastAPI:
    """The ASGI application of ``formatkit serve`` with these settings (None: from ``FORMATKIT_SERVE_*``,
    :meth:`Settings.from_env`)."""
    settings = settings if settings is not None else Settings.from_env()
    if settings.lang not in languages():
        raise ValueError(f"lang {settings.lang!r}: not one of {', '.join(languages())}")
    ctx = _Context(
        settings, _upload_root(settings.upload_dir), Gate(settings.checks, settings.queue_wait, settings.time_limit)
    )
    app = FastAPI(
        title="formatkit",
        version=__version__,
        summary="Pre-flight checks of evaluation sets (Excel, CSV, jsonl): every problem at its cell, in en or zh.",
        docs_url=None,  # Swagger UI and ReDoc load scripts from a CDN: the machines that use this are often offline
        redoc_url=None,
        openapi_url="/openapi.json",
        lifespan=ctx.lifespan,
    )
    app.state.settings = settings
    app.state.gate = ctx.gate
    app.state.upload_dir = ctx.root
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
        )
    _add_error_handlers(app, settings.lang)
    _add_service_routes(app)
    _add_check_routes(app, ctx)
    _add_reference_routes(app, ctx)
    from formatkit.serve._preview import add_preview

    add_preview(app)  # POST /v1/preview: the rows as the platform reads them, for the page
    return app


_BEARER = HTTPBearer(auto_error=False, description="The token of `formatkit serve --token-env VAR`, if it asks.")


@dataclass(frozen=True)
class _Context:
    """What the routes share: the settings, the folder uploads are kept in, and the gate checks pass."""

    settings: Settings
    root: Path
    gate: Gate

    def authorized(self, credentials: HTTPAuthorizationCredentials | None = Depends(_BEARER)) -> None:
        """The dependency of every route that asks for the token (when the server has one)."""
        token = self.settings.token
        if token is None:
            return
        given = credentials.credentials.encode("utf-8") if credentials is not None else b""
        if not hmac.compare_digest(given, token.encode("utf-8")):
            raise _Refused(401, "unauthorized", {"WWW-Authenticate": "Bearer"})

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: FastAPI) -> AsyncIterator[None]:
        yield
        self.gate.close()
        if self.settings.upload_dir is None:  # a folder of its own: gone with the server (a worker skips atexit)
            shutil.rmtree(self.root, ignore_errors=True)

    @contextlib.asynccontextmanager
    async def received(self, request: Request, *, most: int | None = None) -> AsyncIterator[list[Upload]]:
        """The files of ``request``, read into a folder of their own that is removed afterwards."""
        folder = Path(tempfile.mkdtemp(prefix="upload-", dir=self.root))
        try:
            uploads = await receive_files(
                request,
                folder,
                max_mb=self.settings.max_upload_mb,
                max_files=self.settings.max_files if most is None else most,
            )
            yield uploads
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    async def checked(self, work: Callable[[], Any]) -> Any:
        """What ``work`` returns, run through the gate; its failures as the refusals the API answers."""
        settings = self.settings
        try:
            return await self.gate.run(work)
        except Busy:
            retry = str(settings.retry_after)
            raise _Refused(503, "busy", {"Retry-After": retry}, slots=settings.checks, retry=retry) from None
        except TimedOut:
            raise _Refused(503, "time_limit", seconds=f"{settings.time_limit:g}") from None
        except _Refused:
            raise
        except Exception as exc:  # a defect, not bad input: said without its text, which may quote a cell
            _LOG.error("a check failed: %s (its message is not logged: it may quote the upload)", type(exc).__name__)
            raise _Refused(500, "internal") from None


def _refusal(
    request: Request, default_lang: str, status: int, reason: str, headers: dict[str, str] | None, params: Any
) -> Response:
    lang = pick_lang(request, default_lang)
    body = {"error": {"code": reason, "message": ui(f"serve.{reason}", lang, **params)}}
    return JSONResponse(body, status_code=status, headers=headers)


def _add_error_handlers(app: FastAPI, default_lang: str) -> None:
    """Every refusal answered as an :class:`ErrorBody` in the request's language (``default_lang`` else)."""

    @app.exception_handler(_Refused)
    async def _refused(request: Request, exc: _Refused) -> Response:
        return _refusal(request, default_lang, exc.status, exc.reason, exc.headers, exc.params)

    @app.exception_handler(UploadRefused)
    async def _upload_refused(request: Request, exc: UploadRefused) -> Response:
        # read no further: the connection is closed after this answer rather than drained
        return _refusal(request, default_lang, exc.status, exc.reason, {"Connection": "close"}, exc.params)

    @app.exception_handler(RequestValidationError)
    async def _bad_query(request: Request, exc: RequestValidationError) -> Response:
        where = next((e.get("loc", ()) for e in exc.errors()), ())
        name = str(where[-1]) if where else "?"
        return _refusal(request, default_lang, 400, "bad_query", None, {"name": name})

    @app.exception_handler(ClientDisconnect)
    async def _gone(request: Request, exc: ClientDisconnect) -> Response:
        return Response(status_code=400)  # nobody is there to read it; the folder is already removed


def _add_service_routes(app: FastAPI) -> None:
    """``/healthz`` and the upload page at ``/``."""

    @app.get("/healthz", summary="The service is up", tags=["service"])
    def healthz() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @app.get("/", include_in_schema=False)
    def page() -> HTMLResponse:
        return HTMLResponse(_page(), headers={"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"})


def _add_check_routes(app: FastAPI, ctx: _Context) -> None:
    """``/v1/validate``, ``/v1/fix`` and ``/v1/convert``."""
    _add_validate(app, ctx)
    _add_fix(app, ctx)
    _add_convert(app, ctx)


def _add_validate(app: FastAPI, ctx: _Context) -> None:
    @app.post(
        "/v1/validate",
        summary="Check files: the document `formatkit validate --json` prints",
        description=(
            "One or more parts named `file`. Answers 200 with the report `formatkit validate --json` prints for the "
            "same files, valid or not, each file named by its upload filename."
        ),
        tags=["checks"],
        dependencies=[Depends(ctx.authorized)],
        openapi_extra=_FILES_BODY,
        responses={
            200: {"description": "The validate report.", "model": _report_model()},
            **_errors(400, 401, 413, 500, 503),
        },
        response_class=Response,
    )
    async def validate(
        request: Request,
        mode: ModeQuery = Query("infer-eval", description="What the files are for (validate --mode)."),
        profile: ProfileQuery = Query("platform", description="Upload limits: the platform's 10 files, 1,000 rows."),
        sheet: str | None = Query(None, description="The sheet of each workbook to read, not the first."),
        lang: str | None = Query(None, description="en or zh (else Accept-Language, else the server's --lang)."),
    ) -> Response:
        language = pick_lang(request, ctx.settings.lang)
        async with ctx.received(request) as uploads:
            paths = [upload.path for upload in uploads]

            def work() -> str:
                from formatkit._cli_support import check_files

                outcome = check_files(paths, mode=mode, profile=profile, sheet=sheet)
                return _relabelled(outcome.document(language), uploads)

            document = await ctx.checked(work)
        return Response(document, media_type="application/json")


def _add_fix(app: FastAPI, ctx: _Context) -> None:
    @app.post(
        "/v1/fix",
        summary="Repair a file: its repaired copy and the changes, as `formatkit fix --json` gives them",
        description=(
            "One part named `file`. Answers 200 with one JSON document: the fields `formatkit fix --json` prints "
            "(`source`, `output`, `changes`, `notes`, `report` of the copy, `valid`, ...) and `copy`, the repaired "
            "file itself (`filename`, `media_type`, `size`, `base64`), or null when nothing was written (a file "
            "no repair can read: `readable` is false and `report` is its own)."
        ),
        tags=["checks"],
        dependencies=[Depends(ctx.authorized)],
        openapi_extra=_ONE_FILE_BODY,
        responses={
            200: {"description": "The changes, the copy's report and the copy."},
            **_errors(400, 401, 413, 422, 500, 503),
        },
        response_class=Response,
    )
    async def fix(
        request: Request,
        mode: ModeQuery = Query("infer-eval", description="What the file is for (fix --mode)."),
        profile: ProfileQuery = Query("platform", description="Upload limits to validate the copy with."),
        lang: str | None = Query(None, description="en or zh (else Accept-Language, else the server's --lang)."),
    ) -> Response:
        language = pick_lang(request, ctx.settings.lang)
        async with ctx.received(request, most=1) as uploads:
            [upload] = uploads

            def work() -> str:
                return _fixed(upload, mode, profile, language)

            document = await ctx.checked(work)
        return Response(document, media_type="application/json")


def _add_convert(app: FastAPI, ctx: _Context) -> None:
    @app.post(
        "/v1/convert",
        summary="Convert files to canonical jsonl, all or nothing",
        description=(
            "One or more parts named `file`. Answers the canonical jsonl of all of them "
            "(`application/x-ndjson`) when every file is valid, else 422 with the validate document; nothing partial."
        ),
        tags=["checks"],
        dependencies=[Depends(ctx.authorized)],
        openapi_extra=_FILES_BODY,
        responses={
            200: {"description": "The records, one JSON object a line.", "content": {"application/x-ndjson": {}}},
            422: {"description": "The files have errors: the validate document.", "model": _report_model()},
            **_errors(400, 401, 413, 500, 503),
        },
        response_class=Response,
    )
    async def convert(
        request: Request,
        mode: ModeQuery = Query("infer-eval", description="What the files are for (convert --mode)."),
        profile: ProfileQuery = Query("platform", description="Upload limits: the platform's 10 files, 1,000 rows."),
        sheet: str | None = Query(None, description="The sheet of each workbook to read, not the first."),
        meta: bool = Query(True, description="Keep each record's meta (its source place, dataset)."),
        lang: str | None = Query(None, description="en or zh (else Accept-Language, else the server's --lang)."),
    ) -> Response:
        language = pick_lang(request, ctx.settings.lang)
        async with ctx.received(request) as uploads:
            output = uploads[0].path.parent.parent / "converted.jsonl"

            def work() -> tuple[bool, bytes]:
                from formatkit._cli_support import run_conversion

                outcome = run_conversion(
                    [u.path for u in uploads], output, mode=mode, profile=profile, meta=meta, sheet=sheet
                )
                if not outcome.valid:
                    return False, _relabelled(outcome.document(language), uploads).encode("utf-8")
                return True, _relabelled_bytes(output.read_bytes(), uploads)

            valid, body = await ctx.checked(work)
        if not valid:
            return Response(body, status_code=422, media_type="application/json")
        return Response(body, media_type="application/x-ndjson")


def _add_reference_routes(app: FastAPI, ctx: _Context) -> None:
    """``/v1/rules``, and the ``/openapi.json`` this API documents itself with."""

    @app.get(
        "/v1/rules",
        summary="The rule catalogue: every issue code, its severity and summary in each language",
        tags=["reference"],
        dependencies=[Depends(ctx.authorized)],
        responses=_errors(401),
    )
    def rules() -> Rules:
        from formatkit import CODES
        from formatkit.messages import Msg

        return Rules(
            rules=[
                Rule(
                    code=code,
                    severity=severity,
                    summary={lang: Msg(f"summary.{code}").render(lang) for lang in languages()},
                )
                for code, (severity, _summary) in CODES.items()
            ]
        )

    def openapi() -> dict[str, Any]:
        # FastAPI documents a 422 "Validation Error" for every route with parameters; this API answers a bad
        # query with 400 and its own error body, and 422 only where it says so (convert, fix)
        if app.openapi_schema is None:
            schema = FastAPI.openapi(app)
            for operations in schema["paths"].values():
                for operation in operations.values():
                    responses = operation.get("responses", {})
                    if responses.get("422", {}).get("description") == "Validation Error":
                        del responses["422"]
            for name in ("HTTPValidationError", "ValidationError"):
                schema.get("components", {}).get("schemas", {}).pop(name, None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _report_model() -> Any:
    from formatkit import Report

    return Report


def _upload_root(configured: str | None) -> Path:
    """The private folder uploads are kept in (mode 0700): the one given, else a new temporary one."""
    if configured:
        root = Path(configured)
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        root.chmod(0o700)
    else:
        root = Path(tempfile.mkdtemp(prefix="formatkit-serve-"))
        atexit.register(shutil.rmtree, root, True)
    root = root.resolve()
    if not _PLAIN_PATH.match(str(root)):
        raise ValueError(f"{root}: the upload folder's path must hold no quote, backslash or control character")
    return root


def _relabelled(text: str, uploads: list[Upload]) -> str:
    """``text`` with each upload's folder on the server taken out of its paths: the upload's name is left."""
    for upload in uploads:
        text = text.replace(f"{upload.path.parent}/", "")
    return text


def _relabelled_bytes(data: bytes, uploads: list[Upload]) -> bytes:
    for upload in uploads:
        data = data.replace(f"{upload.path.parent}/".encode(), b"")
    return data


def _fixed(upload: Upload, mode: ModeQuery, profile: ProfileQuery, lang: str) -> str:
    """What /v1/fix answers for one upload: fix's document, relabelled, with the copy in it."""
    from formatkit import fix_file
    from formatkit.errors import RepairError, RepairRefusedError
    from formatkit.files import fixed_suffix

    suffix = fixed_suffix(upload.path)
    stem = upload.name[: -len(upload.path.suffix)] if upload.path.suffix else upload.name
    output = upload.path.parent / f"{stem}.fixed{suffix}"
    try:
        result = fix_file(upload.path, output, mode=mode, profile=profile)
    except RepairRefusedError as exc:
        why = _relabelled(exc.why.render(lang), [upload])
        raise _Refused(422, "fix_refused", source=upload.name, why=why) from None
    except RepairError as exc:
        raise _Refused(422, "cannot_repair", source=upload.name, error=_relabelled(str(exc), [upload])) from None
    document = json.loads(_relabelled(json.dumps(result.document(lang), ensure_ascii=False), [upload]))
    document["copy"] = None
    if result.written:
        data = output.read_bytes()
        document["copy"] = RepairedCopy(
            filename=output.name,
            media_type=_MEDIA_TYPES.get(suffix, "application/octet-stream"),
            size=len(data),
            base64=base64.b64encode(data).decode("ascii"),
        ).model_dump()
    return json.dumps(document, ensure_ascii=False, indent=2)


def _page() -> str:
    page = resources.files("formatkit.serve").joinpath(PAGE)
    if page.is_file():
        return page.read_text(encoding="utf-8")
    return (
        '<!doctype html><html lang="en"><meta charset="utf-8"><title>formatkit</title>'
        "<p>formatkit serve: the upload page is not installed; the API is at <code>/v1/</code> "
        '(<a href="/openapi.json">/openapi.json</a>).</p></html>'
    )
