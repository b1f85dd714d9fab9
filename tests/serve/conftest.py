"""Shared by the API tests: an application on a private upload folder, called through httpx's ASGI transport,
and the rule every test is held to: the upload folder is empty once the answers are given."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from formatkit.serve import Settings, create_app

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


@pytest.fixture
def upload_dir(tmp_path: Path) -> Iterator[Path]:
    """The folder the application keeps uploads in; empty after every test (every response)."""
    folder = tmp_path / "uploads"
    yield folder
    assert folder.is_dir()
    assert list(folder.iterdir()) == []


@pytest.fixture
def make_app(upload_dir: Path) -> Callable[..., FastAPI]:
    def make(**settings: Any) -> FastAPI:
        return create_app(Settings(upload_dir=str(upload_dir), **settings))

    return make


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
