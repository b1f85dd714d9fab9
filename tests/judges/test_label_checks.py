"""Labels checked like any input (#40 item 2): ``judge-check`` refuses a label off the judge's scale, not a
number, not finite, given twice for one response or matching no record, each named at its line (exit 1,
nothing computed) unless ``--skip-bad-labels``; ``--json`` is valid JSON in every case; an empty labels file
is exit 2. ``score`` of a reviewed sheet holds its ``human_score`` cells to the same rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from typer.testing import CliRunner

from formatkit.cli import app

runner = CliRunner()
#: Verdicts of the hand-made set: sessions 0..5 judged 0, 1, 2, 0, 1, 2 on 0-2.
VERDICTS = [0, 1, 2, 0, 1, 2]


def _record(session: int, score: float, metric: str = "judge") -> dict[str, Any]:
    if metric == "pairwise":
        outcome = "win" if score > 0 else "loss" if score < 0 else "tie"
        entry: dict[str, Any] = {"metric": "pairwise", "model": "j", "status": "scored", "outcome": outcome}
    else:
        entry = {"metric": "judge", "model": "j", "status": "scored", "scale": "0-2"}
    response = {"content": f"answer {session}", "score": score, "metric": metric, "judge": entry}
    return {"session_id": session, "messages": [{"role": "user", "content": f"q{session}"},
            {"role": "assistant", "reference_response": "r", "responses": [response]}]}  # fmt: skip


def _write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join(line if isinstance(line, str) else json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    return _write(tmp_path / "scored.jsonl", [_record(i, float(v)) for i, v in enumerate(VERDICTS)])


def _check(scored: Path, labels: Path, *more: str) -> Any:
    return runner.invoke(app, ["judge-check", str(scored), "--human", str(labels), *more])


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_labels_on_the_scale_are_checked(scored: Path, tmp_path: Path) -> None:
    labels = _write(tmp_path / "l.jsonl", [{"session_id": i, "human": v} for i, v in enumerate(VERDICTS)])
    result = _check(scored, labels, "--json")
    assert result.exit_code == 0, result.output
    summary = _strict_json(result.stdout)
    assert summary["n"] == 6 and summary["kappa"] == 1.0 and summary["skipped_labels"] == 0
    assert "left out" not in result.stderr


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        (5, "the label 5 is outside the judge's scale 0-2"),
        (7, "the label 7 is outside the judge's scale 0-2"),
        (-1e308, "the label -1e+308 is outside the judge's scale 0-2"),
        ("great", 'the label "great" is not a number on the judge\'s scale'),
        (True, "the label True is not a number on the judge's scale"),
        ("nan", 'the label "nan" is not a finite number'),
        ("inf", 'the label "inf" is not a finite number'),
    ],
)
def test_a_bad_label_is_refused_at_its_line_unless_skipped(scored: Path, tmp_path: Path, bad: Any, says: str) -> None:
    lines = [{"session_id": i, "human": v} for i, v in enumerate(VERDICTS)]
    lines[2]["human"] = bad
    labels = _write(tmp_path / "l.jsonl", lines)
    refused = _check(scored, labels)
    assert refused.exit_code == 1 and refused.stdout == ""  # nothing computed
    assert f"{labels}: line 3: {says}" in refused.stderr and "Traceback" not in refused.output
    as_json = _strict_json(_check(scored, labels, "--json").stdout)
    assert as_json["refused"] is True and as_json["bad_labels"] == 1 and says in as_json["problems"][0]
    skipped = _check(scored, labels, "--json", "--skip-bad-labels")
    assert skipped.exit_code == 0
    summary = _strict_json(skipped.stdout)
    assert summary["n"] == 5 and summary["kappa"] == 1.0 and summary["skipped_labels"] == 1  # one label: no change
    assert "1 label(s) left out (--skip-bad-labels)" in skipped.stderr


def test_a_nan_literal_is_a_line_that_is_not_json(scored: Path, tmp_path: Path) -> None:
    labels = _write(tmp_path / "l.jsonl", ['{"session_id": 0, "human": NaN}\n'])
    result = _check(scored, labels, "--json")
    assert result.exit_code == 2 and "line 1 is not JSON" in result.stderr and result.stdout == ""


def test_a_session_labelled_twice_is_refused(scored: Path, tmp_path: Path) -> None:
    lines = [{"session_id": i, "human": v} for i, v in enumerate(VERDICTS)] + [{"session_id": 4, "human": 0}]
    labels = _write(tmp_path / "l.jsonl", lines)
    refused = _check(scored, labels)
    assert refused.exit_code == 1
    assert f"{labels}: line 7: a second label for dataset scored, session 4 (the first is at {labels}: line 5)" in (
        refused.stderr
    )
    summary = _strict_json(_check(scored, labels, "--json", "--skip-bad-labels").stdout)
    assert summary["n"] == 6 and summary["labels"] == 7  # the session counts once


def test_a_label_matching_no_record_is_refused(scored: Path, tmp_path: Path) -> None:
    labels = _write(tmp_path / "l.jsonl", [{"session_id": 0, "human": 0}, {"session_id": 99, "human": 1}])
    refused = _check(scored, labels)
    assert refused.exit_code == 1 and f"{labels}: line 2: no record of the scored file" in refused.stderr
    summary = _strict_json(_check(scored, labels, "--json", "--skip-bad-labels").stdout)
    assert summary["n"] == 1 and summary["unmatched"] == 1


@pytest.mark.parametrize(("bad", "says"), [("C", 'not "C"'), (3, "outside the judge's scale -1..1")])
def test_a_pairwise_label_is_a_b_or_tie(tmp_path: Path, bad: Any, says: str) -> None:
    scored = _write(tmp_path / "s.jsonl", [_record(0, 1.0, "pairwise"), _record(1, -1.0, "pairwise")])
    good = _write(tmp_path / "good.jsonl", [{"session_id": 0, "human": "A"}, {"session_id": 1, "human": -1}])
    assert _strict_json(_check(scored, good, "--json").stdout)["agreement"] == 1.0
    labels = _write(tmp_path / "l.jsonl", [{"session_id": 0, "human": "A"}, {"session_id": 1, "human": bad}])
    refused = _check(scored, labels)
    assert refused.exit_code == 1 and "line 2: " in refused.stderr and says in refused.stderr


def test_a_judge_on_no_scale_of_its_own_takes_labels_from_0_to_1(tmp_path: Path) -> None:
    entry = {"metric": "math-judge", "model": "j", "status": "scored"}
    records = [_record(0, 1.0), _record(1, 0.0)]
    for record in records:
        record["messages"][-1]["responses"][0].update({"metric": "math-judge", "judge": entry})
    scored = _write(tmp_path / "s.jsonl", records)
    good = _write(tmp_path / "good.jsonl", [{"session_id": 0, "human": 1}, {"session_id": 1, "human": 0}])
    assert _strict_json(_check(scored, good, "--json").stdout)["agreement"] == 1.0
    labels = _write(tmp_path / "l.jsonl", [{"session_id": 0, "human": 1}, {"session_id": 1, "human": 2}])
    refused = _check(scored, labels)
    assert refused.exit_code == 1 and "line 2: the label 2 is outside the judge's scale 0-1" in refused.stderr


def test_an_empty_labels_file_is_bad_usage(scored: Path, tmp_path: Path) -> None:
    labels = _write(tmp_path / "l.jsonl", ["\n"])
    result = _check(scored, labels, "--json")
    assert result.exit_code == 2 and "holds no label" in result.stderr and result.stdout == ""


# --- score of a reviewed sheet: its human_score cells -------------------------------------------------


def _sheet_with(scored: Path, tmp_path: Path, human: Any) -> Path:
    sheet_path = tmp_path / "review.xlsx"
    exported = runner.invoke(app, ["export", str(scored), "-o", str(sheet_path)])
    assert exported.exit_code == 0, exported.output
    book = openpyxl.load_workbook(sheet_path)
    sheet = book.active
    col = {c.value: c.column for c in sheet[1]}
    sheet.cell(3, col["human_score"], value=human)  # session 1, judged 1
    book.save(sheet_path)
    return sheet_path


def _score(sheet: Path, out: Path, *more: str) -> Any:
    return runner.invoke(app, ["score", str(sheet), "-o", str(out), *more])


def test_a_human_score_on_the_scale_is_taken(scored: Path, tmp_path: Path) -> None:
    out = tmp_path / "again.jsonl"
    result = _score(_sheet_with(scored, tmp_path, 2), out)
    assert result.exit_code == 0, result.output
    response = json.loads(out.read_text().splitlines()[1])["messages"][-1]["responses"][0]
    assert response["score"] == 2 and response["scored_by"] == "human"


@pytest.mark.parametrize(
    ("human", "says"),
    [(-1e308, "the label -1e+308 is outside the judge's scale 0-2"), (7, "the label 7 is outside the judge's scale"),
     ("nan", "the label nan is not a finite number"), ("inf", "the label inf is not a finite number")],
)  # fmt: skip
def test_a_human_score_that_cannot_be_used_refuses_the_sheet(
    scored: Path, tmp_path: Path, human: Any, says: str
) -> None:
    sheet, out = _sheet_with(scored, tmp_path, human), tmp_path / "again.jsonl"
    refused = _score(sheet, out)
    assert refused.exit_code == 1 and not out.exists()
    assert f"{sheet.name}: sheet results, row 3, human_score: {says}" in refused.stderr
    skipped = _score(sheet, out, "--skip-bad-labels")
    assert skipped.exit_code == 0, skipped.output
    response = json.loads(out.read_text().splitlines()[1])["messages"][-1]["responses"][0]
    assert response["score"] == 1.0 and "scored_by" not in response  # the machine's score stays


def test_a_human_score_that_is_not_a_number_is_an_error_at_its_cell(scored: Path, tmp_path: Path) -> None:
    sheet, out = _sheet_with(scored, tmp_path, "great"), tmp_path / "again.jsonl"
    refused = _score(sheet, out)
    assert refused.exit_code == 1 and not out.exists() and "human_score" in refused.output
