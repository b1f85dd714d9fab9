"""``formatkit serve``: the pre-flight check as an HTTP service, an ASGI application (FastAPI) for uvicorn.

:func:`create_app` makes the application from :class:`Settings`; ``app`` is one made from the environment
(``FORMATKIT_SERVE_*``, :meth:`Settings.from_env`), for ``uvicorn formatkit.serve:app`` or any ASGI server.
``formatkit serve`` runs it under uvicorn and checks the address it binds to against the token rules.

The API (``/openapi.json`` describes it): ``GET /healthz``; ``POST /v1/validate`` (the document
``formatkit validate --json`` prints), ``/v1/fix`` (``fix --json``'s document with the repaired copy),
``/v1/convert`` (canonical jsonl, or 422 with the validate document); ``GET /v1/rules``; the upload page at
``/``. This package sits on formatkit's public API, like the command line; nothing else imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from formatkit.serve._app import create_app
from formatkit.serve._settings import Settings

__all__ = ["Settings", "app", "create_app"]

_app: Any = None


def __getattr__(name: str) -> Any:
    # ``app`` is made on first use, so importing create_app reads no environment and makes no folder
    global _app
    if name == "app":
        if _app is None:
            _app = create_app(Settings.from_env())
        return _app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    from fastapi import FastAPI

    app: FastAPI
