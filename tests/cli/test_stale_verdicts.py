"""A verdict belongs to the text it judged (#40 item 1).

Each judge entry carries the fingerprint of the response it judged (a comparison's, of its opponent too).
Edit a judged response in the exported sheet and ``score`` it: without judge options it keeps no judge
score (its verdict moved to ``stale_verdict``, the score null with the reason); with them it is judged
again, and only it. The re-exported sheet and ``judge-check`` leave a stale verdict out and say how many.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from fakeserver import FakeOpenAI
from review_fakes import ok as _ok
from review_fakes import respond as _respond
from roundtrip import records_without_source
from typer.testing import CliRunner

SEED = Path(__file__).parents[2] / "fixtures" / "seed"
SETS = [str(SEED / n) for n in ("seed_excel_single_turn.xlsx", "seed_jsonl_single_turn.jsonl")]
EDITED = "a different answer, written after the judge read the first"
runner = CliRunner()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _responses(path: Path) -> list[dict[str, Any]]:
    return [r["messages"][-1]["responses"][0] for r in records_without_source(path)]


@pytest.fixture
def judged_eval(fake_openai: FakeOpenAI, tmp_path: Path) -> Path:
    fake_openai.responder = _respond
    out = tmp_path / "eval"
    url = fake_openai.base_url
    _ok("eval", *SETS, "--base-url", url, "--model", "m", "-o", str(out), "--judge-base-url", url, "--judge-model", "j")
    return out / "scored.jsonl"


def _edit_a_judged_response(scored: Path, sheet_path: Path) -> dict[str, Any]:
    """Export ``scored``, write :data:`EDITED` into the first judged response's cell; that record."""
    _ok("export", str(scored), "-o", str(sheet_path))
    book = openpyxl.load_workbook(sheet_path)
    sheet = book.active
    col = {c.value: c.column for c in sheet[1]}
    row = next(
        n for n in range(2, sheet.max_row + 1) if sheet.cell(n, col["judge_verdict"]).value not in (None, "void")
    )
    record = next(
        r for r in records_without_source(scored)
        if r["session_id"] == sheet.cell(row, col["session_id"]).value
        and r["meta"]["dataset"] == sheet.cell(row, col["dataset"]).value
    )  # fmt: skip
    sheet.cell(row, col["response"], value=EDITED)
    book.save(sheet_path)
    return record


def test_a_verdict_carries_the_fingerprint_of_the_text_it_judged(judged_eval: Path) -> None:
    judged = [r for r in _responses(judged_eval) if isinstance(r.get("judge"), dict)]
    assert len(judged) >= 2
    assert all(r["judge"]["fingerprint"] == _sha(r["content"]) for r in judged)


def test_a_comparison_carries_its_opponents_fingerprint(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = lambda body: '{"analysis": "compared", "choice": "A+"}' if body["model"] == "j" else "x"
    url = fake_openai.base_url
    answered = tmp_path / "answered.jsonl"
    _ok("run", str(SEED / "seed_jsonl_single_turn.jsonl"), "--base-url", url, "--model", "m", "-o", str(answered))
    scored = tmp_path / "pairwise.jsonl"
    _ok(
        "score", str(answered), "-o", str(scored), "--metric", "pairwise", "--judge-base-url", url, "--judge-model", "j"
    )
    for record in records_without_source(scored):
        entry = record["messages"][-1]["responses"][0]["judge"]
        assert entry["opponent_fingerprint"] == _sha(record["messages"][-1]["reference_response"])
    # the reference edited after judging: the verdict is stale, judge-check leaves it out
    records = records_without_source(scored)
    records[0]["messages"][-1]["reference_response"] += " (corrected)"
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"session_id": r["session_id"], "human": "A"}) + "\n" for r in records))
    check = json.loads(_ok("judge-check", str(edited), "--human", str(labels), "--json").stdout)
    assert check["stale"] == 1 and check["n"] == len(records) - 1


