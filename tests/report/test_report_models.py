"""``formatkit report`` over several models: grouped by model, never merged; intervals; paired differences;
pairwise as a win rate; every output (text, md, json, html, xlsx) literal and safe."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, cast

import pytest
from two_models import HOSTILE, build
from typer.testing import CliRunner

import scoring
from formatkit import RecordDict
from formatkit.cli import app
from scoring._report.figures.intervals import wilson
from scoring._report.figures.models import ModelsAggregator

runner = CliRunner()


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build(tmp_path_factory.mktemp("two"))


def _record(
    i: int, score: float | None, *, model: str | None = "m", dataset: str = "set", key: str = "model", **extra: Any
) -> RecordDict:
    response: dict[str, Any] = {"parameters": {}, "content": "x", "score": score, "analysis": "a", **extra}
    if model is not None:
        response[key] = model
    record = {
        "session_id": i,
        "messages": [
            {"role": "user", "content": f"q{i}"},
            {"role": "assistant", "reference_response": "r", "responses": [response]},
        ],
        "meta": {"dataset": dataset},
    }
    return cast(RecordDict, record)  # the response's keys as given (model, or endpoint_id)


def _write(path: Path, records: list[RecordDict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _json(*paths: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["report", *map(str, paths), "--format", "json"])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def test_two_models_on_one_dataset_are_never_merged(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.jsonl", [_record(i, 1.0 if i < 7 else 0.0, model="gpt-x") for i in range(10)])
    b = _write(tmp_path / "b.jsonl", [_record(i, 0.0, model="qwen") for i in range(10)])
    data = _json(a, b)
    assert {m: d["datasets"]["set"]["score"] for m, d in data["models"].items()} == {"gpt-x": 70.0, "qwen": 0.0}
    assert data["model"] == "gpt-x" and data["datasets"]["set"]["score"] == 70.0  # today's keys: first model
    assert data["models"]["gpt-x"]["overall"] == 70.0 and data["models"]["qwen"]["overall"] == 0.0


@pytest.mark.parametrize(
    ("key", "model", "expected"),
    [
        pytest.param("model", "gpt-x", "gpt-x", id="model"),
        pytest.param("endpoint_id", "ep-123", "ep-123", id="seed-endpoint_id-alias"),
        pytest.param("model", None, "(unknown model)", id="no-model"),
    ],
)
def test_the_model_is_read_from_each_response(tmp_path: Path, key: str, model: str | None, expected: str) -> None:
    path = _write(tmp_path / "r.jsonl", [_record(0, 1.0, model=model, key=key)])
    assert list(_json(path)["models"]) == [expected]


def test_majority_votes_over_answers_not_the_analysis(tmp_path: Path) -> None:
    record = _record(0, None)
    record["messages"][-1]["responses"] = [
        {"content": c, "score": s, "answer": c, "metric": "exact", "settled": True, "analysis": "no marker"}
        for c, s in (("Paris", 1.0), ("London", 0.0), ("London", 0.0))
    ]
    data = _json(_write(tmp_path / "maj.jsonl", [record]))
    assert data["datasets"]["set"]["majority"] == 0.0 and data["datasets"]["set"]["score"] == 33.33


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        pytest.param(7, 10, 39.68, 89.22, id="7-of-10"),
        pytest.param(0, 10, 0.0, 27.75, id="none-right"),
        pytest.param(10, 10, 72.25, 100.0, id="all-right"),
    ],
)
def test_wilson_interval_matches_the_formula(successes: int, n: int, low: float, high: float) -> None:
    interval = wilson(successes, n)
    assert interval is not None and (interval.low, interval.high, interval.method) == (low, high, "wilson")


def test_partial_scores_get_a_reproducible_bootstrap_interval(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.jsonl", [_record(i, [0.25, 0.5, 1.0, 0.0][i % 4]) for i in range(40)])
    first, second = _json(path), _json(path)
    stats = first["datasets"]["set"]
    assert stats["interval"] == "bootstrap" and stats["ci"][0] < stats["score"] < stats["ci"][1]
    assert first["datasets"]["set"]["ci"] == second["datasets"]["set"]["ci"]  # a fixed seed
    assert first["overall_ci"] == stats["ci"]  # one dataset, one dimension: the same interval


def _paired(tmp_path: Path, right_a: int, right_b: int, n: int = 300) -> dict[str, Any]:
    a = [_record(i, 1.0 if i < right_a else 0.0, model="a") for i in range(n)]
    b = [_record(i, 1.0 if (i + 7) % n < right_b else 0.0, model="b") for i in range(n)]
    data = _json(_write(tmp_path / "a.jsonl", a), _write(tmp_path / "b.jsonl", b))
    [diff] = data["comparisons"]
    return dict(diff)


def test_a_small_gap_on_300_items_is_noise(tmp_path: Path) -> None:
    diff = _paired(tmp_path, 214, 211)  # 71.3 vs 70.3
    assert diff["records"] == 300 and diff["difference"] == 1.0
    assert diff["ci"][0] < 0 < diff["ci"][1] and diff["significant"] is False


def test_a_large_gap_is_significant(tmp_path: Path) -> None:
    diff = _paired(tmp_path, 240, 150)
    assert diff["difference"] == 30.0 and diff["ci"][0] > 0 and diff["significant"] is True


def test_pairwise_enters_its_dimension_as_a_win_rate(two: tuple[Path, Path]) -> None:
    data = _json(*two)
    a = data["models"]["model-a"]
    writing = a["datasets"]["writing"]
    assert writing["pairwise"]["mean_x100"] == 40.0  # (1 + 1 + 0 - 1 + 1) / 5, its own scale
    assert writing["win_rate"] == 70.0  # (1 + 1 + 0.5 + 0 + 1) / 5
    boolq = a["datasets"]["boolq"]["score"]
    assert a["dimensions"]["语言创作"]["score"] == pytest.approx((boolq + 70.0) / 2, abs=0.01)


def test_two_models_json_has_models_comparisons_and_interval_method(two: tuple[Path, Path]) -> None:
    data = _json(*two)
    assert list(data["models"]) == ["model-a", "model-b"]
    for model in data["models"].values():
        assert set(model) >= {"overall", "overall_ci", "dimensions", "datasets"}
        for stats in model["datasets"].values():
            assert stats["interval"] in ("wilson", "bootstrap") and len(stats["ci"]) == 2
    scopes = {d["scope"] for d in data["comparisons"]}
    assert {"mmlu_pro", "gsm8k", "overall"} <= scopes
    assert "Wilson" in data["intervals"]["note"] and data["intervals"]["seed"] > 0


def test_text_report_prints_names_literally(two: tuple[Path, Path]) -> None:
    result = runner.invoke(app, ["report", *map(str, two)])
    assert result.exit_code == 0, result.output
    assert HOSTILE in result.stdout  # [/b] is not rich markup, <script> is text
    header = next(line for line in result.stdout.splitlines() if "model-a" in line and "model-b" in line)
    assert header.index("model-a") < header.index("model-b")  # the models are columns


def test_markdown_escapes_names(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.jsonl", [_record(0, 1.0, model="a|b", dataset="*bold*_<i>")])
    result = runner.invoke(app, ["report", str(path), "--format", "md"])
    assert "a\\|b" in result.stdout and "\\*bold\\*\\_\\<i\\>" in result.stdout
    assert "<i>" not in result.stdout


def test_xlsx_report_is_readable_and_never_a_formula(two: tuple[Path, Path], tmp_path: Path) -> None:
    from openpyxl import load_workbook

    out = tmp_path / "r.xlsx"
    assert runner.invoke(app, ["report", *map(str, two), "--format", "xlsx", "-o", str(out)]).exit_code == 0
    sheet = load_workbook(out)["Leaderboard"]
    assert sheet.freeze_panes == "A2" and sheet.auto_filter.ref and sheet["A1"].font.b
    hostile = [c for c in sheet["B"] if c.value == HOSTILE]
    assert hostile and all(c.data_type == "s" for c in hostile)
    header = [c.value for c in sheet[1]]
    assert header[3:] == [
        "model-a",
        "model-a low",
        "model-a high",
        "model-b",
        "model-b low",
        "model-b high",
        "Δ model-b − model-a",
    ]
    overall = [c.value for c in sheet[sheet.max_row]]
    assert overall[0] == "overall" and all(isinstance(v, int | float) for v in overall[3:])  # 74.0 reads as 74


def test_html_report_escapes_everything_and_needs_no_network(two: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    assert runner.invoke(app, ["report", *map(str, two), "--format", "html", "-o", str(out)]).exit_code == 0
    page = out.read_text(encoding="utf-8")
    # Replies travel as JSON with no "<" at all (never "</script>"); the script puts them in as text.
    assert "<script>window.pwned" not in page and "\\u003cscript>window.pwned=1\\u003c/script>" in page
    assert "<script>alert(1)" not in page
    assert not re.search(r"""(src|href)\\s*=\\s*["']?(https?:)?//""", page)  # no CDN, nothing remote
    assert page.count("<script>") == 1  # the browser's script, inline
    data = re.search(
        r'<script type="application/json" id="report-data" data-encoding="json">(.*?)</script>', page, re.S
    )
    assert data is not None
    questions = json.loads(data.group(1))["questions"]
    assert len(questions) == 66 + 1 + 5 and all(len(q["a"]) == 2 for q in questions)


