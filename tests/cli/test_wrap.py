"""Printed lines wrap by what the terminal shows: a CJK character is two columns, an ANSI code none; words
are never cut (the terminal would otherwise wrap again mid-word: ``Know``/``n names``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from formatkit.cli._wrap import display_width, wrap

FIXTURES = Path(__file__).parents[2] / "fixtures"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
RED = "\x1b[1;31m"
RESET = "\x1b[0m"
CHINESE = (
    f"  {RED}错误{RESET}     set.xlsx, Sheet1!A2 (session_id): 单元格 A2:A4 被合并了，只有第一个单元格有值。"
    "请取消合并（开始 → 合并后居中 → 取消单元格合并（WPS：开始 → 合并居中 → 取消合并单元格）），再把值填到每个"
    "单元格，例如会话的每一行都写上 session_id。 [merged_cells]"
)
ENGLISH = (
    f'  {RED}error  {RESET} set.xlsx, Sheet1!H1 (Know n names): Unknown column "Know n names" in row 1. Known '
    "names: session_id, system_prompt, query, reference_response, parameters, response. Rename it. [unknown_column]"
)


def _plain(line: str) -> str:
    return ANSI.sub("", line)


@pytest.mark.parametrize("width", [40, 60, 80])
@pytest.mark.parametrize("text", [CHINESE, ENGLISH], ids=["chinese", "english"])
def test_no_line_is_wider_than_the_terminal(text: str, width: int) -> None:
    lines = wrap(text, width, 10)
    assert len(lines) > 1
    for line in lines:
        assert display_width(line) <= width, line
    assert all(line.startswith(" " * 10) for line in lines[1:])


def test_chinese_lines_are_filled_by_display_width_not_characters() -> None:
    """textwrap counted characters: a line of 70 CJK characters was "70 wide" and took 140 columns."""
    lines = wrap(CHINESE, 80, 10)
    assert all(display_width(line) >= 60 for line in lines[:-1])  # full lines, not half-empty ones


def test_ansi_codes_take_no_room_and_survive() -> None:
    assert display_width(f"{RED}错误{RESET}") == 4
    joined = "".join(wrap(CHINESE, 50, 0))
    assert RED in joined and RESET in joined


@pytest.mark.parametrize("text", [CHINESE, ENGLISH], ids=["chinese", "english"])
def test_nothing_is_lost_and_no_word_is_cut(text: str) -> None:
    lines = wrap(text, 40, 10)
    words = _plain(text).split()
    rejoined = " ".join(_plain(line).strip() for line in lines)
    assert "".join(rejoined.split()) == "".join(words)
    # Every English word ends up whole on one line.
    for word in re.findall(r"[A-Za-z_]{2,}", _plain(text)):
        assert any(word in _plain(line) for line in lines), word


def test_closing_punctuation_never_starts_a_line() -> None:
    for width in range(30, 81):
        for line in wrap(CHINESE, width, 10)[1:]:
            assert line.strip()[0] not in "，。、；：？！）」』】》", (width, line)


def test_a_word_longer_than_the_line_stands_alone_uncut() -> None:
    path = "/very/long/path/" + "x" * 60 + ".xlsx"
    lines = wrap(f"  error   {path}: 文件是空的。", 40, 10)
    assert any(path in line for line in lines)


def test_short_lines_are_left_alone() -> None:
    assert wrap("  ok", 80, 10) == ["  ok"]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_validate_in_an_80_column_terminal_never_wraps_mid_line(tmp_path: Path) -> None:
    """In tmux at 80 columns: what formatkit prints is exactly what the terminal shows, line for line (the
    terminal wraps nothing again), Chinese and English, colour on."""
    fixtures = [str(FIXTURES / "invalid/excel/merged_cells.xlsx"), str(FIXTURES / "invalid/excel/unknown_column.xlsx")]
    socket = f"fk-{uuid.uuid4().hex[:8]}"
    out = tmp_path / "done"
    formatkit = f"{sys.executable} -c 'from formatkit.cli import main; main()'"
    command = (
        f"{formatkit} validate --lang zh {' '.join(fixtures)}; "
        f"{formatkit} validate --lang en {' '.join(fixtures)}; touch {out}; sleep 30"
    )
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    subprocess.run(["tmux", "-L", socket, "new-session", "-d", "-x", "80", "-y", "200", command], check=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert out.exists(), "validate did not finish in tmux"
        physical = subprocess.run(
            ["tmux", "-L", socket, "capture-pane", "-p", "-S", "0"], capture_output=True, text=True, check=True
        ).stdout.rstrip("\n")
        logical = subprocess.run(
            ["tmux", "-L", socket, "capture-pane", "-p", "-J", "-S", "0"], capture_output=True, text=True, check=True
        ).stdout.rstrip("\n")
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], check=False)
    assert "取消单元格合并" in physical and "Unmerge" in physical
    assert physical.splitlines() == logical.splitlines()  # the terminal joined nothing: it wrapped nothing
    assert max(display_width(line) for line in physical.splitlines()) <= 80
