# ruff: noqa: E501  (request and reply lines are test data, kept one per line)
"""Other tools' shapes both ways (#32 item 2), through the command line: every shape round-trips with its
losses listed, each tool's own mistakes are reported at their line and field, a record a shape cannot
hold is refused at its place, and a set runs through a batch endpoint and is scored without ``run``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fakebatch import FakeBatch
from typer.testing import CliRunner

from formatkit import SHAPES
from formatkit.cli import app

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpora" / "shapes"
#: The shapes of the table that hold a set both ways (a batch API's requests are not the set: read back
#: with its replies, tested below).
ROUND_TRIP = [name for name, spec in SHAPES.items() if spec.directions == ("read", "write") and not spec.requests]

#: A set with what the shapes differ on: a system prompt, options, labels, parameters, a conversation.
SET = [
    {
        "system": "请完成下面的计算题",
        "prompt": "1+1等于几？",
        "answer": "2",
        "session_id": 7,
        "meta": {"subject": "math"},
    },
    {"prompt": "Which is a prime?\nA) 4\nB) 5", "answer": "B", "session_id": 8, "meta": {"choices": ["4", "5"]}},
    {"prompt": "Capital of France?", "answer": "Paris", "session_id": 9, "parameters": {"temperature": 0.5}},
]
CONVERSATION = {
    "messages": [{"role": "user", "content": "3+1"}, {"role": "assistant", "content": "4"}, {"role": "user", "content": "再加1"}],
    "answer": "5",
    "session_id": 10,
}  # fmt: skip


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _bare(record: dict[str, Any]) -> dict[str, Any]:
    """A record without where it was read (made anew by every read)."""
    meta = {k: v for k, v in record.get("meta", {}).items() if k not in ("source", "dataset")}
    return {**record, "meta": meta}


def _drop(record: dict[str, Any], lost: set[str]) -> dict[str, Any]:
    """The record without the fields a warning said the shape could not hold."""
    out = _bare(record)
    out["meta"] = {k: v for k, v in out["meta"].items() if f"meta.{k}" not in lost}
    messages = [dict(m) for m in out["messages"]]
    if "system" in lost and messages[0]["role"] == "system":
        messages = messages[1:]
    if "parameters" in lost:
        messages[-1]["responses"] = [{"parameters": {}}]
    if "session_id" in lost:
        out.pop("session_id")
    out["messages"] = messages
    return out


def _lost(output: str) -> set[str]:
    said = [line for line in output.splitlines() if " shape cannot hold " in line and "record(s)" in line]
    return {line.split(" cannot hold ")[1].split(":")[0] for line in said}


def test_the_round_trips_cover_the_table() -> None:
    """The tests below run over the table: today's five set shapes among them (a shape added is tested too)."""
    assert {"evalscope-qa", "evalscope-mcq", "opencompass", "inspect", "promptfoo"} <= set(ROUND_TRIP)
    assert "openai-batch" in SHAPES and "openai-batch" not in ROUND_TRIP


@pytest.mark.parametrize("shape", ROUND_TRIP)
def test_every_shape_round_trips_equal_apart_from_the_fields_it_lists_as_lost(tmp_path: Path, shape: str) -> None:
    lines = SET[1:2] if shape == "evalscope-mcq" else SET  # a multiple-choice shape holds only the options' record
    source = _write(tmp_path / "set.jsonl", lines)
    assert _cli("convert", str(source), "-o", str(tmp_path / "canonical.jsonl")).exit_code == 0
    written = _cli("convert", str(tmp_path / "canonical.jsonl"), "--to", shape, "-o", str(tmp_path / "peer.jsonl"))
    assert written.exit_code == 0, written.output
    lost = _lost(written.output)
    back = _cli("convert", str(tmp_path / "peer.jsonl"), "--from", shape, "-o", str(tmp_path / "back.jsonl"))
    assert back.exit_code == 0, back.output
    before, after = _read(tmp_path / "canonical.jsonl"), _read(tmp_path / "back.jsonl")
    assert len(after) == len(before)
    for old, new in zip(before, after, strict=True):
        if "session_id" in lost:
            new.pop("session_id")
        assert _bare(new) == _drop(old, lost)