def test_aggregate_api_groups_by_model() -> None:
    aggregator = ModelsAggregator()
    for i in range(4):
        aggregator.add(_record(i, 1.0, model="x"))
        aggregator.add(_record(i, 0.0, model="y"))
    comparison = aggregator.finish()
    assert {m: a.overall for m, a in comparison.models.items()} == {"x": 100.0, "y": 0.0}
    assert comparison.differences[0].difference == 100.0
    assert scoring.aggregate([_record(0, 1.0)]).overall == 100.0  # the one-model API is unchanged


def test_json_report_matches_the_published_schema(two: tuple[Path, Path]) -> None:
    import jsonschema

    schema = json.loads((Path(__file__).parents[2] / "schemas" / "report-results.schema.json").read_text("utf-8"))
    data = _json(*two)
    jsonschema.validate(data, schema)
    data["models"]["model-a"]["overall_ci"] = [1.0]  # an interval is two numbers
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)


def test_an_excel_sheet_names_its_model_with_seed_endpoint_id(tmp_path: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["session_id", "query", "reference_response", "response", "endpoint_id"])
    sheet.append([0, "1+1=?", "2", "答案是2", "ep-7"])
    sheet.append([1, "2+2=?", "4", "5", "ep-7"])
    source, scored = tmp_path / "collected.xlsx", tmp_path / "scored.jsonl"
    book.save(source)
    result = runner.invoke(app, ["score", str(source), "-o", str(scored), "--metric", "exact"])
    assert result.exit_code == 0, result.output
    data = _json(scored)
    assert list(data["models"]) == ["ep-7"] and data["models"]["ep-7"]["overall"] == 50.0


def test_text_on_a_terminal_fits_its_width_and_has_colour(two: tuple[Path, Path]) -> None:
    from scoring._report.render.leaderboard import render_comparison

    aggregator = ModelsAggregator()
    for path in two:
        for line in path.read_text(encoding="utf-8").splitlines():
            aggregator.add(json.loads(line), path.stem)
    comparison = aggregator.finish()
    text = render_comparison(comparison, "text", color=True, width=90)
    assert "\x1b[" in text
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert max(len(line) for line in plain.splitlines()) <= 90
    wide = render_comparison(comparison, "text")
    assert "\x1b[" not in wide and max(len(line) for line in wide.splitlines()) > 90
