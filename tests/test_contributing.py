"""CONTRIBUTING.md as a newcomer follows it: every file its recipes name exists (a name with a ``<placeholder>``
is one the newcomer writes), and the code it gives to copy passes the project's own checks as written."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_every_file_it_names_exists() -> None:
    named = set(re.findall(r"`((?:formatkit|scoring|tests|benchmarks)/[^`\s<>]+\.(?:py|txt|md))`", TEXT))
    assert {"scoring/_metrics/registry.py", "tests/metrics/test_metric_recipe.py"} <= named
    assert sorted(path for path in named if not (ROOT / path).is_file()) == []


def test_its_code_fits_the_line_length_ruff_checks() -> None:
    [limit] = map(int, re.findall(r"^line-length = (\d+)$", (ROOT / "pyproject.toml").read_text(), re.MULTILINE))
    blocks = re.findall(r"```python\n(.*?)```", TEXT, re.DOTALL)
    assert len(blocks) >= 4
    long = [line for block in blocks for line in block.splitlines() if len(line) > limit]
    assert long == []