def test_the_losses_are_named_per_field_with_their_count(tmp_path: Path) -> None:
    source = _write(tmp_path / "set.jsonl", SET)
    result = _cli("convert", str(source), "--to", "opencompass", "-o", str(tmp_path / "oc.jsonl"))
    assert result.exit_code == 0
    assert _lost(result.output) == {"system", "session_id", "parameters", "meta.subject"}
    assert "cannot hold parameters: 1 record(s)" in result.output
    assert _read(tmp_path / "oc.jsonl")[1] == {
        "question": "Which is a prime?\nA) 4\nB) 5",
        "A": "4",
        "B": "5",
        "answer": "B",
    }
    zh = _cli("convert", str(source), "--to", "opencompass", "-o", str(tmp_path / "oc2.jsonl"), "--lang", "zh")
    assert "opencompass 格式无法保存 parameters" in zh.output


def test_a_record_a_shape_cannot_hold_is_an_error_at_its_place_and_nothing_is_written(tmp_path: Path) -> None:
    source = _write(tmp_path / "set.jsonl", [SET[0]])
    talk = _write(tmp_path / "talk.jsonl", [CONVERSATION])
    result = _cli("convert", str(source), str(talk), "--to", "promptfoo", "-o", str(tmp_path / "pf.jsonl"))
    assert result.exit_code == 1
    assert "talk.jsonl, line 1: The promptfoo shape holds one question" in result.output
    assert "[shape_record_unfit]" in result.output
    assert not (tmp_path / "pf.jsonl").exists()
    mcq = _cli("convert", str(source), "--to", "evalscope-mcq", "-o", str(tmp_path / "mcq.jsonl"))
    assert mcq.exit_code == 1 and "set.jsonl, line 1" in mcq.output and "no options (meta.choices)" in mcq.output
    # a conversation is held by the shapes that take messages
    assert _cli("convert", str(talk), "--to", "inspect", "-o", str(tmp_path / "in.jsonl")).exit_code == 0
    assert _read(tmp_path / "in.jsonl")[0]["input"][1] == {"role": "assistant", "content": "4"}


@pytest.mark.parametrize(
    ("shape", "line", "where", "code"),
    [
        ("evalscope-qa", '{"response": "是木星"}', "query", "missing_field"),
        ("evalscope-qa", '{"query": "q", "system": ["a"]}', "system", "invalid_type"),
        ("evalscope-mcq", '{"id": "1", "A": "x", "answer": "A"}', "question", "missing_field"),
        ("opencompass", '{"question": "q", "A": {"x": 1}, "answer": "A"}', "A", "invalid_type"),
        ("inspect", '{"input": "q", "target": 5}', "target", "invalid_type"),
        ("inspect", '{"target": "a"}', "input", "missing_field"),
        ("promptfoo", '{"assert": []}', "vars", "missing_field"),
        ("promptfoo", '{"vars": {"topic": "x"}}', "vars.query", "missing_field"),
        (
            "openai-batch",
            '{"custom_id": "a", "method": "POST", "body": {"model": "m"}}',
            "body.messages",
            "missing_field",
        ),
    ],
)
def test_a_tools_own_mistake_is_reported_at_its_line_and_field(
    tmp_path: Path, shape: str, line: str, where: str, code: str
) -> None:
    good = {"evalscope-qa": '{"query": "1+1", "response": "2"}', "inspect": '{"input": "1+1", "target": "2"}',
            "promptfoo": '{"vars": {"query": "1+1"}}', "evalscope-mcq": '{"question": "q", "A": "x", "answer": "A"}',
            "opencompass": '{"question": "q", "answer": "a"}',
            "openai-batch": '{"custom_id": "b", "body": {"messages": [{"role": "user", "content": "1+1"}]}}'}  # fmt: skip
    path = tmp_path / "peer.jsonl"
    path.write_text(good[shape] + "\n" + line + "\n", encoding="utf-8")
    result = _cli("validate", str(path), "--from", shape, "--mode", "infer-only", "--json")
    issues = json.loads(result.stdout)["files"][0]["issues"]
    assert [(i["code"], i["line"], i["field"]) for i in issues if i["severity"] == "error"] == [(code, 2, where)]


