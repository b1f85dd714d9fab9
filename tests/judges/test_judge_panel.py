"""A panel of judges (#27 items 1, 2), end to end against the tests' local OpenAI-compatible server, which
plays every judge: each judge's verdict kept in ``judge.panel``, the aggregate, ``--judge-min-valid``,
repeats and self-consistency, pairwise position flips, escalation, the journal, agreement."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from fakeserver import FakeOpenAI, last_user
from test_judge_e2e import rec
from typer.testing import CliRunner

from formatkit import RecordDict, ResponseDict, target_responses
from formatkit.cli import app
from scoring import JudgeOptions, PanelJudge, read_panel
from scoring._judges import JudgeSetupError, judge_records
from scoring._judges.agreement import krippendorff_alpha, majority


def panel(server: FakeOpenAI, tmp_path: Path, *models: str, **changes: Any) -> JudgeOptions:
    base = JudgeOptions(
        judge_base_url=server.base_url,
        judge_model=models[0],
        judge_panel=tuple(PanelJudge(m) for m in models),
        journal_path=tmp_path / "judge.journal",
    )
    return dataclasses.replace(base, **changes)


def scripted(replies: dict[str, Callable[[str], str]]) -> Callable[[dict[str, Any]], str]:
    """Each judge model's reply to a prompt."""
    return lambda body: replies[body["model"]](last_user(body))


def verdict(score: Any) -> Callable[[str], str]:
    return lambda prompt: orjson.dumps({"analysis": f"I give {score}", "score": score}).decode()


def tagged(score: Any) -> Callable[[str], str]:
    """The verdict in the prompt's nonce tag, as a judge that follows the prompt writes it."""

    def reply(prompt: str) -> str:
        nonce = re.search(r"<verdict-([0-9a-f]+)>", prompt)
        assert nonce is not None
        return f'<verdict-{nonce.group(1)}>{{"analysis": "ok", "score": {score}}}</verdict-{nonce.group(1)}>'

    return reply


def response_of(record: RecordDict) -> ResponseDict:
    return target_responses(record)[0]


RECORDS = [rec(i, f"{i}+{i}?", str(2 * i), str(2 * i)) for i in range(1, 4)]


