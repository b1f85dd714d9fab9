"""The documentation holds: its generated pages are fresh, its console examples print what they show, and
its links lead somewhere.

The ```python and ```bash examples of the same pages run in tests/test_newcomer_scripts.py.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
import unicodedata
from pathlib import Path
from types import ModuleType

import pytest
from test_newcomer_scripts import DOCUMENTS, FIXTURES, README, ROOT, blocks_of, document_name

PAGES = ROOT / "docs" / "pages"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()
GENERATED: list[str] = sorted(GENERATOR.PAGES_GENERATED)


@pytest.mark.parametrize("name", GENERATED)
def test_generated_page_is_fresh(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """reference/rules.md, cli.md and api.md are what the code gives now (as schemas/ is): a new code, a
    reworded message or option help, a changed signature makes the checked-in page stale."""
    monkeypatch.chdir(ROOT)
    on_disk = (PAGES / name).read_text(encoding="utf-8")
    assert on_disk == GENERATOR.PAGES_GENERATED[name](), f"docs/pages/{name} is stale: run `python docs/generate.py`"


def test_the_generator_reports_a_stale_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--check`` exits 0 when every generated page is what its renderer gives, 1 naming the page when one
    was edited by hand or is missing; a plain run writes them."""
    monkeypatch.setattr(GENERATOR, "PAGES", tmp_path)
    monkeypatch.setattr(GENERATOR, "PAGES_GENERATED", {"reference/a.md": lambda: "# A\n", "b.md": lambda: "# B\n"})
    assert GENERATOR.stale() == ["reference/a.md", "b.md"]
    assert GENERATOR.main([]) == 0
    assert (tmp_path / "reference" / "a.md").read_text(encoding="utf-8") == "# A\n"
    assert GENERATOR.main(["--check"]) == 0
    (tmp_path / "b.md").write_text("# B, edited\n", encoding="utf-8")
    assert GENERATOR.stale() == ["b.md"]
    assert GENERATOR.main(["--check"]) == 1
    assert GENERATOR.main(["--bogus"]) == 2


def test_every_code_has_its_section_and_its_fixture_example() -> None:
    from formatkit import CODES

    page = (PAGES / "reference" / "rules.md").read_text(encoding="utf-8")
    for code, (severity, _summary) in CODES.items():
        assert f"### `{code}`\n\n**{severity}**" in page, code
    shown = {Path(line.split()[-1]).name for line in page.splitlines() if line.startswith("$ formatkit validate")}
    on_disk = {p.name for p in (FIXTURES / "invalid").rglob("*") if p.is_file()}
    assert shown <= on_disk and len(shown) >= len(CODES) - 2  # too_many_files and line_too_long have no file


def test_every_command_and_option_is_in_the_cli_reference() -> None:
    """The CLI reference names every command and every option the typer app declares."""
    import typer.main

    from formatkit.cli import app

    page = (PAGES / "reference" / "cli.md").read_text(encoding="utf-8")
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    assert len(commands) >= 10
    for name, command in commands.items():
        assert f"## `formatkit {name}`" in page
        for param in command.params:
            if param.param_type_name == "option" and not param.hidden:
                for opt in param.opts:
                    assert f"`{opt}" in page or f" {opt}" in page, (name, opt)


def console_sessions() -> list[tuple[str, int, str]]:
    return [(document_name(d), i, block) for d in DOCUMENTS for i, block in enumerate(blocks_of(d, "console"))]


def expected_pattern(lines: list[str]) -> re.Pattern[str]:
    """The output a console block shows, as a pattern: a line ``...`` stands for any lines (none included),
    ``[...]`` inside a line for any text; everything else must be there exactly."""
    parts = []
    for line in lines:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split("[...]")) + r"\n")
    return re.compile("".join(parts))


