"""The sheet scan's one-pass prefilters never hide what the precise tests they stand in front of find.

scan_sheet runs one regex (``_UNUSUAL``) over each window and the precise tests (formulas, odd cell and row
tags, a ``<c `` not followed by ``r="``) only where it matches; ``_PREFIX_HINT`` stands before ``_PREFIXED``
the same way. A prefilter that missed one case would let a sheet calamine places differently through the
fast count: these properties pin the implication on windows built from every spelling involved.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from fuzz import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from formatkit._reading.xlsx_scan import (
    _ODD_TAGS,
    _PREFIX_HINT,
    _PREFIXED,
    _UNUSUAL,
    _odd_space,
    scan_sheet,
)

_FRAGMENTS = [
    '<c r="A1">',
    '<c r="B22" t="s">',
    "<c r='A1'>",
    '<c t="s" r="A1">',
    "<c>",
    "<c/>",
    "<c\tr='A1'>",
    "<c\n",
    "<c\r",
    "<cols>",
    '<col min="1"/>',
    "<cf",
    '<row r="3">',
    "<row>",
    "<row/>",
    "<row\n",
    "<row\t",
    "<rowBreaks>",
    "<f>",
    "<f ",
    "<f/>",
    "<filterColumn>",
    "<formula1>",
    "<x:c r='A1'>",
    "<x:row>",
    "<x:f>",
    "<x:f/>",
    "<my.ns-1:c\n",
    'x14ac:dyDescent="0.25"',
    'spans="1:6"',
    ":c ",
    ":row>",
    ":f/",
    "<v>1</v>",
    "</c>",
    "</row>",
    "<is><t>a:c b</t></is>",
    " ",
    "\n",
    "<",
    "c",
    "r",
    "f",
    ":",
]

windows = st.lists(st.sampled_from(_FRAGMENTS), max_size=12).map(lambda parts: "".join(parts).encode())


def _precise_formula(window: bytes) -> bool:
    return b"<f>" in window or b"<f " in window or b"<f/" in window


def _precise_odd_tags(window: bytes) -> bool:
    return window.count(b"<c ") != window.count(b'<c r="') or any(t in window for t in _ODD_TAGS) or _odd_space(window)


@settings(max_examples=examples(500), deadline=None)
@given(window=windows)
def test_unusual_finds_every_window_the_precise_tests_flag(window: bytes) -> None:
    if _precise_formula(window) or _precise_odd_tags(window):
        assert _UNUSUAL.search(window) is not None


@settings(max_examples=examples(500), deadline=None)
@given(window=windows)
def test_the_prefix_hint_finds_every_prefixed_tag(window: bytes) -> None:
    if _PREFIXED.search(window):
        assert _PREFIX_HINT.search(window) is not None


def _sheet(path: Path, body: str) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("xl/worksheets/sheet1.xml", f"<worksheet><sheetData>{body}</sheetData></worksheet>")
    return path


def test_a_window_with_a_formula_is_a_suspect_and_one_without_is_not(tmp_path: Path) -> None:
    plain = '<row r="1"><c r="A1"><v>1</v></c></row>'
    with zipfile.ZipFile(_sheet(tmp_path / "a.zip", plain)) as archive:
        assert not scan_sheet(archive, "xl/worksheets/sheet1.xml").suspects
    for formula in ("<f>A1</f>", "<f t='shared' si='0'/>", "<f />"):
        body = f'<row r="1"><c r="A1">{formula}<v>1</v></c></row>'
        with zipfile.ZipFile(_sheet(tmp_path / "b.zip", body)) as archive:
            assert scan_sheet(archive, "xl/worksheets/sheet1.xml").suspects, formula


def test_only_the_styles_asked_about_mark_the_sheet_styled(tmp_path: Path) -> None:
    body = '<row r="1"><c r="A1" s="123"><v>1</v></c><c r="B1" s="2"><v>1</v></c></row>'
    with zipfile.ZipFile(_sheet(tmp_path / "a.zip", body)) as archive:
        part = "xl/worksheets/sheet1.xml"
        assert not scan_sheet(archive, part, {1, 12}).styled  # s="123" is neither 1 nor 12
        assert scan_sheet(archive, part, {12, 2}).styled
        assert scan_sheet(archive, part, {123}).styled
        assert scan_sheet(archive, part, set(range(100, 200))).styled  # over 64 styles: assumed styled
