"""The exported names stay what they are whatever has been imported before: a submodule named like an
exported function (``formatkit/convert.py`` next to ``formatkit.convert``) replaces the lazy export with
the module as soon as anything imports it, and ``from formatkit import convert`` then gets a module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

_PROGRAM = """
import importlib, pkgutil, types, sys
package = importlib.import_module(sys.argv[1])
for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
    importlib.import_module(info.name)
shadowed = [name for name in package.__all__ if isinstance(getattr(package, name), types.ModuleType)]
print(shadowed)
"""


@pytest.mark.parametrize("package", ["formatkit", "scoring"])
def test_no_export_is_shadowed_by_a_submodule(package: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _PROGRAM, package], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == "[]", result.stderr


def test_convert_is_the_function_after_the_cli_converted(tmp_path: Path) -> None:
    seed = Path(__file__).parent.parent / "fixtures" / "seed" / "seed_jsonl_single_turn.jsonl"
    program = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from formatkit.cli import app\n"
        "result = CliRunner().invoke(app, ['convert', sys.argv[1], '-o', sys.argv[2]])\n"
        "assert result.exit_code == 0, result.output\n"
        "from formatkit import convert\n"
        "print(type(convert).__name__)\n"
    )
    args = [sys.executable, "-c", program, str(seed), str(tmp_path / "out.jsonl")]
    result = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.strip() == "function"
