"""Two models' scored results on the same records, for the report tests (text, json, html, xlsx, browser).

``model-a`` is the collected responses of fixtures/responses as they are; ``model-b`` answered the same
records but gave up on every third one ("I am not sure."). Both are scored by the real scorer; a small
pairwise dataset (judge verdicts as the pairwise judge writes them) and a hostile dataset name are added.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import scoring
from formatkit import RecordDict
from formatkit._core.judge_entry import Outcome

RESPONSES = Path(__file__).parent.parent / "fixtures" / "responses"
SETS = ("mmlu_pro", "gsm8k", "math_mixed", "yes_no")
HOSTILE = '=HYPERLINK("http://x")[/b]<script>alert(1)</script>'


def _load(name: str) -> list[RecordDict]:
    lines = (RESPONSES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _pairwise(model: str, outcomes: str) -> list[RecordDict]:
    value = {"w": 1.0, "t": 0.0, "l": -1.0}
    name: dict[str, Outcome] = {"w": "win", "t": "tie", "l": "loss"}
    return [
        {
            "session_id": i,
            "messages": [
                {"role": "user", "content": f"写一段关于秋天的文字 {i}"},
                {
                    "role": "assistant",
                    "reference_response": "秋风起，落叶黄。",
                    "responses": [
                        {
                            "parameters": {},
                            "content": f"秋天的第 {i} 段文字",
                            "model": model,
                            "score": value[o],
                            "analysis": "pairwise judge",
                            "metric": "pairwise",
                            "answer": None,
                            "settled": True,
                            "judge": {"metric": "pairwise", "status": "scored", "outcome": name[o]},
                        }
                    ],
                },
            ],
            "meta": {"dataset": "writing", "dimension": "语言创作"},
        }
        for i, o in enumerate(outcomes)
    ]


def build(directory: Path) -> tuple[Path, Path]:
    """Write ``model-a.jsonl`` and ``model-b.jsonl`` (scored) into ``directory``; return both paths."""
    paths = []
    for model in ("model-a", "model-b"):
        records: list[RecordDict] = []
        for name in SETS:
            for index, record in enumerate(_load(name)):
                record = copy.deepcopy(record)
                for response in record["messages"][-1].get("responses", []):
                    response["model"] = model
                    if model == "model-b" and index % 3 == 0 and "content" in response:
                        response["content"] = "I am not sure."
                records.append(record)
        scoring.score_records(records, metric="auto")
        hostile = copy.deepcopy(records[0])
        hostile["meta"] = {"dataset": HOSTILE}
        hostile["messages"][-1]["responses"][0]["content"] = "<b>bold?</b> <script>window.pwned=1</script> _x0041_"
        scoring.score_records([hostile], metric="choice")
        records.append(hostile)
        records += _pairwise(model, "wwtlw" if model == "model-a" else "tllwl")
        path = directory / f"{model}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]
