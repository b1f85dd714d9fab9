"""Real material for the many-model report (#31): four models' published replies to the same 150 LawBench
questions (tests/corpora/compare, see its README), scored by the real `exact` metric and compared through
the CLI: who is distinguishable from whom, what 150 and 40 questions can tell, and the flip lists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

runner = CliRunner()
CORPUS = Path(__file__).parents[1] / "corpora" / "compare"
MODELS = ("GPT4", "GPT-3.5-turbo-0613", "qwen-7b-chat-hf", "internlm-chat-7b-hf")


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("lawbench")
    paths = []
    for model in MODELS:
        path = out / f"{model}.jsonl"
        result = runner.invoke(
            app, ["score", str(CORPUS / f"lawbench_3-3_{model}.jsonl"), "-o", str(path), "--metric", "exact"]
        )
        assert result.exit_code == 0, result.output
        paths.append(path)
    return paths


def _report(paths: list[Path], *extra: str) -> Any:
    result = runner.invoke(app, ["report", *map(str, paths), *extra])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_weakest_model_is_told_apart_and_the_close_three_are_not(scored: list[Path]) -> None:
    data = json.loads(_report(scored, "--format", "json"))
    pairs = {frozenset((p["a"], p["b"])): p for p in data["pairs"]}
    assert len(pairs) == 6 and all(p["family"] == 6 for p in pairs.values())
    for other in ("GPT4", "qwen-7b-chat-hf", "internlm-chat-7b-hf"):
        assert pairs[frozenset(("GPT-3.5-turbo-0613", other))]["distinguishable"]
    close = [p for key, p in pairs.items() if "GPT-3.5-turbo-0613" not in key]
    assert all(p["verdict"] == "set too small to tell" for p in close)
    mdd = data["power"]["lawbench_3-3"]["min_detectable_difference"]
    assert 10 < mdd < 14 and all(abs(p["difference"]) < mdd for p in close)
    ranked = sorted(data["ratings"], key=lambda m: -data["ratings"][m]["rating"])
    assert ranked[-1] == "GPT-3.5-turbo-0613"


def test_ratings_on_real_replies_match_an_mm_fit(scored: list[Path]) -> None:
    from test_many_models import _mm_fit

    data = json.loads(_report(scored, "--format", "json"))
    outcomes = {}
    for path, model in zip(scored, MODELS, strict=True):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        outcomes[model] = [float(r["messages"][-1]["responses"][0]["score"]) for r in lines]
    wins = [
        [0.0 if a == b else sum((1 + x - y) / 2 for x, y in zip(outcomes[a], outcomes[b], strict=True)) for b in MODELS]
        for a in MODELS
    ]
    for model, rating in zip(MODELS, _mm_fit(wins), strict=True):
        assert data["ratings"][model]["rating"] == pytest.approx(rating, abs=0.01)


def test_forty_questions_cannot_tell_any_pair_apart(scored: list[Path], tmp_path: Path) -> None:
    short = []
    for path in scored:
        head = tmp_path / path.name
        head.write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:40]), encoding="utf-8")
        short.append(head)
    data = json.loads(_report(short, "--format", "json"))
    assert not any(p["distinguishable"] for p in data["pairs"])
    mdd = data["power"]["lawbench_3-3"]["min_detectable_difference"]
    assert mdd > 18 and data["power"]["lawbench_3-3"]["records"] == 40


def test_flips_show_why_with_a_character_diff_of_the_chinese_answers(scored: list[Path], tmp_path: Path) -> None:
    from openpyxl import load_workbook

    out = tmp_path / "r.xlsx"
    _report(scored, "--format", "xlsx", "-o", str(out))
    rows = list(load_workbook(out, read_only=True)["Flips"].iter_rows(values_only=True))
    head = rows[0]
    top = [r for r in rows[1:] if r[0] == "internlm-chat-7b-hf" and r[1] == "qwen-7b-chat-hf"]
    assert top and rows[1][:2] == ("internlm-chat-7b-hf", "qwen-7b-chat-hf")  # the top two first
    diff = head.index("diff wrong → right")
    # a charge differs by characters, not as one whole word: some character is kept between the marks
    assert any("[-" in r[diff] and "{+" in r[diff] for r in top)
    assert all(r[head.index("right's rationale")] for r in top)
