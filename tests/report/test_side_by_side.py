"""Models side by side in the xlsx report (the Questions sheet, the leaderboard's grouping, best and deltas),
the charts' labels, and the HTML page's size: what a reviewer reads without the HTML's script."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook
from two_models import build
from typer.testing import CliRunner

from formatkit import RecordDict
from formatkit.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build(tmp_path_factory.mktemp("two"))


@pytest.fixture(scope="module")
def workbook(two: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Any:
    out = tmp_path_factory.mktemp("xlsx") / "report.xlsx"
    result = runner.invoke(app, ["report", *map(str, two), "--format", "xlsx", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return load_workbook(out)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_questions_sheet_has_one_row_per_question_with_each_models_answer_and_score(
    two: tuple[Path, Path], workbook: Any
) -> None:
    sheet = workbook["Questions"]
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0] == (
        "dataset",
        "session_id",
        "question",
        "reference",
        "model-a answer",
        "model-a extracted",
        "model-a score",
        "model-a rationale",
        "model-b answer",
        "model-b extracted",
        "model-b score",
        "model-b rationale",
        "models disagree",
    )
    a, b = (_lines(p) for p in two)
    assert len(rows) - 1 == len(a) == len(b)  # the same items: one row each, both models on it
    for row, ra, rb in zip(rows[1:], a, b, strict=True):  # in the files' order
        assert (row[0], row[2]) == (ra["meta"]["dataset"], ra["messages"][-2]["content"])
        first_a, first_b = ra["messages"][-1]["responses"][0], rb["messages"][-1]["responses"][0]
        assert row[3] == ra["messages"][-1]["reference_response"]
        # openpyxl leaves Excel's escape of a literal "_x0041_" (_x005F_) as it is; Excel shows the text.
        assert (row[4] or "").replace("_x005F_", "_").split("\n[+")[0] == (
            first_a.get("content") or first_a.get("error") or ""
        )
        assert (row[8] or "").replace("_x005F_", "_").split("\n[+")[0] == (
            first_b.get("content") or first_b.get("error") or ""
        )
        if len(ra["messages"][-1]["responses"]) == 1 and first_a.get("score") is not None:
            assert row[6] == first_a["score"] and isinstance(row[6], int | float)  # a number, not text
        if first_a.get("answer"):
            assert first_a["answer"] in row[5]
    gave_up = [r for r in rows[1:] if r[8] == "I am not sure."]
    assert gave_up and any(r[10] == 0 for r in gave_up)
    assert any(r[11] and "no answer found" in r[11] for r in gave_up)  # the rationale beside the answer
    assert any(r[12] is True for r in rows[1:]) and any(r[12] is False for r in rows[1:])
    # Scores are coloured right / wrong, as the results sheet colours them.
    fills = {c.fill.fgColor.rgb[-6:] for c in sheet["G"][1:] if c.value is not None}
    assert {"C6EFCE", "FFC7CE"} <= fills
    assert sheet.freeze_panes == "A2" and sheet.auto_filter.ref


def test_leaderboard_sheet_groups_each_dimension_with_its_datasets_and_has_deltas(workbook: Any) -> None:
    rows = list(workbook["Leaderboard"].iter_rows(values_only=True))
    head = rows[0]
    assert head[-1] == "Δ model-b − model-a"
    body = rows[1:-1]
    dims = [r[0] for r in body]
    # Each dimension's rows are together: no dimension comes back after another one started.
    assert [d for i, d in enumerate(dims) if i == 0 or dims[i - 1] != d] == list(dict.fromkeys(dims))
    for r in body:
        if r[3] is not None and r[6] is not None:
            # Δ is the difference of the unrounded scores (#40): within a rounding step of the cells' difference
            assert r[-1] == pytest.approx(r[6] - r[3], abs=0.0101)
    overall = rows[-1]
    assert overall[0] == "overall" and overall[-1] < 0  # model-b gave up on every third item


def test_text_leaderboard_puts_each_dimension_above_its_datasets(two: tuple[Path, Path]) -> None:
    result = runner.invoke(app, ["report", *map(str, two), "--format", "md"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("| 推理数学")]
    assert "(dimension)" in lines[0] and "gsm8k" in lines[1] and "math\\_mixed" in lines[2]


def test_short_labels_tell_a_suites_names_apart() -> None:
    from scoring._report.render.html import short_labels

    names = ["ceval_high_school_physics", "ceval_high_school_chemistry", "ceval_high_school_biology"]
    assert short_labels(names, 12) == ["physics", "chemistry", "biology"]
    long = ["ceval_high_school_physics_part_one", "ceval_middle_school_physics_part_one", "ceval_college_physics"]
    labels = short_labels(long, 14)
    assert len(set(labels)) == 3 and all(len(label) <= 14 for label in labels)
    assert short_labels(["推理数学", "语言创作", "综合能力"], 12) == ["推理数学", "语言创作", "综合能力"]


def test_radar_axes_are_numbered_short_names_with_a_legend(tmp_path: Path) -> None:
    records = []
    for n, name in enumerate(["ceval_high_school_physics", "ceval_high_school_chemistry", "ceval_high_school_math"]):
        for i in range(3):
            records.append(
                {
                    "session_id": i,
                    "messages": [
                        {"role": "user", "content": f"{name} {i}"},
                        {
                            "role": "assistant",
                            "reference_response": "A",
                            "responses": [{"parameters": {}, "content": "A", "score": float(i != n), "model": "m"}],
                        },
                    ],
                    "meta": {"dataset": name},
                }
            )
    path = tmp_path / "ceval.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "r.html"
    assert runner.invoke(app, ["report", str(path), "--format", "html", "-o", str(out)]).exit_code == 0
    page = out.read_text(encoding="utf-8")
    labels = re.findall(r'<text class="radar-label"[^>]*>([^<]*)<title>([^<]*)</title>', page)
    assert labels == [
        ("1 physics", "ceval_high_school_physics"),
        ("2 chemistry", "ceval_high_school_chemistry"),
        ("3 math", "ceval_high_school_math"),
    ]
    assert page.count("<td>ceval_high_school_chemistry</td>") >= 1  # the legend's full name


def test_eval_writes_a_report_xlsx_with_the_questions(fake_openai: Any, tmp_path: Path) -> None:
    seed = Path(__file__).parents[2] / "fixtures" / "seed"
    sets = [str(seed / "seed_jsonl_single_turn.jsonl"), str(seed / "seed_jsonl_multi_turn.jsonl")]
    out = tmp_path / "eval"
    result = runner.invoke(app, ["eval", *sets, "--base-url", fake_openai.base_url, "--model", "m", "-o", str(out)])
    assert result.exit_code == 0, result.output
    book = load_workbook(out / "report.xlsx", read_only=True)
    assert book.sheetnames[:2] == ["Leaderboard", "Questions"]
    rows = list(book["Questions"].iter_rows(values_only=True))
    assert len(rows) - 1 == len(_lines(out / "scored.jsonl"))
    assert {r[0] for r in rows[1:]} == {"seed_jsonl_single_turn", "seed_jsonl_multi_turn"}


def test_the_question_cap_keeps_every_models_answer_to_the_questions_it_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    from scoring._report.figures import questions

    monkeypatch.setattr(questions, "MAX_QUESTIONS", 3)
    collector = questions.SampleCollector()
    for model in ("a", "b"):  # one model's file after the other, as report reads them
        for i in range(5):
            record: RecordDict = {
                "session_id": i,
                "messages": [
                    {"role": "user", "content": f"q{i}"},
                    {"role": "assistant", "reference_response": "1", "responses": [{"content": "1", "score": 1.0}]},
                ],
            }
            collector.add(record, model, "set")
    assert len(collector.questions) == 3 and all(len(q.answers) == 2 for q in collector.questions)
    assert collector.left_out == 4
