"""Shared by the tests of ``formatkit serve`` (tests/serve/): an application on a private upload folder, called
through httpx's ASGI transport, and the rule every test is held to: the upload folder is empty once the answers
are given."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from formatkit.serve import Settings, create_app

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"


@contextlib.contextmanager
def served(tmp_path: Path, **settings: Any) -> Iterator[FastAPI]:
    """An application keeping its uploads in ``tmp_path/uploads``, which must be empty when the block ends."""
    folder = tmp_path / "uploads"
    app = create_app(Settings(upload_dir=str(folder), **settings))
    yield app
    assert_empty(folder)


def assert_empty(folder: Path) -> None:
    assert folder.is_dir()
    assert sorted(folder.rglob("*")) == []


def call(app: FastAPI, method: str, url: str, **kwargs: Any) -> httpx.Response:
    """One request to ``app`` through httpx's ASGI transport."""

    async def go() -> httpx.Response:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://formatkit.test"
        ) as client:
            return await client.request(method, url, **kwargs)

    return asyncio.run(go())


def upload(*paths: Path, name: str | None = None) -> list[tuple[str, tuple[str, bytes]]]:
    """The multipart ``files=`` of these files, each named by its own name (or ``name``)."""
    return [("file", (name or path.name, path.read_bytes())) for path in paths]
