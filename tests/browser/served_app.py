"""The application the browser tests serve: ``formatkit.serve``'s, from ``FORMATKIT_SERVE_*`` as ``formatkit
serve`` hands it to uvicorn, with ``POST /v1/preview`` (:mod:`formatkit.serve._preview`) added when the
application does not have it yet. Run as ``uvicorn --factory served_app:make_app``."""

from __future__ import annotations

from fastapi import FastAPI

from formatkit.serve import Settings, create_app
from formatkit.serve._preview import add_preview


def make_app() -> FastAPI:
    app = create_app(Settings.from_env())
    if not any(getattr(route, "path", None) == "/v1/preview" for route in app.routes):
        add_preview(app)
    return app
