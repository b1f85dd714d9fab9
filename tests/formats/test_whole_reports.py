"""Every invalid fixture's complete report, pinned: each (severity, code, place) it yields, no more.

The per-rule tests check that a rule fires at its place; this one fails when a rule also emits a spurious
extra issue, or a fixture stops showing one. The expected lists live in ``whole_reports.json``; after a deliberate
change, regenerate it with ``FORMATKIT_UPDATE_REPORTS=1 python -m pytest tests/formats/test_whole_reports.py``
and read the diff before committing it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from test_excel_rules import CASES as EXCEL_CASES
from test_jsonl_rules import CASES as JSONL_CASES

from formatkit import validate_files

FIXTURES = Path(__file__).parents[2] / "fixtures"
EXPECTED = Path(__file__).with_name("whole_reports.json")
FIELDS = ("severity", "code", "sheet", "row", "column", "line", "field")

#: Every (fixture, mode) the rule tests use, once.
RUNS = sorted({(fixture, mode) for fixture, mode, _code, _place in [*EXCEL_CASES, *JSONL_CASES]})


def _report(fixture: str, mode: str) -> list[list[Any]]:
    report = validate_files([FIXTURES / fixture], mode=mode, profile="platform")  # type: ignore[arg-type]
    return report.flatten(FIELDS)


def _expected() -> dict[str, list[list[Any]]]:
    if os.environ.get("FORMATKIT_UPDATE_REPORTS"):
        data = {f"{fixture} [{mode}]": _report(fixture, mode) for fixture, mode in RUNS}
        EXPECTED.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    loaded: dict[str, list[list[Any]]] = json.loads(EXPECTED.read_text(encoding="utf-8"))
    return loaded


_EXPECTED = _expected()


@pytest.mark.parametrize(("fixture", "mode"), RUNS, ids=[f"{f}[{m}]" for f, m in RUNS])
def test_the_whole_report_is_exactly_the_expected_issues(fixture: str, mode: str) -> None:
    assert _report(fixture, mode) == _EXPECTED[f"{fixture} [{mode}]"]


def test_every_run_is_pinned() -> None:
    assert sorted(_EXPECTED) == sorted(f"{fixture} [{mode}]" for fixture, mode in RUNS)
