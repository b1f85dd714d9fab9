"""``POST /v1/validate`` answers the document ``formatkit validate --json`` prints, for every file of the fixtures
validate reads; ``/v1/fix`` the one ``fix --json`` prints; ``/v1/convert`` the jsonl ``convert`` writes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from serving import FIXTURES, assert_empty, call, served, upload
from typer.testing import CliRunner

from formatkit.cli import app as cli

READ = (".xlsx", ".xls", ".jsonl", ".csv")
FILES = sorted(p for p in FIXTURES.rglob("*") if p.suffix.lower() in READ and p.is_file())


def cli_json(monkeypatch: pytest.MonkeyPatch, *args: str, folder: Path) -> dict[str, object]:
    """What the command line prints with --json, run from ``folder`` so files are named by their names."""
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code in (0, 1), result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_every_fixture_validate_reads_is_counted() -> None:
    assert len(FILES) > 150
    assert {p.suffix.lower() for p in FILES} == set(READ)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    """One application for the many files (its folder is checked empty after each answer)."""
    with served(tmp_path_factory.mktemp("serve")) as app:
        yield app


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_validate_answers_the_document_validate_json_prints(
    path: Path, shared: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = cli_json(monkeypatch, "validate", path.name, "--json", "--lang", "zh", folder=path.parent)
    answer = call(shared, "POST", "/v1/validate", params={"lang": "zh"}, files=upload(path))
    assert_empty(Path(shared.state.upload_dir))
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == expected