def test_evalscopes_own_example_sets_read_with_every_record(tmp_path: Path) -> None:
    """EvalScope's example files (tests/corpora/shapes): each form of general_qa, and general_mcq's options."""
    qa = _cli(
        "convert",
        str(CORPUS / "evalscope_qa_example.jsonl"),
        "--from",
        "evalscope-qa",
        "-o",
        str(tmp_path / "qa.jsonl"),
    )
    assert qa.exit_code == 0, qa.output
    records = _read(tmp_path / "qa.jsonl")
    assert [r["messages"][0] for r in records[:3]] == [
        {"role": "system", "content": "你是一位天文学家"},
        {"role": "user", "content": "什么动物被称为沙漠之舟？"},
        {"role": "system", "content": "你是一位地理学家"},
    ]
    assert records[2]["messages"][-1]["reference_response"] == "是撒哈拉沙漠"
    mcq = _cli(
        "convert",
        str(CORPUS / "evalscope_mcq_example_val.jsonl"),
        "--from",
        "evalscope-mcq",
        "-o",
        str(tmp_path / "mcq.jsonl"),
    )
    assert mcq.exit_code == 0, mcq.output
    first = _read(tmp_path / "mcq.jsonl")[0]
    assert first["session_id"] == "1" and first["meta"]["category"] == "数学"
    assert first["meta"]["choices"][1] == "y = ax^2 + bx + c" and first["messages"][-1]["reference_response"] == "B"
    again = _cli("convert", str(tmp_path / "mcq.jsonl"), "--to", "evalscope-mcq", "-o", str(tmp_path / "mcq2.jsonl"))
    assert again.exit_code == 0
    assert _read(tmp_path / "mcq2.jsonl") == [
        {k: v for k, v in line.items() if k != "category"} for line in _read(CORPUS / "evalscope_mcq_example_val.jsonl")
    ]


def _run_batch(server: FakeBatch, requests: Path, results: Path) -> None:
    """What a user does with a provider's batch API: upload, create, poll, download."""
    with httpx.Client(base_url=server.base_url) as client:
        upload = client.post(
            "/files", data={"purpose": "batch"}, files={"file": ("batch.jsonl", requests.read_bytes())}
        )
        batch = client.post(
            "/batches",
            json={"input_file_id": upload.json()["id"], "endpoint": "/v1/chat/completions", "completion_window": "24h"},
        ).json()
        for _ in range(5):
            batch = client.get(f"/batches/{batch['id']}").json()
            if batch["status"] == "completed":
                break
        results.write_bytes(client.get(f"/files/{batch['output_file_id']}/content").content)


def test_a_set_runs_through_a_batch_endpoint_and_is_scored_without_run(tmp_path: Path) -> None:
    lines = [
        *SET,
        {"prompt": "FAIL", "answer": "x", "session_id": 11},
        {**SET[2], "session_id": 12, "parameters": {"n": 2, "seed": 1}},
    ]
    source = _write(tmp_path / "set.jsonl", lines)
    written = _cli(
        "convert", str(source), "--to", "openai-batch", "--model", "qwen", "-o", str(tmp_path / "batch.jsonl")
    )
    assert written.exit_code == 0, written.output
    assert "cannot hold reference_response: 5 record(s)" in written.output
    requests = _read(tmp_path / "batch.jsonl")
    assert len(requests) == 6  # one per pending turn, a request per sample of n=2
    assert [r["body"].get("seed") for r in requests[-2:]] == [1, 2]
    answers = {"1+1等于几？": "答案是2", "Capital of France?": "Paris"}
    server = FakeBatch(answer=lambda body: answers.get(body["messages"][-1]["content"], "A")).start()
    try:
        _run_batch(server, tmp_path / "batch.jsonl", tmp_path / "results.jsonl")
    finally:
        server.stop()
    assert server.polls == 2 and len(server.requests) == 6
    scored = _cli(
        "score", str(tmp_path / "results.jsonl"), "--from", "openai-batch", "--set", str(source),
        "-o", str(tmp_path / "scored.jsonl"), "--metric", "exact", "--json",
    )  # fmt: skip
    assert scored.exit_code == 0, scored.output
    records = _read(tmp_path / "scored.jsonl")
    assert [r["session_id"] for r in records] == [7, 8, 9, 11, 12]
    responses = [r["messages"][-1]["responses"] for r in records]
    assert responses[0][0]["model"] == "qwen-2026" and responses[0][0]["usage"]["total_tokens"] == 11
    assert [r[0].get("score") for r in responses[:3]] == [1.0, 0.0, 1.0]  # "答案是2" is 2; "A" is not B
    assert responses[3][0]["error"] == "batch: server_error: the model failed" and responses[3][0]["score"] is None
    assert [r["content"] for r in responses[4]] == ["Paris", "Paris"]


