"""The scoring API: every export resolves, sympy loads only in the worker, formatkit does not import scoring."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import scoring
from formatkit import RecordDict

ROOT = Path(__file__).parent.parent


@pytest.mark.parametrize("name", scoring.__all__)
def test_every_export_resolves(name: str) -> None:
    assert getattr(scoring, name) is not None


def test_importing_scoring_does_not_load_sympy() -> None:
    code = (
        "import sys, scoring; from scoring._metrics.math import math_equal; math_equal('1/2', '0.5'); "
        "print('sympy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"


def test_formatkit_core_never_imports_scoring() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "formatkit").rglob("*.py")
        if "cli" not in path.relative_to(ROOT / "formatkit").parts
        and re.search(r"^\s*(?:from|import)\s+scoring\b", path.read_text(encoding="utf-8"), re.MULTILINE)
    ]
    assert offenders == []


def test_score_and_aggregate_without_the_cli() -> None:
    record: RecordDict = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "Q\nA) 1\nB) 2"},
            {"role": "assistant", "reference_response": "B", "responses": [{"content": "ANSWER: B"}]},
        ],
        "meta": {"dataset": "demo"},
    }
    outcome = scoring.score_records([record])
    assert outcome.summary()["overall"] == 100.0
    assert scoring.aggregate(outcome.records).overall == 100.0
