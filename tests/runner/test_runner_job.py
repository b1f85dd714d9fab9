"""RunJob through the Python API: journal contents, torn journal after a crash, plan, summary."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
from fakeserver import FakeOpenAI, Fault, last_user

from formatkit import RecordDict
from scoring import RetryPolicy
from scoring._client.http import ChatClient
from scoring._runner.job import RunJob, RunSummary, journal_path, record_key, settings_fingerprint
from scoring._runner.journal import Journal
from scoring._runner.progress import NullProgress, PlainProgress, format_seconds
from scoring._runner.runner import Runner


def records(count: int) -> list[RecordDict]:
    return [
        {
            "session_id": i,
            "messages": [
                {"role": "user", "content": f"q{i}"},
                {"role": "assistant", "reference_response": "a", "responses": [{"parameters": {}}]},
            ],
            "meta": {"dataset": "d"},
        }
        for i in range(count)
    ]


def run_job(server: FakeOpenAI, source: list[RecordDict], out: Path, **kw: Any) -> RunSummary:
    async def go() -> RunSummary:
        async with ChatClient(server.base_url, "m", retry=RetryPolicy(backoff_base=0.001, max_retries=1)) as client:
            return await RunJob(Runner(client), lambda: iter(source), out, **kw).run()

    return asyncio.run(go())


def test_journal_holds_one_line_per_finished_record(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    summary = run_job(fake_openai, records(5), out)
    assert summary.finished == 5 and summary.requests == 5 and summary.tokens["total_tokens"] == 20
    entries = Journal(journal_path(out)).load()
    assert len(entries) == 5
    assert {e["status"] for e in entries.values()} == {"ok"}
    settings = settings_fingerprint("m", {})
    assert set(entries) == {record_key(i, r, settings) for i, r in enumerate(records(5))}


def test_a_torn_journal_line_is_redone(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    run_job(fake_openai, records(4), out)
    journal = journal_path(out)
    data = journal.read_bytes()
    # Records finish in any order: the torn one is whichever was journaled last.
    torn = orjson.loads(data.splitlines()[-1])["entry"]["record"]["messages"][0]["content"]
    journal.write_bytes(data[: len(data) - 30])  # the last line torn, as kill -9 would leave it
    fake_openai.reset()
    summary = run_job(fake_openai, records(4), out)
    assert [last_user(b) for b in fake_openai.bodies] == [torn]
    assert summary.resumed == 3 and summary.finished == 4
    assert [orjson.loads(line)["session_id"] for line in out.read_bytes().splitlines()] == [0, 1, 2, 3]


def test_meta_comes_from_the_input_as_it_is_now(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    run_job(fake_openai, records(2), out)
    changed = records(2)
    changed[1]["meta"] = {"dataset": "renamed"}
    run_job(fake_openai, changed, out)
    assert fake_openai.requests == 2  # meta does not change the conversation: nothing resent
    assert [orjson.loads(line)["meta"]["dataset"] for line in out.read_bytes().splitlines()] == ["d", "renamed"]


def test_summary_counts_errors_by_kind(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.rules.append(lambda body: Fault("404", message="no such model") if last_user(body) == "q1" else None)
    fake_openai.rules.append(lambda body: Fault("500") if last_user(body) == "q2" else None)
    summary = run_job(fake_openai, records(4), tmp_path / "out.jsonl")
    assert summary.with_errors == 2 and summary.finished == 2
    assert summary.errors_by_kind == {"http_404": 1, "http_500": 1}
    assert summary.to_dict()["errors_by_kind"] == {"http_404": 1, "http_500": 1}


def test_plan_counts_without_sending(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    source = records(3)
    source[0]["messages"][-1]["responses"] = [{"parameters": {"n": 2, "temperature": 0}}] * 2
    source[2]["messages"][-1]["responses"][0]["content"] = "done already"

    async def go() -> Any:
        async with ChatClient(fake_openai.base_url, "m") as client:
            return RunJob(Runner(client, defaults={"top_p": 0.5}), lambda: iter(source), tmp_path / "o").plan()

    plan = asyncio.run(go())
    assert plan.requests == 3 and plan.records_with_work == 2 and plan.records == 3
    assert plan.first_request == {
        "model": "m",
        "messages": [{"role": "user", "content": "q0"}],
        "top_p": 0.5,
        "temperature": 0,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert fake_openai.requests == 0


def test_plain_progress_lines(tmp_path: Path) -> None:
    import io

    stream = io.StringIO()
    progress = PlainProgress(stream, interval=0)
    progress.start(4)
    progress.advance(resumed=True)
    progress.advance(error=True)
    progress.stop()
    lines = stream.getvalue().splitlines()
    assert lines[1].startswith("run: 2/4 records (50.0%)") and "1 with errors" in lines[1]
    counter = NullProgress()
    counter.start(None)
    counter.advance()
    assert counter.done == 1 and counter.eta is None
    assert [format_seconds(s) for s in (5, 125, 3725, None)] == ["5s", "2m05s", "1h02m05s", "?"]


def test_slot_table_keeps_the_last_line_per_position(tmp_path: Path) -> None:
    from scoring._runner.job import SlotTable

    journal = Journal(tmp_path / "j")
    journal.append("0:aaa", {"v": 1})
    journal.append("5:bbb", {"v": 2})
    journal.append("0:ccc", {"v": 3})
    journal.append("not-a-position", {"v": 4})
    table = SlotTable.from_journal(journal)
    assert table.filled == 2
    slot0, slot5 = table.get(0), table.get(5)
    assert slot0 is not None and slot5 is not None
    assert journal.read_item(slot0) == ("0:ccc", {"v": 3})
    assert journal.read(slot5) == {"v": 2}
    assert table.get(1) is None and table.get(99) is None
    assert [key for key, _ in journal.scan()] == ["0:aaa", "5:bbb", "0:ccc", "not-a-position"]
    journal.close()