def test_replies_that_belong_to_no_pending_turn_are_errors_at_their_line(tmp_path: Path) -> None:
    source = _write(tmp_path / "set.jsonl", SET)
    assert (
        _cli("convert", str(source), "--to", "openai-batch", "--model", "m", "-o", str(tmp_path / "b.jsonl")).exit_code
        == 0
    )
    request = _read(tmp_path / "b.jsonl")[0]
    reply = {
        "custom_id": request["custom_id"],
        "response": {"status_code": 200, "body": {"choices": [{"message": {"content": "2"}}]}},
    }
    other = _write(tmp_path / "other.jsonl", [{**SET[0], "session_id": 70}, *SET[1:]])
    results = _write(tmp_path / "results.jsonl", [reply, reply])
    twice = _cli(
        "convert", str(results), "--from", "openai-batch", "--set", str(source), "-o", str(tmp_path / "a.jsonl")
    )
    assert twice.exit_code == 1 and "line 2, custom_id" in twice.output and "[unknown_custom_id]" in twice.output
    assert not (tmp_path / "a.jsonl").exists()
    wrong_set = _cli(
        "convert", str(results), "--from", "openai-batch", "--set", str(other), "-o", str(tmp_path / "a.jsonl")
    )
    assert wrong_set.exit_code == 1 and "line 1, custom_id" in wrong_set.output


FIXTURES = [
    ("seed/seed_excel_single_turn.xlsx", "infer-eval"),
    ("seed/seed_excel_multi_turn.xlsx", "infer-eval"),
    ("seed/seed_jsonl_single_turn.jsonl", "infer-eval"),
    ("seed/seed_jsonl_multi_turn.jsonl", "infer-eval"),
    ("valid/single_turn_full_width.jsonl", "infer-eval"),
    ("valid/multi_turn_history.jsonl", "infer-eval"),
    ("valid/infer_only.jsonl", "infer-only"),
]


@pytest.mark.parametrize("shape", ROUND_TRIP)
@pytest.mark.parametrize(("fixture", "mode"), FIXTURES)
def test_the_fixtures_round_trip_through_every_shape_that_holds_them(
    tmp_path: Path, shape: str, fixture: str, mode: str
) -> None:
    """Canonical → the shape → canonical on the project's fixtures: equal apart from the fields listed as
    lost; a fixture the shape cannot hold is refused record by record (a conversation), never cut short."""
    canonical = tmp_path / "canonical.jsonl"
    made = _cli("convert", str(ROOT / "fixtures" / fixture), "--mode", mode, "-o", str(canonical))
    assert made.exit_code == 0, made.output
    written = _cli("convert", str(canonical), "--mode", mode, "--to", shape, "-o", str(tmp_path / "peer.jsonl"))
    before = _read(canonical)
    if written.exit_code == 1:
        conversations = [r for r in before if any(m["role"] == "assistant" for m in r["messages"][:-1])]
        without_options = [r for r in before if not r.get("meta", {}).get("choices")]
        refused = written.output.count("holds one question") + written.output.count("no options (meta.choices)")
        assert refused >= 1 and (conversations or without_options), written.output
        assert "shape_record_unfit" in written.output
        assert not (tmp_path / "peer.jsonl").exists()
        return
    assert written.exit_code == 0, written.output
    lost = _lost(written.output)
    back = _cli(
        "convert", str(tmp_path / "peer.jsonl"), "--from", shape, "--mode", mode, "-o", str(tmp_path / "b.jsonl")
    )
    assert back.exit_code == 0, back.output
    after = _read(tmp_path / "b.jsonl")
    assert len(after) == len(before)
    for old, new in zip(before, after, strict=True):
        if "session_id" in lost:
            new.pop("session_id")
        assert _bare(new) == _drop(old, lost)


