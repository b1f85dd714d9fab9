"""The reviewer's loop on ``eval``'s own output with a judge (#27 item 4): export → edit in Excel → score.

An unedited sheet scores back to exactly the scored records — the judge's scores included — with no judge
option and no request (counted on the fake server); a filled ``human_score`` becomes the score with the
judge's verdict kept beside it; an edited reply is scored again; ``score`` says which records it changed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from fakeserver import FakeOpenAI, last_user
from review_fakes import ok as _ok
from review_fakes import respond as _respond
from roundtrip import records_without_source
from typer.testing import CliRunner

from formatkit.cli import app

SEED = Path(__file__).parents[2] / "fixtures" / "seed"
SETS = [str(SEED / n) for n in ("seed_excel_single_turn.xlsx", "seed_excel_multi_turn.xlsx",
                                 "seed_jsonl_single_turn.jsonl", "seed_jsonl_multi_turn.jsonl")]  # fmt: skip
runner = CliRunner()


def _responses(path: Path) -> list[dict[str, Any]]:
    return [r["messages"][-1]["responses"][0] for r in records_without_source(path)]


def _overall(path: Path) -> float:
    return float(json.loads(_ok("report", str(path), "--format", "json").stdout)["overall"])


@pytest.fixture
def judged_eval(fake_openai: FakeOpenAI, tmp_path: Path) -> Path:
    fake_openai.responder = _respond
    out = tmp_path / "eval"
    url = fake_openai.base_url
    _ok("eval", *SETS, "--base-url", url, "--model", "m", "-o", str(out), "--judge-base-url", url, "--judge-model", "j")
    return out / "scored.jsonl"


def _sheet(path: Path) -> tuple[openpyxl.Workbook, Any, dict[str, int]]:
    book = openpyxl.load_workbook(path)
    sheet = book.active
    return book, sheet, {c.value: c.column for c in sheet[1]}


def _row(sheet: Any, col: dict[str, int], dataset: str, session: int) -> int:
    return next(
        n
        for n in range(2, sheet.max_row + 1)
        if sheet.cell(n, col["dataset"]).value == dataset
        and sheet.cell(n, col["session_id"]).value == session
        and sheet.cell(n, col["reference_response"]).value
    )


def test_an_unedited_export_scores_back_as_it_was_with_no_judge_and_no_request(
    judged_eval: Path, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    before = records_without_source(judged_eval)
    judged = [r for r in _responses(judged_eval) if r.get("metric") == "judge"]
    assert len(judged) >= 4 and len({r["score"] for r in judged}) > 1  # several judged scores, not all alike
    assert len({r["meta"]["dataset"] for r in before}) == 4
    sheet_path, again = tmp_path / "review.xlsx", tmp_path / "again.jsonl"
    _ok("export", str(judged_eval), "-o", str(sheet_path))
    _, sheet, col = _sheet(sheet_path)
    assert {"judge_verdict", "judge_rationale", "human_score", "fingerprint"} <= set(col)
    assert all(sheet.cell(n, col["human_score"]).value is None for n in range(2, sheet.max_row + 1))
    verdicts = [sheet.cell(n, col["judge_verdict"]).value for n in range(2, sheet.max_row + 1)]
    assert sorted(v for v in verdicts if v is not None and v != "void") == sorted(
        str(int(r["score"])) for r in judged
    )  # each judged response's verdict, as its score says

    sent = fake_openai.requests
    result = _ok("score", str(sheet_path), "-o", str(again))
    assert fake_openai.requests == sent  # no request: no judge option was given, none was needed
    assert records_without_source(again) == before  # every score as it was, the judge's included
    assert "0 score(s) changed, every other score kept as it was" in result.stderr
    assert _overall(again) == _overall(judged_eval)


def test_a_human_score_and_an_edit_change_their_records_only(
    judged_eval: Path, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    before = records_without_source(judged_eval)
    sheet_path, again = tmp_path / "review.xlsx", tmp_path / "again.jsonl"
    _ok("export", str(judged_eval), "-o", str(sheet_path))
    book, sheet, col = _sheet(sheet_path)
    judged = next(i for i, r in enumerate(before) if r["messages"][-1]["responses"][0].get("metric") == "judge")
    ruled = next(
        i
        for i, r in enumerate(before)
        if r["messages"][-1]["responses"][0].get("metric") not in ("judge", None)
        and r["messages"][-1]["responses"][0].get("score") == 1.0
    )
    old = before[judged]["messages"][-1]["responses"][0]
    human = 2 if old["score"] != 2 else 0
    row = _row(sheet, col, before[judged]["meta"]["dataset"], before[judged]["session_id"])
    sheet.cell(row, col["human_score"], value=human)
    row = _row(sheet, col, before[ruled]["meta"]["dataset"], before[ruled]["session_id"])
    sheet.cell(row, col["response"], value="999")  # a reviewer corrects a transcription: now a wrong answer
    book.save(sheet_path)

    sent = fake_openai.requests
    result = _ok("score", str(sheet_path), "-o", str(again))
    assert fake_openai.requests == sent
    after = records_without_source(again)
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert changed == sorted([judged, ruled])
    person = after[judged]["messages"][-1]["responses"][0]
    assert person["score"] == human and person["human_score"] == human and person["scored_by"] == "human"
    assert person["overridden"] == {"score": old["score"], "analysis": old["analysis"]}
    assert person["judge"] == old["judge"]  # the judge's verdict kept beside the person's
    assert after[ruled]["messages"][-1]["responses"][0]["score"] == 0.0
    lines = result.stderr.splitlines()
    assert "2 score(s) changed" in lines[0]
    assert f"session {before[judged]['session_id']}: scored by a person: {human} (was {old['score']:g})" in lines[1]
    assert "edited, scored again (was 1)" in lines[2]

    # report: per dataset, how many scores a person gave, and the score with the machine's and with theirs
    dataset = before[judged]["meta"]["dataset"]
    summary = json.loads(_ok("report", str(again), "--format", "json").stdout)["datasets"][dataset]
    machine = json.loads(_ok("report", str(judged_eval), "--format", "json").stdout)["datasets"][dataset]["score"]
    assert summary["human_overrides"] == {"responses": 1, "score_before": machine, "score_after": summary["score"]}
    assert summary["score"] != machine
    text = _ok("report", str(again)).stdout
    assert f"m / {dataset}: 1 score(s) given by a person (human_score): {machine:.2f} with the machine's" in text

    # judge-check reads the person's score from the reviewed sheet, and from the scores written from it
    for labels in (sheet_path, again):
        check = json.loads(_ok("judge-check", str(judged_eval), "--human", str(labels), "--json").stdout)
        assert check["judge"] == "j" and check["n"] == 1 and check["labels"] == 1
        assert check["confusion"] == {f"{old['score']:g}": {str(human): 1}}


def test_a_human_score_off_the_judges_scale_is_refused(judged_eval: Path, tmp_path: Path) -> None:
    before = records_without_source(judged_eval)
    sheet_path, again = tmp_path / "review.xlsx", tmp_path / "again.jsonl"
    _ok("export", str(judged_eval), "-o", str(sheet_path))
    book, sheet, col = _sheet(sheet_path)
    judged = next(i for i, r in enumerate(before) if r["messages"][-1]["responses"][0].get("metric") == "judge")
    sheet.cell(_row(sheet, col, before[judged]["meta"]["dataset"], before[judged]["session_id"]), col["human_score"], 7)
    book.save(sheet_path)
    refused = runner.invoke(app, ["score", str(sheet_path), "-o", str(again)])
    assert refused.exit_code == 1 and not again.exists()  # refused at its cell, nothing written
    assert "row " in refused.stderr and "the label 7 is outside the judge's scale 0-2" in refused.stderr
    result = _ok("score", str(sheet_path), "-o", str(again), "--skip-bad-labels")
    assert records_without_source(again) == before
    assert "human_score 7 is outside the score's scale: ignored" in result.stderr


@pytest.mark.slow
def test_the_sheet_saved_again_by_libreoffice_keeps_every_score(
    judged_eval: Path, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """A reviewer's spreadsheet program rewrites the file it saves: every fingerprint still matches."""
    office = shutil.which("libreoffice") or shutil.which("soffice")
    if office is None:
        pytest.skip("LibreOffice is not installed (apt-get install -y libreoffice-calc)")
    sheet_path, resaved, again = tmp_path / "review.xlsx", tmp_path / "resaved", tmp_path / "again.jsonl"
    _ok("export", str(judged_eval), "-o", str(sheet_path))
    subprocess.run(
        [office, "--headless", f"-env:UserInstallation=file://{tmp_path}/lo-profile", "--convert-to",
         "xlsx:Calc MS Excel 2007 XML", "--outdir", str(resaved), str(sheet_path)],
        check=True, capture_output=True, timeout=180,
    )  # fmt: skip
    sent = fake_openai.requests
    result = _ok("score", str(resaved / "review.xlsx"), "-o", str(again))
    assert fake_openai.requests == sent
    assert records_without_source(again) == records_without_source(judged_eval)
    assert "0 score(s) changed" in result.stderr