def parse_session(block: str) -> list[tuple[str, list[str]]]:
    """``$ command`` lines, each with the lines it prints (up to the next ``$``)."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:].split("  #")[0].strip(), []))
        else:
            assert steps, f"output before any command: {line!r}"
            steps[-1][1].append(line)
    return steps


SESSIONS = console_sessions()


@pytest.mark.parametrize(
    ("document", "index", "block"), SESSIONS, ids=[f"{name}:{index}" for name, index, _block in SESSIONS]
)
def test_every_console_example_prints_what_it_shows(tmp_path: Path, document: str, index: int, block: str) -> None:
    """Each ```console block, run command by command in a fresh folder holding the fixtures: the output is
    the one shown, line for line (stdout and stderr as a terminal interleaves them, no colour)."""
    (tmp_path / "fixtures").symlink_to(FIXTURES)
    console_script = Path(sys.executable).with_name("formatkit")
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OPENAI_API_KEY", "LC_ALL")}
    environment.update(LANG="C.UTF-8", LC_MESSAGES="C.UTF-8")
    steps = parse_session(block)
    assert steps, block
    for command, shown in steps:
        args = shlex.split(command)
        assert args[0] == "formatkit", command
        result = subprocess.run(
            [str(console_script), *args[1:]],
            cwd=tmp_path,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            timeout=120,
        )
        assert "Traceback" not in result.stdout, command
        assert result.returncode in (0, 1), f"{command}\n{result.stdout}"
        assert shown, f"{command}: a console example shows what the command prints"
        assert expected_pattern(shown).fullmatch(result.stdout), f"{command}\n--- printed:\n{result.stdout}"


def test_the_elision_pattern_is_strict() -> None:
    """``...`` and ``[...]`` elide; nothing else does: a line missing, added or changed is a mismatch."""
    pattern = expected_pattern(["a", "...", "z [...] end"])
    assert pattern.fullmatch("a\nz x end\n") and pattern.fullmatch("a\nb\nc\nz x y end\n")
    assert not pattern.fullmatch("a\nz x end\nextra\n")
    assert not pattern.fullmatch("b\nz x end\n")
    assert not expected_pattern(["a", "b"]).fullmatch("a\nb2\n")


def slug(heading: str) -> str:
    """The anchor Python-Markdown's toc (and GitHub, for these headings) gives a heading."""
    text = re.sub(r"\{#[^}]*\}\s*$", "", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(document: Path) -> set[str]:
    found: set[str] = set()
    inside = False
    for line in document.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = not inside
        if inside or not line.startswith("#"):
            continue
        heading = line.lstrip("#").strip()
        explicit = re.search(r"\{#([^}]+)\}\s*$", heading)
        found.add(explicit.group(1) if explicit else slug(heading))
    return found


def links(document: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", document.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    return re.findall(r"\]\(([^)\s]+)\)", text)


@pytest.mark.parametrize("document", DOCUMENTS, ids=document_name)
def test_every_link_leads_somewhere(document: Path) -> None:
    """A relative link names a file of the project and, with ``#``, a heading of it (the docs build checks
    its own pages too, with ``mkdocs build --strict``; this also covers the README and benchmarks/README.md)."""
    for link in links(document):
        if re.match(r"[a-z]+://", link):
            continue
        path, _, anchor = link.partition("#")
        target = (document.parent / path).resolve() if path else document
        assert target.exists(), f"{document_name(document)}: {link}"
        if anchor and target.suffix == ".md":
            assert anchor in anchors(target), f"{document_name(document)}: {link}"


def test_the_readme_is_the_front_door() -> None:
    """At most 200 lines; the two set-up commands first, as CI and the project's rules run them; `formatkit
    eval` within the first screen; a way into the docs for each of the three readers."""
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 200
    install = ".venv/bin/pip install -q -e '.[dev]' && .venv/bin/formatkit validate fixtures/seed/*"
    assert blocks_of(README, "bash")[:2] == [f"python3 -m venv .venv && {install}\n", ".venv/bin/python -m pytest -q\n"]
    assert next(n for n, line in enumerate(lines, 1) if "formatkit eval" in line) <= 40
    for page in ("guide/validate.md", "guide/fix.md", "guide/eval.md", "guide/report.md", "reference/rules.md"):
        assert f"(docs/pages/{page}" in text, page


def test_every_metric_is_in_the_score_pages_table() -> None:
    """A metric added to ``scoring.METRICS`` (one entry in the metric table) is a row of the guide's table."""
    from scoring import METRICS

    page = (PAGES / "guide" / "score.md").read_text(encoding="utf-8")
    for name in METRICS:
        assert f"| `{name}` |" in page, name


def test_every_command_is_in_the_readme_and_guide_tables() -> None:
    """The command tables of the README and the guide name every command of the typer app."""
    import typer.main

    from formatkit.cli import app

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    for document in (README, PAGES / "guide" / "index.md"):
        text = document.read_text(encoding="utf-8")
        for name in commands:
            assert f"| `formatkit {name}" in text, (document_name(document), name)


