"""The seed's two Excel tables convert to exactly the canonical records the seed describes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from formatkit import convert

FIXTURES = Path(__file__).parents[2] / "fixtures"
SEED = FIXTURES / "seed"

PARAMS = {
    "logprobs": False,
    "top_logprobs": 10,
    "frequency_penalty": 0.0,
    "temperature": 1.0,
    "top_p": 0.7,
    "max_tokens": 4096,
    "stop": [],
}
SYS_CHEF = "你是一名精通各大中餐菜系的中餐传奇大厨"
SYS_JOKER = "你是一个精通中国历史和文化的段子手,擅长通过幽默的表达方式让人发笑。"


def _seed_cells() -> dict[str, str]:
    """The long answers, as the fixture script holds them (copied verbatim from the seed)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_excel_fixtures", FIXTURES / "make_excel_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: getattr(module, name) for name in dir(module) if name[:2] in ("A_", "Q_")}


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _meta(name: str, fmt: str, rows: list[int]) -> dict[str, Any]:
    return {
        "dataset": name,
        "source": {"file": str(SEED / f"{name}.xlsx"), "format": fmt, "sheet": "Sheet1", "rows": rows},
    }


def _target(reference: str) -> dict[str, Any]:
    return {"role": "assistant", "reference_response": reference, "responses": [{"parameters": PARAMS}]}


def test_seed_single_turn_table(tmp_path: Path) -> None:
    c = _seed_cells()
    out = tmp_path / "out.jsonl"
    report = convert([SEED / "seed_excel_single_turn.xlsx"], out)
    assert report.valid, report.all_issues()
    assert _load(out) == [
        {
            "session_id": 0,
            "messages": [
                {"role": "system", "content": SYS_CHEF},
                {"role": "user", "content": "家里有鸡蛋、西红柿"},
                _target(c["A_EGGS"]),
            ],
            "meta": _meta("seed_excel_single_turn", "excel-single-turn", [2]),
        },
        {
            "session_id": 1,
            "messages": [
                {"role": "system", "content": SYS_JOKER},
                {"role": "user", "content": "程序员写了个bug,把公司数据库给误删除了"},
                _target(c["A_BUG"]),
            ],
            "meta": _meta("seed_excel_single_turn", "excel-single-turn", [3]),
        },
    ]


def test_seed_multi_turn_table(tmp_path: Path) -> None:
    c = _seed_cells()
    out = tmp_path / "out.jsonl"
    report = convert([SEED / "seed_excel_multi_turn.xlsx"], out)
    assert report.valid, report.all_issues()
    assert _load(out) == [
        {
            "session_id": 0,
            "messages": [
                {"role": "system", "content": SYS_CHEF},
                {"role": "user", "content": "家里有鸡蛋、西红柿"},
                {"role": "assistant", "content": c["A_EGGS"]},
                {"role": "user", "content": "家里还有排骨"},
                {"role": "assistant", "content": c["A_RIBS"]},
                {"role": "user", "content": "还有一条鱼"},
                _target(c["A_FISH"]),
            ],
            "meta": _meta("seed_excel_multi_turn", "excel-multi-turn", [2, 3, 4]),
        },
        {
            "session_id": 1,
            "messages": [
                {"role": "system", "content": SYS_JOKER},
                {"role": "user", "content": "程序员写了个bug,把公司数据库给误删除了"},
                {"role": "assistant", "content": c["A_BUG"]},
                {"role": "user", "content": "996福报"},
                _target(c["A_996"]),
            ],
            "meta": _meta("seed_excel_multi_turn", "excel-multi-turn", [5, 6]),
        },
    ]


def test_seed_excel_infer_only_drops_the_reference(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    report = convert([SEED / "seed_excel_single_turn.xlsx"], out, mode="infer-only", meta=False)
    assert report.valid  # a reference in infer-only mode is only a warning...
    assert {i.code for i in report.all_issues()} == {"unused_reference"}
    for record in _load(out):  # ...and it is not written
        assert record["messages"][-1] == {"role": "assistant", "responses": [{"parameters": PARAMS}]}