def test_a_panels_judges_reach_the_sheet_and_judge_check(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    # #27's two halves meet: an eval judged by a two-judge panel; the export shows the panel's verdict and a
    # rationale; a reviewer's human_score scores back; judge-check checks each judge and the panel
    def respond(body: dict[str, Any]) -> str:
        text = last_user(body)
        if "<verdict-" in text:
            score = len(text) % 3 if body.get("model") == "j1" else 2
            return f'{{"analysis": "{body.get("model")} read {len(text)} characters", "score": {score}}}'
        return f"answer: {text[:30]}"

    fake_openai.responder = respond
    out = tmp_path / "eval"
    url = fake_openai.base_url
    panel = ["--judge-base-url", url, "--judge-model", "j1", "--judge-model", "j2"]
    _ok("eval", *SETS, "--base-url", url, "--model", "m", "-o", str(out), *panel)
    judged = [r for r in _responses(out / "scored.jsonl") if isinstance(r.get("judge"), dict)]
    assert judged and all([p["model"] for p in r["judge"]["panel"]] == ["j1", "j2"] for r in judged)
    sheet_path = tmp_path / "review.xlsx"
    _ok("export", str(out / "scored.jsonl"), "-o", str(sheet_path))
    book, sheet, col = _sheet(sheet_path)
    rows = [n for n in range(2, sheet.max_row + 1) if sheet.cell(n, col["judge_verdict"]).value is not None]
    assert rows and all(sheet.cell(n, col["judge_rationale"]).value for n in rows)
    for n in rows:
        sheet.cell(n, col["human_score"]).value = 2
    book.save(sheet_path)
    checked = json.loads(_ok("judge-check", str(out / "scored.jsonl"), "--human", str(sheet_path), "--json").stdout)
    judges = json.dumps(checked, ensure_ascii=False)
    assert checked["n"] == len(rows) and "j1" in judges and "j2" in judges