def test_no_guide_page_is_one_wall() -> None:
    """A guide page has a section (and so a contents entry) for every 50 lines or so: a newcomer finds the part
    they need from the contents instead of reading a wall (the eval page was one section of 56 lines)."""
    for page in sorted((PAGES / "guide").glob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        sections = sum(line.startswith("## ") for line in lines)
        assert sections >= len(lines) // 50, (page.name, len(lines), sections)


def test_the_site_reads_as_one_guide() -> None:
    """The section's own page stands for the section (the nav says "User guide" once), every page ends with
    links to the previous and next pages, and wide code blocks wrap instead of being cut."""
    config = (ROOT / "docs" / "mkdocs.yml").read_text(encoding="utf-8")
    for feature in ("navigation.indexes", "navigation.footer"):
        assert f"- {feature}" in config, feature
    css = (PAGES / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    assert "stylesheets/extra.css" in config and "white-space: pre-wrap" in css


def test_every_shape_is_in_the_shapes_guides_table() -> None:
    """A shape added to ``formatkit.SHAPES`` (one entry of the table of shapes) is a row of the guide's table."""
    from formatkit import SHAPES

    page = (PAGES / "guide" / "shapes.md").read_text(encoding="utf-8")
    for name, spec in SHAPES.items():
        assert f"| `{name}` | {GENERATOR._cell(spec.summary)} |" in page, name


def test_a_generated_part_is_rewritten_between_its_marks_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables of the hand-written guide pages: the lines between the marks are the table's rows as the code
    gives them (a stale row goes), the rest of the page stays as written; a page without its marks is said."""
    from scoring import METRICS

    monkeypatch.setattr(GENERATOR, "PAGES", tmp_path)
    (tmp_path / "guide").mkdir()
    (tmp_path / "scoring.md").write_text("# Rules\n\n### choice\n\n## Judges\n", encoding="utf-8")
    page = tmp_path / "guide" / "score.md"
    start, end = "<!-- generated: metrics (by hand? no) -->\n", "<!-- end generated: metrics -->\n"
    page.write_text(f"# Score\n\nbefore\n\n{start}| `gone` | a stale row |\n{end}\nafter\n", encoding="utf-8")
    text = GENERATOR.PAGES_GENERATED["guide/score.md"]()
    assert text.startswith(f"# Score\n\nbefore\n\n{start}\n| metric |") and text.endswith(f"|\n\n{end}\nafter\n")
    assert "gone" not in text
    rows = [line.split(" | ")[0] for line in text.splitlines() if line.startswith("| `")]
    assert rows == [f"| `{name}`" for name in METRICS]
    assert "| `choice` | rule |" in text and "(../scoring.md#choice)" in text and "(../scoring.md#judges)" in text
    page.write_text("# Score\n\nno marks\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="marks"):
        GENERATOR.PAGES_GENERATED["guide/score.md"]()
