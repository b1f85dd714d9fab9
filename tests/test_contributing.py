"""CONTRIBUTING.md as a newcomer follows it: every file its recipes name exists (a name with a ``<placeholder>``
is one the newcomer writes), the code it gives to copy passes the project's own checks as written, and every
recipe, followed in a scratch copy of the project, leaves the whole suite green (``pytest -m recipes``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from recipes import apply_recipe, recipe_blocks, recipe_sections

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


# --- the five recipes, followed in a scratch copy through the whole suite -----------------------------------

#: Where a new entry of each table is seen: the command whose ``--help`` lists it (None: no help lists that
#: table) and the docs page written from the table.
SHOWN = {
    "METRICS": (["score", "--help"], "guide/score.md"),
    "SHAPES": (["convert", "--help"], "guide/shapes.md"),
    "INPUT_FORMATS": (None, "reference/rules.md"),
    "LANGUAGES": (["validate", "--help"], "reference/cli.md"),
}
#: The recipes whose worked examples this file writes; the language recipe's blocks are written when it has any.
WORKED = ("Add a metric", "Add a judge kind", "Add an input format", "Add a peer's shape")


def _copy_of_the_project(target: Path) -> Path:
    """The project's files (git's, with the new ones not yet committed; no virtual environment, no caches)."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=False,
    )
    if listed.returncode == 0:
        for name in listed.stdout.decode("utf-8").split("\0"):
            source = ROOT / name
            if name and source.is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)
    else:  # not a git checkout (an unpacked archive)
        skipped = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*_cache", ".hypothesis", "*.egg-info")
        shutil.copytree(ROOT, target, ignore=skipped, dirs_exist_ok=True)
    return target


def _entry_name(block: str) -> str:
    """The name an entry block adds: its first string (``"f1"``, ``".tsv"``, ``"openai-evals"``)."""
    match = re.search(r"""["']([^"']+)["']""", block.split("\n", 1)[1])
    assert match is not None, block
    return match.group(1)


@pytest.mark.recipes
def test_the_recipes_hold_through_the_whole_suite() -> None:
    """Every recipe of CONTRIBUTING.md followed as it is written, in one copy of the project: its blocks
    written (files whole, entries at the end of their tables), the docs step run, then the whole default
    suite of the copy (docs tests included) passes, and each new entry is in ``--help`` and the docs."""
    # a short path, as the project's own: tests/cli/test_wrap.py pins lines that name fixtures by their path
    copy = _copy_of_the_project(Path(tempfile.mkdtemp(prefix="fk-")))
    try:
        _follow_the_recipes(copy)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def _follow_the_recipes(copy: Path) -> None:
    sections = recipe_sections(TEXT)
    assert set(WORKED) <= set(sections) and len(sections) >= 5, sections
    added: list[tuple[str, str]] = []
    for section in sections:
        written = apply_recipe(copy, section, TEXT)
        assert written or section not in WORKED, f"{section}: no block to follow"
        for where, block in recipe_blocks(section, TEXT).items():
            if ", in " in where:
                added.append((where.split(", in ")[1], _entry_name(block)))
    assert {table for table, _name in added} >= {"METRICS", "INPUT_FORMATS", "SHAPES"}
    environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LC_ALL", "PYTEST_ADDOPTS")}
    environment.update(PYTHONPATH=str(copy), LANG="C.UTF-8", NO_COLOR="1")  # the copy's code, not this one's

    def run(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, *args], cwd=copy, env=environment, capture_output=True, text=True, timeout=timeout
        )

    docs = run("docs/generate.py")
    assert docs.returncode == 0, docs.stdout + docs.stderr
    for table, name in added:
        command, page = SHOWN[table]
        if command is not None:
            shown = run("-m", "formatkit.cli", *command)
            assert shown.returncode == 0 and name in shown.stdout, (table, name, shown.stdout + shown.stderr)
        text = (copy / "docs" / "pages" / page).read_text(encoding="utf-8")
        assert name in text, (table, name, page)
    suite = run("-m", "pytest", "-q", "-p", "no:cacheprovider", timeout=3600)
    assert suite.returncode == 0, suite.stdout[-6000:] + suite.stderr[-2000:]
    assert re.search(r"\d+ passed", suite.stdout), suite.stdout[-2000:]
