"""The seed's jsonl examples convert to exactly the canonical records the seed shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from formatkit import convert

SEED = Path(__file__).parents[2] / "fixtures" / "seed"


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _as_pending(record: dict[str, Any]) -> dict[str, Any]:
    """The seed shows records after inference and scoring; before inference each response is its stub."""
    target = record["messages"][-1]
    target["responses"] = [{"parameters": r["parameters"]} for r in target["responses"]]
    return record


@pytest.mark.parametrize("shape", ["single_turn", "multi_turn"])
def test_seed_jsonl_converts_to_seed_records(shape: str, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    report = convert([SEED / f"seed_jsonl_{shape}.jsonl"], out, meta=False)
    assert report.valid
    expected = [_as_pending(r) for r in _load(SEED / f"seed_output_{shape}.jsonl")]
    assert _load(out) == expected


def test_seed_output_passes_through_unchanged(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    report = convert([SEED / "seed_output_multi_turn.jsonl"], out, mode="scored", meta=False)
    assert report.valid
    assert _load(out) == _load(SEED / "seed_output_multi_turn.jsonl")


def test_chinese_is_written_unescaped(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    convert([SEED / "seed_jsonl_single_turn.jsonl"], out)
    text = out.read_text(encoding="utf-8")
    assert "请完成下面的计算题" in text and "\\u" not in text
