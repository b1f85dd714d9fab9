"""The CLI is a client of the two public faces (and of the support faces, what only a command line needs),
and scoring of formatkit's public face and _core (#26, item 4; #36, item 4).

Counted as ``python benchmarks/code_figures.py`` counts them (``ast``, every import in the source); the
import-linter contracts in pyproject.toml enforce the same in CI.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parent.parent.parent


def _figures() -> Any:
    spec = importlib.util.spec_from_file_location("code_figures", ROOT / "benchmarks" / "code_figures.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules.get("code_figures")
    if module is None:  # registered first: its dataclasses look their module up while it runs
        module = sys.modules["code_figures"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


def test_the_cli_imports_no_private_module_of_scoring() -> None:
    """None but the support face, what only a command line needs (``scoring._cli_support``)."""
    found = _figures().private_imports("formatkit/cli", "scoring")
    assert list(found) == ["scoring._cli_support"]


def test_the_cli_imports_no_private_module_of_formatkit() -> None:
    """None but the support face, what only a command line needs (``formatkit._cli_support``)."""
    found = _figures().private_imports("formatkit/cli", "formatkit")
    assert list(found) == ["formatkit._cli_support"]


def test_scoring_imports_only_formatkits_bottom_layer() -> None:
    found = _figures().private_imports("scoring", "formatkit")
    assert found, "the figure counts scoring's imports of formatkit._core"
    assert sorted(m for m in found if not m.startswith(("formatkit._core.", "formatkit._lazy"))) == []


def test_the_fast_path_still_imports_neither_typer_pydantic_nor_scoring(tmp_path: Path) -> None:
    """The table of failures is built on first need: an ordinary convert loads none of it."""
    seed = ROOT / "fixtures" / "seed" / "seed_jsonl_single_turn.jsonl"
    program = (
        "import sys\n"
        "from formatkit.cli import main\n"
        f"sys.argv = ['formatkit', 'convert', {str(seed)!r}, '-o', {str(tmp_path / 'out.jsonl')!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        "print(code, sorted(m for m in ('typer', 'pydantic', 'scoring') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.split("\n")[-2] == "0 []", result.stdout + result.stderr
