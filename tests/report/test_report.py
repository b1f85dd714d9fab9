"""``formatkit report``: dataset → dimension → overall, in text, Markdown and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from formatkit import RecordDict
from formatkit.cli import app

RESPONSES = Path(__file__).parents[2] / "fixtures" / "responses"
runner = CliRunner()


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    base = tmp_path_factory.mktemp("scored")
    paths = []
    for name in ("mmlu_pro", "gsm8k", "math_mixed", "yes_no"):
        out = base / f"{name}.results.jsonl"
        result = runner.invoke(app, ["score", str(RESPONSES / f"{name}.jsonl"), "-o", str(out), "--json"])
        assert result.exit_code == 0, result.output
        paths.append(out)
    return paths


def test_json_report(scored: list[Path]) -> None:
    result = runner.invoke(app, ["report", *map(str, scored), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data["datasets"]) == {"mmlu_pro", "gsm8k", "math_mixed", "boolq"}
    assert set(data["dimensions"]) == {"综合能力", "推理数学", "语言创作"}
    dims = data["dimensions"]
    assert data["overall"] == pytest.approx(sum(d["score"] for d in dims.values()) / 3, abs=0.01)
    assert data["datasets"]["math_mixed"]["metric"] == "mixed"  # auto: 24 records by math, 1 by choice
    assert data["datasets"]["mmlu_pro"]["errors"] == 2
    assert data["usage"]["total_tokens"] > 0
    assert data["datasets"]["mmlu_pro"]["samples"] == 3


def test_text_report_is_a_table(scored: list[Path]) -> None:
    result = runner.invoke(app, ["report", *map(str, scored)])
    assert result.exit_code == 0
    for word in ("dataset", "mmlu_pro", "推理数学", "overall", "tokens", "strict", "(unknown model)", "wilson"):
        assert word in result.stdout
    assert "\x1b[" not in result.stdout  # colour only on a terminal


def test_markdown_report(scored: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    result = runner.invoke(app, ["report", *map(str, scored), "--format", "md", "-o", str(out)])
    assert result.exit_code == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("### Leaderboard")
    assert "| dimension | dataset | metric | \\(unknown model\\) |" not in text  # parentheses need no escape
    assert "| dimension | dataset | metric | (unknown model) |" in text
    assert "| overall |" in text


def test_dimensions_file_overrides(scored: list[Path], tmp_path: Path) -> None:
    mapping = tmp_path / "dims.json"
    mapping.write_text(json.dumps({"mmlu_pro": "知识", "gsm8k": "知识", "math_mixed": "知识", "boolq": "知识"}))
    result = runner.invoke(app, ["report", *map(str, scored), "--dimensions", str(mapping), "--format", "json"])
    data = json.loads(result.stdout)
    assert list(data["dimensions"]) == ["知识"]
    scores = [d["score"] for d in data["datasets"].values()]
    assert data["overall"] == pytest.approx(sum(scores) / 4, abs=0.01)


def test_dataset_defaults_to_file_stem(tmp_path: Path) -> None:
    rec = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "reference_response": "B",
                "responses": [{"content": "B", "score": 1.0, "analysis": "choice: ok"}],
            },
        ],
    }
    path = tmp_path / "my_set.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    data = json.loads(runner.invoke(app, ["report", str(path), "--format", "json"]).stdout)
    assert list(data["datasets"]) == ["my_set"]
    assert data["overall"] == 100.0


def test_html_report(scored: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["report", *map(str, scored), "--format", "html", "-o", str(out)])
    assert result.exit_code == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<td>推理数学</td>" in page and "overall" in page
    assert "<svg" in page and 'id="samples"' in page


def test_xlsx_report(scored: list[Path], tmp_path: Path) -> None:
    from openpyxl import load_workbook

    out = tmp_path / "report.xlsx"
    result = runner.invoke(app, ["report", *map(str, scored), "--format", "xlsx", "-o", str(out)])
    assert result.exit_code == 0, result.output
    wb = load_workbook(out)
    assert wb.sheetnames == ["Leaderboard", "Questions", "Details", "Differences", "Notes"]
    rows = list(wb["Leaderboard"].iter_rows(values_only=True))
    assert rows[0] == (
        "dimension",
        "dataset",
        "metric",
        "(unknown model)",
        "(unknown model) low",
        "(unknown model) high",
    )
    assert {r[1] for r in rows[1:] if r[1] != "(dimension)"} == {"mmlu_pro", "gsm8k", "math_mixed", "boolq", None}
    assert rows[-1][0] == "overall" and isinstance(rows[-1][3], float) and rows[-1][4] <= rows[-1][3] <= rows[-1][5]


def test_xlsx_needs_an_output_path(scored: list[Path]) -> None:
    result = runner.invoke(app, ["report", str(scored[0]), "--format", "xlsx"])
    assert result.exit_code == 2
    assert "-o" in result.output


def test_bad_line_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("{not json\n")
    result = runner.invoke(app, ["report", str(path)])
    assert result.exit_code == 2
    assert "line 1" in result.output


def test_bad_dimensions_file_exits_2(scored: list[Path], tmp_path: Path) -> None:
    mapping = tmp_path / "dims.json"
    mapping.write_text("[1, 2]")
    assert runner.invoke(app, ["report", str(scored[0]), "--dimensions", str(mapping)]).exit_code == 2


def _judged(score: float, scale: str, judge_tokens: int) -> RecordDict:
    return {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "写一首诗"},
            {
                "role": "assistant",
                "reference_response": "…",
                "responses": [
                    {
                        "parameters": {},
                        "content": "春眠不觉晓",
                        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
                        "score": score,
                        "analysis": "ok",
                        "judge": {
                            "metric": "judge",
                            "scale": scale,
                            "usage": {
                                "prompt_tokens": judge_tokens,
                                "completion_tokens": 1,
                                "total_tokens": judge_tokens + 1,
                            },
                        },
                    }
                ],
            },
        ],
        "meta": {"dataset": "poems"},
    }


def test_absolute_judge_scores_are_mapped_from_their_scale_to_0_100() -> None:
    from scoring import aggregate

    agg = aggregate([_judged(2.0, "0-2", 100), _judged(1.0, "0-2", 100), _judged(10, "1-10", 100)])
    assert agg.datasets["poems"].score == pytest.approx(83.33, abs=0.01)  # (1 + 0.5 + 1) / 3, rounded
    assert agg.usage["total_tokens"] == 30
    assert agg.judge_usage == {"prompt_tokens": 300, "completion_tokens": 3, "total_tokens": 303}
    assert agg.to_dict()["judge_usage"]["total_tokens"] == 303


def test_a_file_never_scored_is_named_with_the_fix(scored: list[Path]) -> None:
    unscored = RESPONSES / "gsm8k.jsonl"  # responses collected, not scored yet
    result = runner.invoke(app, ["report", str(unscored), str(scored[0]), "--format", "json"])
    assert result.exit_code == 0
    assert "gsm8k: no response has been scored; run `formatkit score`" in result.output
    assert "mmlu_pro" not in result.output.split("{", 1)[0]  # the scored file draws no such line


def test_unscorable_responses_are_not_mistaken_for_an_unscored_file(tmp_path: Path) -> None:
    record = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "Q"},
            {"role": "assistant", "reference_response": "A", "responses": [{"parameters": {}, "error": "timeout"}]},
        ],
    }
    source, out = tmp_path / "failed.jsonl", tmp_path / "failed.results.jsonl"
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    runner.invoke(app, ["score", str(source), "-o", str(out), "--metric", "choice"])
    result = runner.invoke(app, ["report", str(out)])
    assert result.exit_code == 0
    assert "no response has been scored" not in result.output
