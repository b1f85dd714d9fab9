"""The public API: every exported name resolves, and the command line starts without heavy imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

import formatkit


@pytest.mark.parametrize("name", formatkit.__all__)
def test_every_export_resolves(name: str) -> None:
    assert getattr(formatkit, name) is not None


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = formatkit.no_such_name  # type: ignore[attr-defined]


def test_cli_start_up_does_not_import_heavy_libraries() -> None:
    """`formatkit validate` must start fast: pandas, httpx, sympy and openpyxl load only where needed."""
    code = (
        "import sys; from formatkit.cli import app; "
        "print(','.join(m for m in ('pandas', 'httpx', 'sympy', 'openpyxl', 'numpy') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == ""


def test_scoring_exports_the_runner_lazily() -> None:
    """`import scoring` stays light for the rule metrics; the runner API loads httpx when first asked for."""
    program = (
        "import sys, scoring\n"
        "before = 'httpx' in sys.modules\n"
        "from scoring import ChatClient, Runner, RunJob\n"
        "print(before, 'httpx' in sys.modules, Runner.__module__, ChatClient.__module__, RunJob.__module__)"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.split() == [
        "False",
        "True",
        "scoring._runner.runner",
        "scoring._client.http",
        "scoring._runner.job",
    ]
