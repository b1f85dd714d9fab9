"""CONTRIBUTING.md's recipes as the tests read them: the Python blocks of one section, and a tree with a
section's blocks written into it, as a newcomer following the recipe would write them.

A block's first line says where it goes: ``# scoring/_metrics/f1.py`` is that file, written whole;
``# scoring/_metrics/registry.py, in METRICS`` is an entry added at the end of the table ``METRICS`` of that
file (the block's other lines, as they are written, before the table's closing bracket).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

CONTRIBUTING = Path(__file__).parents[1] / "CONTRIBUTING.md"

_WHERE = re.compile(r"(?P<path>[\w./-]+\.py)(?:, in (?P<table>\w+))?")


def recipe_sections(text: str | None = None) -> list[str]:
    """The recipes' titles, in the order CONTRIBUTING.md gives them (``Add a metric``, ...)."""
    text = CONTRIBUTING.read_text(encoding="utf-8") if text is None else text
    return re.findall(r"^## (Add .+)$", text, re.MULTILINE)


def recipe_blocks(section: str, text: str | None = None) -> dict[str, str]:
    """The Python blocks of a CONTRIBUTING.md section, by their first line (``# scoring/_metrics/f1.py``)."""
    text = CONTRIBUTING.read_text(encoding="utf-8") if text is None else text
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", body, re.DOTALL)
    return {block.splitlines()[0].lstrip("# ").strip(): block for block in blocks}


def apply_recipe(root: Path, section: str, text: str | None = None) -> list[str]:
    """Write the blocks of ``section`` into the tree at ``root``; the paths written, in order."""
    written: list[str] = []
    for where, block in recipe_blocks(section, text).items():
        match = _WHERE.fullmatch(where)
        assert match is not None, f"{section}: a block's first line names no file: {where!r}"
        path = root / match["path"]
        if match["table"] is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block, encoding="utf-8")
        else:
            entry = block.split("\n", 1)[1]
            path.write_text(add_entry(path.read_text(encoding="utf-8"), match["table"], entry), encoding="utf-8")
        written.append(match["path"])
    return written


def add_entry(source: str, table: str, entry: str) -> str:
    """``source`` with ``entry`` (lines of code, ending with a comma) added last in the table ``table``: a
    dict or list literal, or a dict built from a tuple of entries (``{spec.name: spec for spec in (...)}``)."""
    literal: ast.expr | None = None
    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if [getattr(target, "id", None) for target in targets] == [table]:
                literal = node.value
    assert literal is not None, f"no table {table} in the file"
    if isinstance(literal, ast.DictComp | ast.ListComp):
        literal = literal.generators[0].iter
    assert isinstance(literal, ast.Dict | ast.List | ast.Tuple) and literal.end_lineno is not None, table
    lines = source.splitlines(keepends=True)
    closing = literal.end_lineno - 1  # the line of its closing bracket, alone on it as ruff formats a table
    assert lines[closing].strip() in ("}", ")", "]"), f"{table}: its closing bracket is not on a line of its own"
    return "".join([*lines[:closing], entry.rstrip("\n") + "\n", *lines[closing:]])
