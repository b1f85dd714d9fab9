"""The codebase keeps one home per concept (issue 26): the figures of ``benchmarks/code_figures.py`` stay at their
targets. Counted with ``ast`` and text search, so they hold on any machine."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import code_figures


def test_the_record_keeps_its_type() -> None:
    """``dict[str, Any]`` was 347 when issue 26 was filed; the typed record (``formatkit/_core/record.py``) and
    the other typed shapes hold it at 120 or fewer."""
    assert code_figures.any_dicts() <= 120


def test_only_the_record_module_finds_the_target_turn() -> None:
    assert code_figures.last_message_indexers() == []


def test_no_function_takes_more_than_eight_parameters() -> None:
    """Options travel down the stack as objects (``RunOptions``, ``RetryPolicy``, …), not as long lists."""
    assert code_figures.MAX_PARAMETERS == 8
    assert [f"{s.name} {s.where} ({s.parameters})" for s in code_figures.long_signatures()] == []


def test_the_cli_imports_no_private_module() -> None:
    """The CLI talks to the public faces only (import-linter keeps it so too; this counts what it counts)."""
    assert dict(code_figures.private_imports("formatkit/cli", "scoring")) == {}
    assert dict(code_figures.private_imports("formatkit/cli", "formatkit")) == {}


def test_the_readme_is_a_front_door() -> None:
    """At most 200 lines, and ``formatkit eval`` on its first screen (the rest is the docs site's)."""
    length, first_eval = code_figures.readme_figures()
    assert length <= 200
    assert first_eval is not None and first_eval <= 40


def test_the_figures_see_what_they_count(tmp_path: Path) -> None:
    """The counters are not blind: each finds its pattern in a sample written here."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import Any\n"
        "def f(a, b, c, d, e, f, g, h, i): ...\n"
        "x: dict[str, Any] = {}\n"
        "y = record['messages'][-1]\n",
        encoding="utf-8",
    )
    signatures = code_figures.signatures_in(sample, limit=8)
    assert [(s.name, s.parameters) for s in signatures] == [("f", 9)]
    text = sample.read_text(encoding="utf-8")
    assert code_figures.count_any_dicts(text) == 1
    assert code_figures.indexes_last_message(text)


def test_report_words_come_from_the_catalogues_only() -> None:
    """Issue 36: the text report was English rewritten by regular expressions (``wording.py``); its words are
    catalogue templates now, and no rendered report text is rewritten by a pattern."""
    assert code_figures.report_pattern_rewrites() == []
