"""The review loop on ``eval``'s own output: several datasets, each numbering its sessions from 0, single-
and multi-turn, a failed request, reasoning text. export → score gives back exactly the scored records;
editing one response changes that record's score and no other; export never writes a sheet that score
would refuse (text or repeated ids get free numbers; a run not finished is refused, nothing written)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from fakeserver import FakeOpenAI, Fault
from roundtrip import records_without_source
from typer.testing import CliRunner

from formatkit import validate_file
from formatkit.cli import app

SEED = Path(__file__).parents[2] / "fixtures" / "seed"
SETS = [str(SEED / n) for n in ("seed_excel_single_turn.xlsx", "seed_excel_multi_turn.xlsx",
                                 "seed_jsonl_single_turn.jsonl", "seed_jsonl_multi_turn.jsonl")]  # fmt: skip
runner = CliRunner()


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


_records = records_without_source


def _scores(records: list[dict[str, Any]]) -> list[Any]:
    return [[r.get("score") for r in record["messages"][-1].get("responses", [])] for record in records]


@pytest.fixture
def eval_dir(fake_openai: FakeOpenAI, tmp_path: Path) -> Path:
    fake_openai.reasoning = "reasoning_content"
    fake_openai.inject([Fault("400", message="content filter")])  # one record ends in error
    out = tmp_path / "eval"
    result = runner.invoke(
        app, ["eval", *SETS, "--base-url", fake_openai.base_url, "--model", "m", "-o", str(out), "--max-retries", "0"]
    )
    assert result.exit_code == 1, result.output  # the failed request
    return out


def test_export_of_a_multi_dataset_eval_scores_back_and_one_edit_changes_one_score(
    eval_dir: Path, tmp_path: Path
) -> None:
    scored, exported, again = eval_dir / "scored.jsonl", tmp_path / "review.xlsx", tmp_path / "again.jsonl"
    before = _records(scored)
    datasets = [r["meta"]["dataset"] for r in before]
    ids = [(r["meta"]["dataset"], r["session_id"]) for r in before]
    assert len(set(datasets)) == 4 and [i for _, i in ids].count(0) == 4  # each set counts from 0
    assert any("error" in r for rec in before for r in rec["messages"][-1]["responses"])
    assert "Leaderboard" in openpyxl.load_workbook(eval_dir / "report.xlsx", read_only=True).sheetnames

    _ok("export", str(scored), "-o", str(exported))
    assert validate_file(exported, mode="scored").valid
    _ok("score", str(exported), "-o", str(again))
    assert _records(again) == before  # every field back, reasoning and finish_reason included

    # A reviewer corrects one wrong reply (the reference itself): that record's score changes, no other.
    book = openpyxl.load_workbook(exported)
    sheet = book.active
    header = [c.value for c in sheet[1]]
    col = {name: header.index(name) + 1 for name in ("session_id", "dataset", "reference_response", "response")}
    target = next(i for i, r in enumerate(before) if r["messages"][-1]["responses"][0].get("score") == 0.0)
    row = next(
        n
        for n in range(2, sheet.max_row + 1)
        if sheet.cell(n, col["dataset"]).value == datasets[target]
        and sheet.cell(n, col["session_id"]).value == before[target]["session_id"]
        and sheet.cell(n, col["reference_response"]).value
    )
    sheet.cell(row, col["response"], value=sheet.cell(row, col["reference_response"]).value)
    book.save(exported)
    _ok("score", str(exported), "-o", str(again))
    after = _records(again)
    changed = [i for i, (a, b) in enumerate(zip(_scores(before), _scores(after), strict=True)) if a != b]
    assert changed == [target]
    assert after[target]["messages"][-1]["responses"][0]["score"] == 1.0


def test_ids_a_sheet_cannot_hold_get_free_numbers_and_read_back(tmp_path: Path) -> None:
    lines = [
        {"session_id": "q-1", "prompt": "1+1=?", "answer": "2", "response": "2"},
        {"session_id": "q-2", "prompt": "2+2=?", "answer": "4", "response": "5"},
        {"session_id": 7, "prompt": "3+3=?", "answer": "6", "response": "6"},
    ]
    source = tmp_path / "ids.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    scored, exported, again = tmp_path / "scored.jsonl", tmp_path / "ids.xlsx", tmp_path / "again.jsonl"
    _ok("score", str(source), "-o", str(scored))
    output = _ok("export", str(scored), "-o", str(exported))
    assert "original_session_id" in output and "'q-1' → 8" in output
    _ok("score", str(exported), "-o", str(again))
    records = _records(again)
    assert [r["session_id"] for r in records] == [8, 9, 7]
    assert [r["meta"].get("original_session_id") for r in records] == ["q-1", "q-2", None]
    assert _scores(records) == _scores(_records(scored))


def test_a_run_not_finished_is_not_exported_as_a_sheet_score_would_refuse(tmp_path: Path) -> None:
    records = [
        {"session_id": 0, "messages": [{"role": "user", "content": "1+1"},
                                       {"role": "assistant", "reference_response": "2",
                                        "responses": [{"parameters": {}, "content": "2"}]}]},
        {"session_id": 1, "messages": [{"role": "user", "content": "2+2"},
                                       {"role": "assistant", "reference_response": "4",
                                        "responses": [{"parameters": {}}]}]},
    ]  # fmt: skip
    source = tmp_path / "answered.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "partial.xlsx"
    result = runner.invoke(app, ["export", str(source), "-o", str(out)])
    assert result.exit_code == 1, result.output
    assert "nothing was written" in result.output and "missing_response" in result.output
    assert not out.exists()


@pytest.mark.slow
def test_the_export_saved_again_by_libreoffice_scores_the_same(eval_dir: Path, tmp_path: Path) -> None:
    """A reviewer's spreadsheet program rewrites the file it saves: LibreOffice's xlsx reads back the same."""
    office = shutil.which("libreoffice") or shutil.which("soffice")
    if office is None:
        pytest.skip("LibreOffice is not installed (apt-get install -y libreoffice-calc)")
    scored, exported = eval_dir / "scored.jsonl", tmp_path / "review.xlsx"
    _ok("export", str(scored), "-o", str(exported))
    resaved = tmp_path / "resaved"
    subprocess.run(
        [office, "--headless", f"-env:UserInstallation=file://{tmp_path}/lo-profile", "--convert-to",
         "xlsx:Calc MS Excel 2007 XML", "--outdir", str(resaved), str(exported)],
        check=True, capture_output=True, timeout=180,
    )  # fmt: skip
    again = tmp_path / "again.jsonl"
    _ok("score", str(resaved / "review.xlsx"), "-o", str(again))
    assert _records(again) == _records(scored)


def test_a_sheet_naming_the_dataset_on_each_sessions_last_row_only_still_reads(eval_dir: Path, tmp_path: Path) -> None:
    """As export wrote before (and as a person may): earlier rows of a session take its last row's dataset."""
    scored, exported, again = eval_dir / "scored.jsonl", tmp_path / "old.xlsx", tmp_path / "again.jsonl"
    _ok("export", str(scored), "-o", str(exported))
    book = openpyxl.load_workbook(exported)
    sheet = book.active
    header = [c.value for c in sheet[1]]
    dataset, reference = header.index("dataset") + 1, header.index("reference_response") + 1
    cleared = 0
    for n in range(2, sheet.max_row + 1):
        if sheet.cell(n, reference).value is None:  # not a session's last row
            sheet.cell(n, dataset, value=None)
            cleared += 1
    book.save(exported)
    assert cleared > 0
    _ok("score", str(exported), "-o", str(again))
    assert _records(again) == _records(scored)
