"""CONTRIBUTING.md's recipes as the tests read them: the Python blocks of one section."""

from __future__ import annotations

import re
from pathlib import Path

CONTRIBUTING = Path(__file__).parents[1] / "CONTRIBUTING.md"


def recipe_blocks(section: str) -> dict[str, str]:
    """The Python blocks of a CONTRIBUTING.md section, by their first line (``# scoring/_metrics/f1.py``)."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", body, re.DOTALL)
    return {block.splitlines()[0].lstrip("# ").strip(): block for block in blocks}