def test_published_multiple_choice_answers_round_trip_through_the_choice_shapes(tmp_path: Path) -> None:
    """MMLU-Pro's published options and answers (tests/corpora/choice, 10 options A–J): written as
    EvalScope's general_mcq and OpenCompass's custom set, read back with the same options and letters."""
    corpus = ROOT / "tests" / "corpora" / "choice" / "mmlu_pro_heldout.jsonl"
    picked = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines()[:6]]
    lines = [
        {"prompt": f"MMLU-Pro question {p['question_id']}", "answer": p["reference"], "session_id": i,
         "meta": {"choices": p["options"] if isinstance(p["options"], list) else json.loads(p["options"].replace("'", '"'))}}
        for i, p in enumerate(picked)
    ]  # fmt: skip
    source = _write(tmp_path / "mmlu.jsonl", lines)
    assert _cli("convert", str(source), "-o", str(tmp_path / "canonical.jsonl")).exit_code == 0
    for shape in ("evalscope-mcq", "opencompass"):
        written = _cli(
            "convert", str(tmp_path / "canonical.jsonl"), "--to", shape, "-o", str(tmp_path / f"{shape}.jsonl")
        )
        assert written.exit_code == 0, written.output
        peer = _read(tmp_path / f"{shape}.jsonl")
        assert [line["answer"] for line in peer] == [p["reference"] for p in picked]
        assert all(
            len([k for k in line if len(k) == 1]) == len(lines[i]["meta"]["choices"]) for i, line in enumerate(peer)
        )
        back = _cli(
            "convert", str(tmp_path / f"{shape}.jsonl"), "--from", shape, "-o", str(tmp_path / f"{shape}.back.jsonl")
        )
        assert back.exit_code == 0, back.output
        for old, new in zip(_read(tmp_path / "canonical.jsonl"), _read(tmp_path / f"{shape}.back.jsonl"), strict=True):
            assert new["meta"]["choices"] == old["meta"]["choices"]
            assert new["messages"] == old["messages"]


def test_a_conversation_is_asked_turn_by_turn_one_batch_each(tmp_path: Path) -> None:
    """An earlier assistant turn still to be generated is asked by the first batch; its reply becomes the
    history the second batch sends with the target turn."""
    record = {
        "session_id": 3,
        "messages": [
            {"role": "user", "content": "3+1"},
            {"role": "assistant", "responses": [{"parameters": {}}]},
            {"role": "user", "content": "再加1"},
            {"role": "assistant", "reference_response": "5", "responses": [{"parameters": {}}]},
        ],
    }
    source = _write(tmp_path / "set.jsonl", [record])

    def answer(batch: Path, results: Path, text: str) -> None:
        replies = [
            {"custom_id": r["custom_id"], "response": {"status_code": 200, "body": {"model": "m", "choices": [{"message": {"content": text}}]}}}
            for r in _read(batch)
        ]  # fmt: skip
        _write(results, replies)

    assert (
        _cli("convert", str(source), "--to", "openai-batch", "--model", "m", "-o", str(tmp_path / "b1.jsonl")).exit_code
        == 0
    )
    first = _read(tmp_path / "b1.jsonl")
    assert [r["body"]["messages"] for r in first] == [[{"role": "user", "content": "3+1"}]]
    answer(tmp_path / "b1.jsonl", tmp_path / "r1.jsonl", "4")
    read = _cli(
        "convert",
        str(tmp_path / "r1.jsonl"),
        "--from",
        "openai-batch",
        "--set",
        str(source),
        "-o",
        str(tmp_path / "a1.jsonl"),
    )
    assert read.exit_code == 0 and "1 turn(s) still pending" in read.output
    assert (
        _cli(
            "convert",
            str(tmp_path / "a1.jsonl"),
            "--to",
            "openai-batch",
            "--model",
            "m",
            "-o",
            str(tmp_path / "b2.jsonl"),
        ).exit_code
        == 0
    )
    second = _read(tmp_path / "b2.jsonl")
    assert [r["body"]["messages"][1:] for r in second] == [
        [{"role": "assistant", "content": "4"}, {"role": "user", "content": "再加1"}]
    ]
    answer(tmp_path / "b2.jsonl", tmp_path / "r2.jsonl", "5")
    done = _cli(
        "convert",
        str(tmp_path / "r2.jsonl"),
        "--from",
        "openai-batch",
        "--set",
        str(tmp_path / "a1.jsonl"),
        "-o",
        str(tmp_path / "a2.jsonl"),
    )
    assert done.exit_code == 0 and "0 turn(s) still pending" in done.output
    assert _read(tmp_path / "a2.jsonl")[0]["messages"][-1]["responses"][0]["content"] == "5"