def test_an_edited_response_keeps_no_judge_score_without_judge_options(
    judged_eval: Path, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    sheet_path, again, resheet = tmp_path / "review.xlsx", tmp_path / "again.jsonl", tmp_path / "again.xlsx"
    record = _edit_a_judged_response(judged_eval, sheet_path)
    old = record["messages"][-1]["responses"][0]
    sent = fake_openai.requests
    result = _ok("score", str(sheet_path), "-o", str(again))
    assert fake_openai.requests == sent
    assert "the judge's verdict was given on another text" in result.stderr
    after = {(r["meta"]["dataset"], r["session_id"]): r for r in records_without_source(again)}
    response = after[(record["meta"]["dataset"], record["session_id"])]["messages"][-1]["responses"][0]
    assert response["content"] == EDITED and "judge" not in response
    assert response["score"] is None and response["settled"] is False
    assert response["unsettled_reason"].startswith("stale verdict")
    assert response["stale_verdict"]["reason"] == "response_edited"
    assert response["stale_verdict"]["judged"] == _sha(old["content"]) and response["stale_verdict"]["now"] == _sha(
        EDITED
    )
    assert response["stale_verdict"]["judge"] == old["judge"]  # nothing lost
    fresh = [r for r in _responses(again) if isinstance(r.get("judge"), dict)]
    assert fresh and all(r["judge"]["fingerprint"] == _sha(r["content"]) for r in fresh)  # the others kept theirs

    # the re-exported sheet: no verdict beside the new text, and says how many were left out
    exported = _ok("export", str(again), "-o", str(resheet))
    assert "1 judge verdict(s) given on another text (the response edited after judging) left out" in exported.stderr
    sheet = openpyxl.load_workbook(resheet).active
    col = {c.value: c.column for c in sheet[1]}
    row = next(n for n in range(2, sheet.max_row + 1) if sheet.cell(n, col["response"]).value == EDITED)
    assert sheet.cell(row, col["judge_verdict"]).value is None and sheet.cell(row, col["judge"]).value is None
    assert sheet.cell(row, col["score"]).value is None

    # judge-check pairs no label with a verdict on another text: left out, counted
    labels = tmp_path / "labels.jsonl"
    lines = [{"dataset": r["meta"]["dataset"], "session_id": r["session_id"], "human": 1} for r in after.values()]
    labels.write_text("".join(json.dumps(line) + "\n" for line in lines))
    check = json.loads(_ok("judge-check", str(again), "--human", str(labels), "--json", "--skip-bad-labels").stdout)
    assert check["stale"] == 1 and check["n"] == len(fresh)


def test_an_edited_response_is_judged_again_with_judge_options(
    judged_eval: Path, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    sheet_path, again = tmp_path / "review.xlsx", tmp_path / "again.jsonl"
    record = _edit_a_judged_response(judged_eval, sheet_path)
    sent = fake_openai.requests
    url = fake_openai.base_url
    _ok("score", str(sheet_path), "-o", str(again), "--judge-base-url", url, "--judge-model", "j")
    assert fake_openai.requests == sent + 1  # the edited response only: every other verdict stands
    after = {(r["meta"]["dataset"], r["session_id"]): r for r in records_without_source(again)}
    response = after[(record["meta"]["dataset"], record["session_id"])]["messages"][-1]["responses"][0]
    assert response["judge"]["fingerprint"] == _sha(EDITED) and response["score"] is not None
    assert response["stale_verdict"]["judge"] == record["messages"][-1]["responses"][0]["judge"]


def test_a_hand_edited_results_file_has_stale_verdicts_in_judge_check_and_export(
    judged_eval: Path, tmp_path: Path
) -> None:
    records = records_without_source(judged_eval)
    judged = [r for r in records if isinstance(r["messages"][-1]["responses"][0].get("judge"), dict)]
    judged[0]["messages"][-1]["responses"][0]["content"] = EDITED  # edited in the jsonl, not in a sheet
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    labels = tmp_path / "labels.jsonl"
    lines = [{"dataset": r["meta"]["dataset"], "session_id": r["session_id"], "human": 1} for r in judged]
    labels.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = _ok("judge-check", str(edited), "--human", str(labels), "--json")
    check = json.loads(result.stdout)
    assert check["stale"] == 1 and check["n"] == len(judged) - 1
    assert "1 labelled response(s) carry a verdict given on another text" in result.stderr
    exported = _ok("export", str(edited), "-o", str(tmp_path / "e.xlsx"))
    assert "1 judge verdict(s) given on another text (the response edited after judging) left out" in exported.stderr
    unedited = _ok("export", str(judged_eval), "-o", str(tmp_path / "u.xlsx"))
    assert "given on another text" not in unedited.stderr
