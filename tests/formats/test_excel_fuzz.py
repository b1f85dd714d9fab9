"""Whatever a workbook holds, or whatever bytes wear an Excel name, validation returns a report."""

from __future__ import annotations

import datetime
import io
import os
import random
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
from fuzz import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formatkit import convert, validate_file
from formatkit._core.codes import CODES

FIXTURES = Path(__file__).parents[2] / "fixtures"
HEADERS = ["session_id", "system_prompt", "query", "reference_response", "parameters", "response"]
MODES = ("infer-eval", "infer-only", "scored")

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=30)
cells = st.one_of(
    st.none(),
    texts,
    st.sampled_from(["", "  ", "　", "你好", "=1+1", "#N/A", "{'temperature': 0.5}", '{"n": 2}', "3", "abc"]),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.sampled_from([1e20, -1e300, 2.0**53, 3.5, 0.1 + 0.2]),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.datetimes(min_value=datetime.datetime(1990, 1, 1), max_value=datetime.datetime(2090, 1, 1)),
)
headers = st.lists(
    st.one_of(st.sampled_from([*HEADERS, "system", "prompt", "answer", " Query "]), texts, st.none()),
    min_size=0,
    max_size=7,
)
rows = st.lists(st.lists(cells, max_size=7), max_size=8)
merges = st.lists(st.tuples(st.integers(1, 9), st.integers(1, 7), st.integers(0, 2), st.integers(0, 1)), max_size=2)

#: FUZZ_EXAMPLES=1000 for a longer hunt (60 under -m slow, a quarter of that by default: tests/fuzz.py).
SETTINGS = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", str(examples(60)))),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _check(path: Path, mode: str) -> None:
    report = validate_file(path, mode=mode)  # type: ignore[arg-type]
    assert report.path == str(path)
    assert all(issue.code in CODES for issue in report.issues)
    assert report.valid == (report.errors == 0)
    # Converting writes every record that passed (any id, any text): it must not fail either.
    out = path.with_name("out.jsonl")
    converted = convert([path], out, mode=mode, profile="none")  # type: ignore[arg-type]
    assert converted.valid == out.exists()


def _workbook(header: list[Any], body: list[list[Any]], merged: list[tuple[int, int, int, int]]) -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(header)
    for row in body:
        ws.append(row)
    for r, c, dr, dc in merged:
        ws.merge_cells(start_row=r, start_column=c, end_row=r + dr, end_column=c + dc)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


@SETTINGS
@given(header=headers, body=rows, merged=merges, mode=st.sampled_from(MODES))
def test_any_workbook_gives_a_report(
    header: list[Any], body: list[list[Any]], merged: list[tuple[int, int, int, int]], mode: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.xlsx"
        path.write_bytes(_workbook(header, body, merged))
        _check(path, mode)


@SETTINGS
@given(data=st.binary(max_size=4096), suffix=st.sampled_from([".xlsx", ".xls"]))
def test_any_bytes_named_excel_give_a_report(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"fuzz{suffix}"
        path.write_bytes(data)
        report = validate_file(path)
        assert not report.valid or data == b""  # random bytes are never a valid workbook
        assert report.issues


SEED = (FIXTURES / "seed" / "seed_excel_multi_turn.xlsx").read_bytes()


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), flips=st.integers(1, 20))
def test_damaged_workbook_gives_a_report(seed: int, flips: int) -> None:
    """Bytes flipped inside a real workbook: a broken zip, broken XML, or still readable."""
    rng = random.Random(seed)
    data = bytearray(SEED)
    for _ in range(flips):
        data[rng.randrange(len(data))] = rng.randrange(256)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "damaged.xlsx"
        path.write_bytes(bytes(data))
        _check(path, "infer-eval")


@SETTINGS
@given(
    part=st.sampled_from(
        ["xl/worksheets/sheet1.xml", "xl/workbook.xml", "xl/_rels/workbook.xml.rels", "[Content_Types].xml"]
    ),
    body=st.binary(max_size=300),
)
def test_broken_part_inside_a_sound_zip_gives_a_report(part: str, body: bytes) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(SEED)) as src, zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            dst.writestr(name, body if name == part else src.read(name))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "broken.xlsx"
        path.write_bytes(out.getvalue())
        _check(path, "infer-eval")
