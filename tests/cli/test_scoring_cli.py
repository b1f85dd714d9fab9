"""``formatkit score`` from the command line: outputs, summary JSON, exit codes, judge hand-off."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

ROOT = Path(__file__).parents[2]
RESPONSES = ROOT / "fixtures" / "responses"
runner = CliRunner()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def test_score_writes_every_record_in_order(tmp_path: Path) -> None:
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(RESPONSES / "mmlu_pro.jsonl"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    src = read_jsonl(RESPONSES / "mmlu_pro.jsonl")
    got = read_jsonl(out)
    assert [r["session_id"] for r in got] == [r["session_id"] for r in src]
    for record in got:
        for response in record["messages"][-1]["responses"]:
            assert "score" in response and response["analysis"]
    assert "Overall" in result.stdout
    assert "mmlu_pro" in result.stdout


def test_unscorable_response_written_with_null_score_and_reason(tmp_path: Path) -> None:
    out = tmp_path / "scored.jsonl"
    runner.invoke(app, ["score", str(RESPONSES / "mmlu_pro.jsonl"), "-o", str(out)])
    failed = next(r for r in read_jsonl(out) if r["session_id"] == 11)["messages"][-1]["responses"][0]
    assert failed["score"] is None
    assert "inference failed" in failed["analysis"]


def test_chinese_is_not_escaped(tmp_path: Path) -> None:
    out = tmp_path / "scored.jsonl"
    runner.invoke(app, ["score", str(RESPONSES / "yes_no.jsonl"), "-o", str(out)])
    text = out.read_text(encoding="utf-8")
    assert "水是湿的吗" in text and "\\u" not in text


def test_json_summary(tmp_path: Path) -> None:
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(RESPONSES / "math_mixed.jsonl"), "-o", str(out), "--json"])
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    ds = summary["datasets"]["math_mixed"]
    assert ds["metric"] == "mixed" and ds["note"].startswith("chosen per record: 24 math, 1 choice")
    assert isinstance(ds["score"], float) and 0 <= ds["score"] <= 100
    assert ds["records"] == 25 and ds["errors"] == 1
    assert summary["overall"] == ds["score"]


@pytest.mark.parametrize(("metric", "code"), [("choice", 1), ("exact", 0), ("math", 0), ("auto", 0)])
def test_every_rule_metric_runs(tmp_path: Path, metric: str, code: int) -> None:
    """GSM8K references are numbers: choice can score none of them (exit 1), the others can."""
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(RESPONSES / "gsm8k.jsonl"), "-o", str(out), "--metric", metric, "--json"])
    assert result.exit_code == code, result.output
    assert json.loads(result.stdout)["datasets"]["gsm8k"]["metric"] in (metric, "exact")


def test_invalid_input_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"prompt": "q", "answer": "a"}])  # scored mode needs a response
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(bad), "-o", str(out)])
    assert result.exit_code == 1
    assert not out.exists()
    assert "missing_response" in result.output


def test_nothing_scorable_exits_1(tmp_path: Path) -> None:
    essay = "A long reference answer about the history of the city, in many many words. " * 5
    rec = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "reference_response": essay, "responses": [{"parameters": {}, "content": "short"}]},
        ],
    }
    src = write_jsonl(tmp_path / "essays.jsonl", [rec])
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(src), "-o", str(out), "--json"])
    assert result.exit_code == 1
    assert out.exists()  # the records are still written, each with its reason
    assert "judge" in read_jsonl(out)[0]["messages"][-1]["responses"][0]["analysis"]


def test_single_turn_jsonl_in_scored_mode(tmp_path: Path) -> None:
    out = tmp_path / "scored.jsonl"
    src = ROOT / "fixtures" / "valid" / "scored_single_turn.jsonl"
    result = runner.invoke(app, ["score", str(src), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert read_jsonl(out)[0]["messages"][-1]["responses"][0]["score"] == 1.0


def test_excel_sheet_in_scored_mode(tmp_path: Path) -> None:
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(RESPONSES / "scored_sheet.xlsx"), "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    scores = [r["messages"][-1]["responses"][0]["score"] for r in read_jsonl(out)]
    assert scores == [1.0, 1.0, 0.0]


def test_missing_path_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["score", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 2


def test_metric_option_lists_every_metric_of_the_registry() -> None:
    import re

    from scoring import METRICS

    result = runner.invoke(app, ["score", "--help"])
    text = re.sub(r"-\n\s+", "-", result.output)  # click wraps help at 80 columns, also after a hyphen
    for name in ("auto", *METRICS, "module:function"):
        assert name in text


def test_judge_fallback_needs_math(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["score", str(RESPONSES / "gsm8k.jsonl"), "-o", str(tmp_path / "o.jsonl"), "--judge-fallback"]
    )
    assert result.exit_code == 2


def test_judge_options_reach_judge_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    seen: dict[str, Any] = {}

    def judge_records(records: list[dict[str, Any]], *, metric: str, options: Any, progress: Any) -> Any:
        seen.update(metric=metric, options=options, n=len(records), progress=progress)
        for record in records:
            for response in record["messages"][-1]["responses"]:
                response["score"], response["analysis"] = 1.0, "judge: fine"
        return types.SimpleNamespace(records=records, summary={})

    import scoring._pipeline.score_file

    monkeypatch.setattr(scoring._pipeline.score_file, "judge_records", judge_records)
    out = tmp_path / "judged.jsonl"
    result = runner.invoke(
        app,
        [
            "score",
            str(RESPONSES / "gsm8k.jsonl"),
            "-o",
            str(out),
            "--metric",
            "judge",
            "--judge-base-url",
            "http://judge",
            "--judge-model",
            "m",
            "--judge-scale",
            "1-10",
            "--judge-lang",
            "zh",
            "--concurrency",
            "3",
            "--max-retries",
            "1",
            "--timeout",
            "9",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    options = seen["options"]
    assert seen["metric"] == "judge" and seen["n"] == 10 and seen["progress"] is not None
    assert (options.judge_base_url, options.judge_model, options.judge_scale, options.judge_lang) == (
        "http://judge",
        "m",
        "1-10",
        "zh",
    )
    assert (options.concurrency, options.max_retries, options.timeout) == (3, 1, 9.0)
    assert options.judge_api_key_env == "OPENAI_API_KEY"
    assert options.journal_path == Path(str(out) + ".journal")
    assert json.loads(result.stdout)["datasets"]["gsm8k"]["metric"] == "judge"


def test_judge_options_field_names() -> None:
    from dataclasses import fields

    from scoring._judges.options import JudgeOptions

    assert [f.name for f in fields(JudgeOptions)] == [
        "judge_base_url",
        "judge_model",
        "judge_api_key_env",
        "judge_scale",
        "judge_lang",
        "judge_template",
        "against",
        "judge_fallback",
        "concurrency",
        "max_retries",
        "timeout",
        "journal_path",
        "judge_replicas",
    ]


def test_model_name_is_written_where_a_response_names_none(tmp_path: Path) -> None:
    source = tmp_path / "collected.jsonl"
    lines = (RESPONSES / "gsm8k.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    first = json.loads(lines[0])
    first["messages"][-1]["responses"][0]["model"] = "qwen-already-named"
    source.write_text("\n".join([json.dumps(first, ensure_ascii=False), lines[1]]) + "\n", encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(source), "-o", str(out), "--model-name", "my-model"])
    assert result.exit_code == 0, result.output
    models = [json.loads(line)["messages"][-1]["responses"][0]["model"] for line in out.read_text().splitlines()]
    assert models == ["qwen-already-named", "my-model"]
