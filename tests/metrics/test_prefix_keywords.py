"""The platform's prefix match (前缀匹配) and keyword match (包含关键词匹配) metrics (#28 item 8), through the
command line: ``--metric prefix`` / ``--metric keywords``, and declared per dataset for ``auto`` and ``eval``
with ``--dataset-metric DATASET=METRIC``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner

from formatkit.cli import app

runner = CliRunner()


def _record(sid: int, question: str, reference: str, reply: str, dataset: str = "客服") -> dict[str, Any]:
    return {
        "session_id": sid,
        "meta": {"dataset": dataset},
        "messages": [
            {"role": "user", "content": question},
            {"role": "assistant", "reference_response": reference, "responses": [{"content": reply, "model": "m"}]},
        ],
    }


def _score(tmp_path: Path, rows: list[dict[str, Any]], *options: str, status: int = 0) -> list[dict[str, Any]]:
    source = tmp_path / "set.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(source), "-o", str(out), *options])
    assert result.exit_code == status, result.output
    lines = out.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["messages"][-1]["responses"][0] for line in lines]


@pytest.mark.parametrize(
    ("reference", "reply", "score"),
    [
        ("北京", "北京市是中国的首都。", 1.0),  # Chinese has no word breaks: 北京 starts 北京市
        ("北京", "首都是北京。", 0.0),  # contains it, but does not start with it
        ("您好，请问有什么可以帮您", "您好！请问有什么可以帮您？", 1.0),  # full-width punctuation and width
        ("The Eiffel Tower", "**the eiffel tower** is in Paris.", 1.0),  # case, bold, article
        ("1", "12 apples", 0.0),  # a Latin or digit reference must end a word
        ("Paris", "<think>Lyon? no.</think>Paris, France", 1.0),  # the reasoning block is not the reply
        ('["好的", "收到"]', "收到，马上处理", 1.0),  # every accepted answer counts
        ("3", "3.5 apples", 0.0),  # a number is not a prefix of a longer number
        ("1", "1,000 yuan", 0.0),
        ("v1", "v1.2 is out", 0.0),
        ("3", "3. Apples are red", 1.0),  # a full stop after it ends the number
        ("A", "A，因为苹果是水果", 1.0),  # an option letter is no English article
        ("A", "A. Paris", 1.0),
        ("café", "cafés are open", 0.0),  # the word boundary holds beyond ASCII
    ],
)
def test_prefix(tmp_path: Path, reference: str, reply: str, score: float) -> None:
    [response] = _score(tmp_path, [_record(1, "问", reference, reply)], "--metric", "prefix")
    assert (response["metric"], response["score"]) == ("prefix", score), response["analysis"]


@pytest.mark.parametrize(
    ("reference", "reply", "score", "partial"),
    [
        ("退款、七天、运费", "支持七天无理由退款，运费由商家承担。", 1.0, 1.0),
        ("退款，七天；运费", "支持七天无理由退款。", 0.0, 0.6667),  # the all-or-nothing score, the share beside it
        ("refund\nseven days", "We offer a Refund within SEVEN days.", 1.0, 1.0),  # one per line; case
        ("cat, dog", "A concatenated string.", 0.0, 0.0),  # a Latin keyword stands as a word
        ('["订单号", "手机号"]', "请提供订单号和手机号。", 1.0, 1.0),  # a JSON list of keywords
        ("3", "I have 3.5 apples", 0.0, 0.0),  # numbers are kept whole
        ("5%", "5.5% growth", 0.0, 0.0),
        ("1,000, 2,000", "We sold 1000 and 2,000.", 1.0, 1.0),  # a comma inside a number is no delimiter
        ("C++, C#", "I only know C.", 0.0, 0.0),  # C++ and C# are not C
        ("A", "The answer is A", 1.0, 1.0),  # an option letter is no English article
        ("über", "Darüber hinaus", 0.0, 0.0),  # the word boundary holds beyond ASCII
    ],
)
def test_keywords(tmp_path: Path, reference: str, reply: str, score: float, partial: float) -> None:
    [response] = _score(tmp_path, [_record(1, "问", reference, reply)], "--metric", "keywords")
    assert (response["metric"], response["score"], response["partial_score"]) == ("keywords", score, partial)
    assert ("; missing " in response["analysis"]) is (score == 0.0)


def test_a_reference_with_no_keyword_is_unscorable_not_zero(tmp_path: Path) -> None:
    # exit 1: no response could be scored (said so), and the record is kept with the reason
    [response] = _score(tmp_path, [_record(1, "问", "，、；", "随便")], "--metric", "keywords", status=1)
    assert response["score"] is None and "no keyword" in response["analysis"]


def test_dataset_metric_declares_what_auto_scores_a_dataset_with(tmp_path: Path) -> None:
    rows = [
        _record(1, "问", "退款、七天", "七天内可以退款。", dataset="客服"),
        _record(2, "1+1?", "2", "2", dataset="算术"),
    ]
    plain = _score(tmp_path, rows)  # auto alone: the keyword list is a short answer for exact, and misses
    assert [r["metric"] for r in plain] == ["exact", "exact"] and plain[0]["score"] == 0.0
    declared = _score(tmp_path, rows, "--dataset-metric", "客服=keywords")
    assert [(r["metric"], r["score"]) for r in declared] == [("keywords", 1.0), ("exact", 1.0)]


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--dataset-metric", "客服"], "expected DATASET=METRIC"),
        (["--dataset-metric", "客服=judge"], "METRIC is one of the rule metrics"),
        (["--dataset-metric", "客服=keywords", "--metric", "exact"], "goes with --metric auto"),
    ],
)
def test_dataset_metric_misuse_is_bad_usage(tmp_path: Path, options: list[str], said: str) -> None:
    source = tmp_path / "set.jsonl"
    source.write_text(json.dumps(_record(1, "问", "a", "a"), ensure_ascii=False) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["score", str(source), "-o", str(tmp_path / "o.jsonl"), *options])
    assert result.exit_code == 2 and said in result.output, result.output


def test_eval_scores_a_declared_dataset_with_its_metric(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = lambda body: "您好，支持七天无理由退款。"
    source = tmp_path / "客服.jsonl"
    source.write_text(json.dumps({"prompt": "能退货吗？", "answer": "七天、退款"}, ensure_ascii=False) + "\n", "utf-8")
    out = tmp_path / "eval"
    common = ["eval", str(source), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "m"]
    result = runner.invoke(app, [*common, "--dataset-metric", "客服=keywords"], env={"OPENAI_API_KEY": ""})
    assert result.exit_code == 0, result.output
    [line] = (out / "scored.jsonl").read_text(encoding="utf-8").splitlines()
    response = json.loads(line)["messages"][-1]["responses"][0]
    assert (response["metric"], response["score"], response["partial_score"]) == ("keywords", 1.0, 1.0)


def test_a_dataset_metric_naming_no_dataset_is_warned(tmp_path: Path) -> None:
    source = tmp_path / "set.jsonl"
    source.write_text(json.dumps(_record(1, "问", "a", "a", dataset="客服"), ensure_ascii=False) + "\n", "utf-8")
    result = runner.invoke(
        app, ["score", str(source), "-o", str(tmp_path / "o.jsonl"), "--dataset-metric", "客户=keywords"]
    )
    assert result.exit_code == 0, result.output
    assert "--dataset-metric 客户=…: no dataset of that name in the input (its datasets: 客服)" in result.stderr