def test_three_judges_mean_each_verdict_kept_and_off_scale_void(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = scripted({"a": verdict(2), "b": verdict(1), "c": verdict(99)})
    outcome = judge_records(RECORDS, metric="judge", options=panel(fake_openai, tmp_path, "a", "b", "c"))
    response = response_of(outcome.records[0])
    assert response["score"] == 1.5 and response["settled"] is True
    judge = response["judge"]
    assert (judge["model"], judge["aggregate"], judge["valid"]) == ("a, b, c", "mean", 2)
    seats = {entry["model"]: entry for entry in judge["panel"]}
    assert (seats["a"]["score"], seats["a"]["answer"], seats["a"]["rationale"]) == (2.0, "2", "I give 2")
    assert (seats["c"]["score"], seats["c"]["status"]) == (None, "unparseable")
    assert "99 is off the 0-2 scale" in seats["c"]["rationale"]
    assert fake_openai.requests == 9  # 3 judges x 3 responses
    figures = outcome.summary["panel"]
    assert figures["by_judge"]["c"]["void_rate"] == 1.0 and figures["by_judge"]["a"]["void_rate"] == 0.0
    # a and b differ by 1 on every item, each pair of verdicts: alpha from the coincidences
    assert figures["agreement"]["method"] == "Krippendorff's alpha (interval)"
    assert figures["agreement"]["items"] == 3


@pytest.mark.parametrize(
    ("how", "min_valid", "expected"),
    [("mean", 3, 4 / 3), ("median", 1, 2.0), ("majority", 1, 2.0), ("mean", 4, None)],
)
def test_aggregates_and_min_valid(
    fake_openai: FakeOpenAI, tmp_path: Path, how: str, min_valid: int, expected: float | None
) -> None:
    fake_openai.responder = scripted({"a": verdict(2), "b": verdict(0), "c": verdict(2), "d": verdict("bad")})
    options = panel(fake_openai, tmp_path, "a", "b", "c", "d", judge_aggregate=how, judge_min_valid=min_valid)
    response = response_of(judge_records(RECORDS[:1], metric="judge", options=options).records[0])
    assert response["score"] == expected
    if expected is None:
        assert response["judge"]["status"] == "unparseable"
        assert "3 valid verdict(s) of 4, fewer than the 4 required" in response["unsettled_reason"]


def test_majority_without_a_majority_is_void(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = scripted({"a": verdict(2), "b": verdict(0)})
    options = panel(fake_openai, tmp_path, "a", "b", judge_aggregate="majority")
    response = response_of(judge_records(RECORDS[:1], metric="judge", options=options).records[0])
    assert response["score"] is None and "no majority" in response["unsettled_reason"]


def test_repeats_are_bought_once_each_and_report_self_consistency(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    answers = iter(["2", "2", "1"] * 10)
    fake_openai.responder = lambda body: verdict(int(next(answers)))(last_user(body))
    options = panel(fake_openai, tmp_path, "a", judge_repeats=3, judge_panel=(PanelJudge("a"),))
    outcome = judge_records(RECORDS[:1], metric="judge", options=options)
    entry = response_of(outcome.records[0])["judge"]["panel"][0]
    scores = [r["score"] for r in entry["repeats"]]
    assert None not in scores and sorted(s for s in scores if s is not None) == [1.0, 2.0, 2.0]
    assert entry["score"] == 5 / 3  # the mean of its repeats
    assert entry["consistent"] is False and fake_openai.requests == 3
    assert outcome.summary["panel"]["by_judge"]["a"]["self_consistency"] == 0.0
    # the journal holds each repeat apart: a rerun buys nothing
    again = judge_records(RECORDS[:1], metric="judge", options=options)
    assert fake_openai.requests == 3 and again.summary["judge_reused"] == 3
    assert response_of(again.records[0])["score"] == response_of(outcome.records[0])["score"]


def test_pairwise_panel_keeps_both_orders_and_counts_flips(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    def biased(prompt: str) -> str:  # always prefers the first answer shown: flips with the order
        return '{"analysis": "A is better", "choice": "A+"}'

    def fair(prompt: str) -> str:
        mine_first = prompt.index("MODEL") < prompt.index("REFERENCE")
        return '{"analysis": "the model wins", "choice": "%s"}' % ("A+" if mine_first else "B+")

    fake_openai.responder = scripted({"fair": fair, "biased": biased})
    record = rec(0, "Say it.", "REFERENCE", "MODEL")
    outcome = judge_records([record], metric="pairwise", options=panel(fake_openai, tmp_path, "fair", "biased"))
    judge = response_of(outcome.records[0])["judge"]
    assert [len(e["orders"]) for e in judge["panel"]] == [2, 2] and fake_openai.requests == 4
    figures = outcome.summary["panel"]
    assert figures["by_judge"]["biased"]["flip_rate"] == 1.0 and figures["by_judge"]["fair"]["flip_rate"] == 0.0
    assert figures["agreement"]["method"] == "Krippendorff's alpha (nominal)"
    assert judge["outcome"] == "win" and judge["disagree"] is True


def test_escalation_asks_the_next_judge_only_when_needed(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    # cheap: right on 1, void on 2, says wrong on 3 (whose rule score is a settled 1)
    cheap = {"1+1?": verdict(2), "2+2?": verdict("n/a"), "3+3?": verdict(0)}
    fake_openai.responder = scripted(
        {"cheap": lambda p: next(v for q, v in cheap.items() if q in p)(p), "strong": verdict(2)}
    )
    options = panel(fake_openai, tmp_path, "cheap", "strong", "stronger", judge_escalate=True)
    fake_openai.responder = scripted(
        {
            "cheap": lambda p: next(v for q, v in cheap.items() if q in p)(p),
            "strong": verdict(2),
            "stronger": verdict(1),
        }
    )
    outcome = judge_records(RECORDS, metric="judge", options=options, rule_score=lambda record, i: 1.0)
    judges = [response_of(r)["judge"] for r in outcome.records]
    assert [[e["model"] for e in j["panel"]] for j in judges] == [["cheap"], ["cheap", "strong"], ["cheap", "strong"]]
    assert [j["escalations"] for j in judges] == [
        [],
        [{"from": "cheap", "reason": "void"}],
        [{"from": "cheap", "reason": "contradicts_rule"}],
    ]
    assert [response_of(r)["score"] for r in outcome.records] == [2.0, 2.0, 2.0]
    assert fake_openai.requests == 5  # a full panel: 9
    assert [j["avoided"] for j in judges] == [2, 1, 1]
    figures = outcome.summary["panel"]
    assert figures["escalated"] == {"responses": 2, "void": 1, "contradicts_rule": 1} and figures["avoided"] == 4


def test_panel_setup_errors_before_any_request(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"judge_min_valid": 3}, "must be 1 to 2"),
        ({"judge_repeats": 0}, "at least 1"),
        ({"judge_aggregate": "mode"}, "expected one of mean, median, majority"),
    ]
    for changes, said in cases:
        with pytest.raises(JudgeSetupError, match=said):
            judge_records(RECORDS, metric="judge", options=panel(fake_openai, tmp_path, "a", "b", **changes))
    with pytest.raises(JudgeSetupError, match="two judges or more"):
        judge_records(RECORDS, metric="judge", options=panel(fake_openai, tmp_path, "a", judge_escalate=True))
    assert fake_openai.requests == 0


def test_panel_file(tmp_path: Path) -> None:
    path = tmp_path / "panel.jsonl"
    path.write_text(
        '{"model": "qwen", "base_url": "http://127.0.0.1:4000/v1", "api_key_env": "GATEWAY_KEY"}\n{"model": "ds"}\n'
    )
    assert read_panel(path) == (PanelJudge("qwen", "http://127.0.0.1:4000/v1", "GATEWAY_KEY"), PanelJudge("ds"))
    path.write_text('[{"model": "qwen", "temperature": 1}]')
    with pytest.raises(JudgeSetupError, match="unknown key"):
        read_panel(path)


def test_a_panel_from_the_command_line(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = scripted({"a": tagged(2), "b": tagged(0)})
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in RECORDS))
    out = tmp_path / "out.jsonl"
    args = ["score", str(src), "-o", str(out), "--metric", "judge", "--judge-base-url", fake_openai.base_url]
    result = CliRunner(env={"OPENAI_API_KEY": "sk-test"}).invoke(
        app, [*args, "--judge-model", "a", "--judge-model", "b", "--judge-aggregate", "median", "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = orjson.loads(result.stdout)
    assert summary["judge"]["panel"]["judges"] == ["a", "b"]
    assert summary["datasets"]["in"]["panel"]["by_judge"]["b"]["valid"] == 3
    first = orjson.loads(out.read_bytes().splitlines()[0])
    assert [e["score"] for e in response_of(first)["judge"]["panel"]] == [2.0, 0.0]
    text = CliRunner(env={"OPENAI_API_KEY": "sk-test"}).invoke(app, [*args, "--judge-model", "a", "--judge-model", "b"])
    assert "judge panel of 2 (mean): agreement Krippendorff's alpha (interval)" in text.stdout


def test_krippendorff_alpha_reproduces_the_published_example() -> None:
    """Krippendorff (2011), *Computing Krippendorff's Alpha-Reliability*, section C: four observers, twelve
    units, missing values. Published: nominal alpha 0.743, interval alpha 0.849."""
    table = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    ]
    units = [[row[u] for row in table if row[u] is not None] for u in range(12)]
    assert round(krippendorff_alpha(units, "nominal") or 0, 3) == 0.743
    assert round(krippendorff_alpha(units, "interval") or 0, 3) == 0.849
    assert krippendorff_alpha([[2, 2], [2, 2]], "interval") is None  # no variation: chance is already perfect
    assert majority(["win", "win", "tie"]) == "win" and majority(["win", "tie"]) is None


def test_escalation_from_the_command_line_checks_the_rules(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """``score --metric judge --judge-escalate``: the cheap judge says 0 for a reply the rules settle as
    right (4 is 4): the strong judge is asked. A free-text item the rules cannot settle: the cheap one decides."""
    fake_openai.responder = scripted({"cheap": verdict(0), "strong": verdict(2)})
    records = [rec(0, "2+2?", "4", "4"), rec(1, "介绍长江。", "长江是中国最长的河流，全长约六千三百公里。", "很长。")]
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    out = tmp_path / "out.jsonl"
    args = ["score", str(src), "-o", str(out), "--metric", "judge", "--judge-base-url", fake_openai.base_url]
    args += ["--judge-model", "cheap", "--judge-model", "strong", "--judge-escalate", "--json"]
    result = CliRunner(env={"OPENAI_API_KEY": "sk-test"}).invoke(app, args)
    assert result.exit_code == 0, result.output
    judged = [response_of(orjson.loads(line)) for line in out.read_bytes().splitlines()]
    assert [r["score"] for r in judged] == [2.0, 0.0]
    assert judged[0]["judge"]["escalations"] == [{"from": "cheap", "reason": "contradicts_rule"}]
    assert judged[0]["judge"]["rule_score"] == 1.0 and "rule_score" not in judged[1]["judge"]
    assert fake_openai.requests == 3
    panel_figures = orjson.loads(result.stdout)["judge"]["panel"]
    assert panel_figures["escalated"] == {"responses": 1, "contradicts_rule": 1} and panel_figures["avoided"] == 1


def test_eval_with_a_panel_reports_it(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """``eval`` with two judges: the model answers, auto sends the free text and the paraphrase to the
    panel, and report.json and report.txt carry the panel's figures; run.json names the judges."""

    def reply(body: dict[str, Any]) -> str:
        if body["model"] == "m":
            return {"介绍长江。": "长江是中国最长的河。", "番茄炒蛋放糖吗？": "可以，加一点点糖能提鲜。"}.get(
                last_user(body), "4"
            )
        return verdict(2 if body["model"] == "a" else 1)(last_user(body))

    fake_openai.responder = reply
    src = tmp_path / "综合.jsonl"
    lines = [
        {"prompt": "介绍长江。", "answer": "长江是中国最长的河流，全长约六千三百公里，流经多个省份，最后注入东海。"},
        {"prompt": "番茄炒蛋放糖吗？", "answer": "可以放少许糖"},
        {"prompt": "2+2?", "answer": "4"},
    ]
    src.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    out = tmp_path / "eval"
    args = ["eval", str(src), "--base-url", fake_openai.base_url, "--model", "m", "-o", str(out)]
    args += ["--judge-base-url", fake_openai.base_url, "--judge-model", "a", "--judge-model", "b"]
    result = CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, args)
    assert result.exit_code == 0, result.output
    report = orjson.loads((out / "report.json").read_bytes())
    dataset = report["datasets"]["综合"]
    assert dataset["panel"]["judges"] == ["a", "b"] and dataset["panel"]["by_judge"]["a"]["asked"] == 2
    assert "judge panel of 2 (mean)" in (out / "report.txt").read_text(encoding="utf-8")
    run = orjson.loads((out / "run.json").read_bytes())
    assert [j["model"] for j in run["judge"]["panel"]] == ["a", "b"]
    scored = [response_of(orjson.loads(line)) for line in (out / "scored.jsonl").read_bytes().splitlines()]
    assert [(r["score"], r.get("matched_by")) for r in scored] == [(1.5, "judge"), (1.5, "judge"), (1.0, "number")]
