"""A review sheet people sort, filter and trim (#40 item 3): the exported sheet's ``row_key`` puts it back.

``eval``'s judged output of the four seed sets (single- and multi-turn, Excel and jsonl) is exported, its rows
sorted by score as the sheet's filter buttons offer (openpyxl moves whole rows, as Sort does), hidden as a
filter hides them, deleted; and saved again by LibreOffice when it is installed. ``score`` of the sorted or
filtered sheet gives exactly the unsorted sheet's records; deleted rows are said, naming their keys.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from fakeserver import FakeOpenAI
from review_fakes import ok as _ok
from review_fakes import respond as _respond
from roundtrip import records_without_source
from typer.testing import CliRunner

from formatkit.cli import app

SEED = Path(__file__).parents[2] / "fixtures" / "seed"
SETS = [str(SEED / n) for n in ("seed_excel_single_turn.xlsx", "seed_excel_multi_turn.xlsx",
                                 "seed_jsonl_single_turn.jsonl", "seed_jsonl_multi_turn.jsonl")]  # fmt: skip
runner = CliRunner()


@pytest.fixture
def sheet(fake_openai: FakeOpenAI, tmp_path: Path) -> Path:
    """The exported review sheet of a judged eval of the four seed sets."""
    fake_openai.responder = _respond
    out, url = tmp_path / "eval", fake_openai.base_url
    _ok("eval", *SETS, "--base-url", url, "--model", "m", "-o", str(out), "--judge-base-url", url, "--judge-model", "j")
    path = tmp_path / "review.xlsx"
    _ok("export", str(out / "scored.jsonl"), "-o", str(path))
    return path


def _rearranged(path: Path, out: Path, *, by: str, hide: int = 0, delete: tuple[int, ...] = ()) -> Path:
    """The sheet's data rows sorted by column ``by`` (highest first, empty cells last) as Sort moves them,
    ``delete`` (sheet rows, before sorting) removed and the first ``hide`` rows after sorting hidden."""
    book = openpyxl.load_workbook(path)
    ws = book.active
    head = [c.value for c in ws[1]]
    rows = [[c.value for c in row] for n, row in enumerate(ws.iter_rows(min_row=2), start=2) if n not in delete]
    column = head.index(by)
    rows.sort(key=lambda r: (r[column] is None, -(r[column] or 0) if isinstance(r[column], float | int) else 0))
    ws.delete_rows(2, ws.max_row)
    for row in rows:
        ws.append(row)
    for n in range(2, 2 + hide):
        ws.row_dimensions[n].hidden = True
    book.save(out)
    return out


def _keys(path: Path) -> list[str]:
    ws = openpyxl.load_workbook(path).active
    column = [c.value for c in ws[1]].index("row_key")
    return [row[column].value for row in ws.iter_rows(min_row=2)]


def test_the_sheet_carries_a_key_that_sorting_by_puts_it_back(sheet: Path, tmp_path: Path) -> None:
    keys = _keys(sheet)
    assert keys == sorted(keys) and len(set(keys)) == len(keys)  # as text, in the order written
    assert any(not k.endswith("/1") for k in keys)  # multi-turn records: several turns
    assert keys[0] == "1.1/1" and len({len(k.split(".")[0]) for k in keys}) == 1  # records padded alike
    shuffled = _keys(_rearranged(sheet, tmp_path / "sorted.xlsx", by="score"))
    assert shuffled != keys and sorted(shuffled) == keys


def test_a_sheet_sorted_by_score_scores_exactly_as_the_unsorted_one(sheet: Path, tmp_path: Path) -> None:
    plain, again = tmp_path / "plain.jsonl", tmp_path / "again.jsonl"
    first = _ok("score", str(sheet), "-o", str(plain))
    moved = _rearranged(sheet, tmp_path / "sorted.xlsx", by="score")
    assert _keys(moved)[:3] != _keys(sheet)[:3]
    result = _ok("score", str(moved), "-o", str(again))
    assert records_without_source(again) == records_without_source(plain)  # multi-turn included, in order
    assert "error" not in result.stderr and "session_not_consecutive" not in result.stderr
    assert result.stdout.replace(str(again), "OUT") == first.stdout.replace(str(plain), "OUT")


def test_a_filtered_then_saved_sheet_reads_every_row_and_says_which_are_hidden(sheet: Path, tmp_path: Path) -> None:
    plain, again = tmp_path / "plain.jsonl", tmp_path / "again.jsonl"
    _ok("score", str(sheet), "-o", str(plain))
    filtered = _rearranged(sheet, tmp_path / "filtered.xlsx", by="score", hide=3)
    result = _ok("score", str(filtered), "-o", str(again))
    assert records_without_source(again) == records_without_source(plain)
    assert "hidden" in result.stderr and "2-4" in result.stderr.replace("–", "-")


def test_deleted_rows_are_said_and_the_rest_scores_as_before(sheet: Path, tmp_path: Path) -> None:
    """A whole single-turn record and one turn of a conversation deleted, the rest sorted."""
    plain, again = tmp_path / "plain.jsonl", tmp_path / "again.jsonl"
    _ok("score", str(sheet), "-o", str(plain))
    keys = _keys(sheet)
    single = keys.index(next(k for k in keys if k.endswith("/1"))) + 2
    middle = keys.index(next(k for k in keys if k.endswith(".2/3"))) + 2
    trimmed = _rearranged(sheet, tmp_path / "trimmed.xlsx", by="score", delete=(single, middle))
    result = runner.invoke(app, ["validate", str(trimmed), "--mode", "scored", "--json"])
    found = [i for f in json.loads(result.stdout)["files"] for i in f["issues"] if i["code"] == "rows_missing"]
    record, turn = keys[single - 2].split(".")[0].lstrip("0"), keys[middle - 2].split(".")[0].lstrip("0")
    messages = sorted(i["message"] for i in found)
    assert len(messages) == 2
    assert "are not in the sheet (row_key record " + record + ")" in messages[0]
    assert messages[1].startswith(f"Record {turn} lost 1 of its 3 turns (row_key turn 2;")
    assert all(i["column"] == f"{chr(ord('A') + len(_head(sheet)) - 1)} (row_key)" for i in found)
    said = _ok("score", str(trimmed), "-o", str(again)).stderr
    assert f"Record {turn} lost 1 of its 3 turns" in said
    before, after = records_without_source(plain), records_without_source(again)
    assert len(after) == len(before) - 1


def _head(path: Path) -> list[Any]:
    return [c.value for c in openpyxl.load_workbook(path).active[1]]


@pytest.mark.slow
def test_the_key_survives_a_libreoffice_round_trip(sheet: Path, tmp_path: Path) -> None:
    """The sorted sheet saved again by LibreOffice (headless ``--convert-to xlsx``) scores as the unsorted one."""
    office = shutil.which("soffice") or shutil.which("libreoffice")
    if office is None:
        pytest.skip("LibreOffice is not installed (apt-get install -y libreoffice-calc-nogui)")
    plain, again = tmp_path / "plain.jsonl", tmp_path / "again.jsonl"
    _ok("score", str(sheet), "-o", str(plain))
    (tmp_path / "moved").mkdir()
    moved = _rearranged(sheet, tmp_path / "moved" / "sorted.xlsx", by="score", hide=2)
    out = tmp_path / "office"
    subprocess.run(
        [office, "--headless", f"-env:UserInstallation=file://{tmp_path}/lo-profile", "--convert-to", "xlsx",
         "--outdir", str(out), str(moved)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    saved = out / "sorted.xlsx"
    assert _keys(saved) == _keys(moved)  # LibreOffice kept every key, as text
    result = _ok("score", str(saved), "-o", str(again))
    assert records_without_source(again) == records_without_source(plain)
    assert "hidden" in result.stderr
