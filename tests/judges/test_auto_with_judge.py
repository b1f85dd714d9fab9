"""``score --metric auto`` with a judge endpoint: free text goes to the judge, the rest to the rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fakeserver import FakeOpenAI
from typer.testing import CliRunner

from formatkit.cli import app

runner = CliRunner()


def _line(i: int, question: str, reference: str, reply: str) -> str:
    record = {
        "session_id": i,
        "messages": [
            {"role": "user", "content": question},
            {"role": "assistant", "reference_response": reference, "responses": [{"content": reply}]},
        ],
        "meta": {"dataset": "综合"},
    }
    return json.dumps(record, ensure_ascii=False)


def test_free_text_is_judged_and_the_rest_scored_by_rules(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = lambda body: '{"analysis": "covers the key facts", "score": 2}'
    source = tmp_path / "mixed.jsonl"
    lines = [
        _line(0, "Capital of France?", "Paris", "Paris"),
        _line(1, "介绍长江。", "长江是中国最长的河流，全长约六千三百公里，流经多个省份。", "长江是中国最长的河。"),
    ]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    args = ["score", str(source), "-o", str(out), "--judge-base-url", fake_openai.base_url, "--judge-model", "j"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    responses: list[dict[str, Any]] = [
        json.loads(line)["messages"][-1]["responses"][0] for line in out.read_text(encoding="utf-8").splitlines()
    ]
    assert responses[0]["metric"] == "exact" and responses[0]["score"] == 1.0
    assert responses[1]["score"] == 2.0 and responses[1]["judge"]["metric"] == "judge"
    assert fake_openai.requests == 1  # only the free-text record was sent
    summary = json.loads(result.stdout)
    assert summary["datasets"]["综合"]["score"] == 100.0


def test_without_a_judge_free_text_is_left_unscored(tmp_path: Path) -> None:
    source = tmp_path / "mixed.jsonl"
    source.write_text(_line(1, "介绍长江。", "它流经多个省份，最后注入东海。", "很长。") + "\n", encoding="utf-8")
    result = runner.invoke(app, ["score", str(source), "-o", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 1  # nothing could be scored
    assert "a judge is needed" in result.output


UNDECIDED = [
    _line(0, "做番茄炒蛋可以放糖吗？", "可以放少许糖", "可以，加一点点糖能提鲜。"),
    _line(1, "Is the square root of 2 rational?", "not a rational number", "irrational"),
    _line(2, "2+2?", "4", "The answer is 5."),
    _line(3, "Capital of France?", "Paris", "Paris"),
]


def _responses(out: Path) -> list[dict[str, Any]]:
    lines = out.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["messages"][-1]["responses"][0] for line in lines]


def test_what_the_rules_cannot_settle_goes_to_the_judge(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """#27 item 5: a short free-text reference the reply paraphrases scored 0 by exact; with a judge it is
    judged, matched_by "judge", the rule's own result kept beside the verdict. A number compared (5 is not
    4) and a reference matched stay with the rules: no request."""
    fake_openai.responder = lambda body: '{"analysis": "same meaning as the reference", "score": 2}'
    source = tmp_path / "mixed.jsonl"
    source.write_text("\n".join(UNDECIDED) + "\n", encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    args = ["score", str(source), "-o", str(out), "--judge-base-url", fake_openai.base_url, "--judge-model", "j"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    responses = _responses(out)
    assert [r["score"] for r in responses] == [2.0, 2.0, 0.0, 1.0]
    assert [r.get("matched_by") for r in responses] == ["judge", "judge", "number", "normalised match"]
    assert responses[0]["judge"]["sent_because"] == "text_unmatched"
    rule = responses[0]["judge"]["rule"]
    assert (rule["metric"], rule["score"], rule["matched_by"]) == ("exact", 0.0, "normalised match")
    assert fake_openai.requests == 2
    assert "sent to the judge by auto: 2 response(s) the rules could not settle (2 text unmatched)" in result.stdout


def test_without_a_judge_the_rules_score_stays(tmp_path: Path) -> None:
    source = tmp_path / "mixed.jsonl"
    source.write_text("\n".join(UNDECIDED) + "\n", encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    assert runner.invoke(app, ["score", str(source), "-o", str(out)]).exit_code == 0
    assert [r["score"] for r in _responses(out)] == [0.0, 0.0, 0.0, 1.0]


def test_a_record_whose_samples_split_between_rules_and_judge(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """Two samples of one record: the rules settle the first (Paris matched), the second paraphrases and goes
    to the judge. Each verdict lands on the response it judged; the settled one keeps its rule score."""
    fake_openai.responder = lambda body: '{"analysis": "same meaning", "score": 2}'
    record = json.loads(_line(0, "Capital of France?", "Paris", "Paris"))
    record["messages"][-1]["responses"].append({"content": "The French capital city, on the Seine."})
    source = tmp_path / "samples.jsonl"
    source.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    args = ["score", str(source), "-o", str(out), "--judge-base-url", fake_openai.base_url, "--judge-model", "j"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    first, second = json.loads(out.read_text(encoding="utf-8"))["messages"][-1]["responses"]
    assert first["metric"] == "exact" and first["score"] == 1.0 and "judge" not in first
    assert second["matched_by"] == "judge" and second["judge"]["metric"] == "judge" and second["score"] == 2.0
    assert fake_openai.requests == 1
