"""A sick replica never holds a run (issue #39 item 1).

With two ``--base-url``, one replica that resets every connection after reading the request, reads it and
never answers, or streams one byte at a time: each request it fails goes to the other replica after one
try (``RetryPolicy.failover_after``), the sick one is set aside once its requests fail while the other
answers (said at once), and one request tries it again after ``probe_after`` seconds. Every record is
answered once, by the healthy replica; the sick one takes a bounded number of requests. The tests count
requests and bytes, never time; the probe's timing runs on the fake clock.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from fakeclock import FakeClock
from fakeserver import FakeOpenAI, Fault
from typer.testing import CliRunner

from formatkit.cli import app
from scoring._client.body import RateFloor
from scoring._client.http import ChatClient
from scoring._client.options import Limits, RetryPolicy
from scoring._client.pool import EndpointPool
from scoring.errors import RetriesExhaustedError

RECORDS = 120


@pytest.fixture
def pair() -> Iterator[tuple[FakeOpenAI, FakeOpenAI]]:
    healthy, sick = FakeOpenAI().start(), FakeOpenAI().start()
    healthy.delay = 0.002
    yield healthy, sick
    for server in (healthy, sick):
        server.stop()


def write_set(path: Path, count: int) -> Path:
    path.write_bytes(b"".join(orjson.dumps({"prompt": f"q{i}", "answer": "a"}) + b"\n" for i in range(count)))
    return path


def answered(out: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line)["messages"][-1]["responses"][0] for line in out.read_bytes().splitlines()]


def sick_for_good(server: FakeOpenAI, kind: str) -> None:
    fault = Fault(kind, delay=0.02 if kind == "trickle_bytes" else 0.0)  # 50 bytes a second
    server.rules.append(lambda body: fault)


def run_cli(src: Path, out: Path, healthy: FakeOpenAI, sick: FakeOpenAI, *more: str) -> Any:
    args = ["run", str(src), "-o", str(out), "--base-url", sick.base_url, "--base-url", healthy.base_url]
    # --timeout 2, not less: the healthy replica must answer within it on a loaded machine (a retry there would
    # be a second request for one record), while the silent one is still found out within a few seconds
    args += ["--model", "m", "--concurrency", "8", "--timeout", "2", "--min-rate", "1000", *more]
    return CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, args)


def check_every_record_once_from_the_healthy_one(out: Path, healthy: FakeOpenAI) -> None:
    responses = answered(out)
    assert [r["content"] for r in responses] == [f"q{i}" for i in range(RECORDS)]
    assert all("error" not in r for r in responses)
    assert Counter(r["endpoint"] for r in responses) == {healthy.base_url: RECORDS}


@pytest.mark.parametrize("kind", ["reset", "silent", "trickle_bytes"])
def test_a_sick_replica_is_set_aside_and_the_healthy_one_answers_every_record_once(
    tmp_path: Path, pair: tuple[FakeOpenAI, FakeOpenAI], kind: str
) -> None:
    healthy, sick = pair
    sick_for_good(sick, kind)
    src, out = write_set(tmp_path / "set.jsonl", RECORDS), tmp_path / "out.jsonl"
    result = run_cli(src, out, healthy, sick)
    assert result.exit_code == 0, result.output
    check_every_record_once_from_the_healthy_one(out, healthy)
    # never paid twice where it was answered: the healthy replica got each record once
    assert healthy.requests == RECORDS
    # the sick one took what its 8 slots held when it fell sick, and a few more before the proof: bounded
    assert 1 <= sick.requests <= 16
    record = json.loads((tmp_path / "out.jsonl.run.json").read_text())
    sick_report, healthy_report = record["endpoints"]
    assert sick_report["replies"] == 0 and sick_report["set_aside"] == 1 and sick_report["dropped"]
    assert sick_report["handed_on"] == sick.requests  # every request it took went to the other one
    assert healthy_report["replies"] == RECORDS and healthy_report["dropped"] is None
    assert sick.base_url in result.output and "tries it again in 30 s" in result.output


def test_with_two_processes_too(tmp_path: Path, pair: tuple[FakeOpenAI, FakeOpenAI]) -> None:
    healthy, sick = pair
    sick_for_good(sick, "reset")
    src, out = write_set(tmp_path / "set.jsonl", RECORDS), tmp_path / "out.jsonl"
    result = run_cli(src, out, healthy, sick, "--processes", "2")
    assert result.exit_code == 0, result.output
    check_every_record_once_from_the_healthy_one(out, healthy)
    assert healthy.requests == RECORDS
    assert 1 <= sick.requests <= 32  # each worker's pool sets it aside on its own
    record = json.loads((tmp_path / "out.jsonl.run.json").read_text())
    assert record["endpoints"][0]["replies"] == 0 and record["endpoints"][1]["replies"] == RECORDS


def test_the_notice_is_said_in_chinese(tmp_path: Path, pair: tuple[FakeOpenAI, FakeOpenAI]) -> None:
    healthy, sick = pair
    sick_for_good(sick, "silent")
    src, out = write_set(tmp_path / "set.jsonl", RECORDS), tmp_path / "out.jsonl"
    result = run_cli(src, out, healthy, sick, "--lang", "zh")
    assert result.exit_code == 0, result.output
    assert "秒后再用一个请求试探它" in result.output and "tries it again" not in result.output


async def _ask(pool: EndpointPool, count: int) -> list[str]:
    replies = await asyncio.gather(*(pool.complete([{"role": "user", "content": f"x{i}"}], {}) for i in range(count)))
    return [r[0].content for r in replies]


def test_a_set_aside_replica_is_probed_after_its_rest_doubled_while_it_fails_and_taken_back(
    pair: tuple[FakeOpenAI, FakeOpenAI],
) -> None:
    healthy, sick = pair
    clock = FakeClock()
    notes: list[str] = []

    async def scenario() -> None:
        retry = RetryPolicy(backoff_base=0.001, probe_after=30.0)
        clients = [ChatClient(s.base_url, "m", limits=Limits(concurrency=2), retry=retry) for s in (healthy, sick)]
        for client in clients:
            client.clock = clock
        async with EndpointPool(clients, on_notice=notes.append) as pool:
            assert await _ask(pool, 8) == [f"x{i}" for i in range(8)]
            assert sick.requests > 0  # both served
            sick_for_good(sick, "reset")
            before = sick.requests
            assert await _ask(pool, 20) == [f"x{i}" for i in range(20)]
            assert [n for n in notes if "is set aside" in n and sick.base_url in n]
            taken = sick.requests - before
            assert 3 <= taken <= 6  # its two slots, until three in a row failed
            # resting: nothing goes to it
            clock.time += 29.0
            await _ask(pool, 6)
            assert sick.requests - before == taken
            # its rest is over: one request tries it, fails (handed on), and it rests twice as long
            clock.time += 1.0
            assert await _ask(pool, 6) == [f"x{i}" for i in range(6)]
            assert sick.requests - before == taken + 1
            clock.time += 30.0
            await _ask(pool, 6)
            assert sick.requests - before == taken + 1
            # it recovered: after the doubled rest one request tries it, is answered, and it is taken back
            sick.rules.clear()
            clock.time += 30.0
            await _ask(pool, 1)
            assert sick.requests - before == taken + 2
            assert [n for n in notes if "answers again" in n and sick.base_url in n]
            await _ask(pool, 12)
            assert sick.requests - before > taken + 2  # it takes its share again
            [sick_report] = [e for e in pool.report() if e["base_url"] == sick.base_url]
            assert sick_report["dropped"] is None and sick_report["set_aside"] == 1

    asyncio.run(scenario())
    assert sum("is set aside" in n for n in notes) == 1  # said once, not for each failed probe


def test_a_trickling_reply_is_cut_by_the_rate_floor(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("trickle_bytes", delay=0.02)])

    async def scenario() -> None:
        limits = Limits(timeout=0.3, min_rate=1000.0)
        async with ChatClient(fake_openai.base_url, "m", limits=limits, retry=RetryPolicy(max_retries=0)) as client:
            with pytest.raises(RetriesExhaustedError, match="--min-rate"):
                await client.complete([{"role": "user", "content": "hi"}], {})

    asyncio.run(scenario())
    assert fake_openai.requests == 1
    assert fake_openai.bytes_sent < 100  # cut after the first window, far before the reply's end


def test_the_floor_and_the_total_time_have_defaults() -> None:
    limits = Limits()
    assert limits.min_rate and limits.min_rate > 0
    assert limits.max_time is not None and limits.max_time >= 600
    assert RetryPolicy().failover_after == 1


def test_the_rate_floor_counts_from_the_first_byte_and_cuts_only_a_slow_window() -> None:
    now = [0.0]
    floor = RateFloor(8.0, 60.0, clock=lambda: now[0])
    now[0] = 59.0  # a long prompt read before the first token: the read timeout's, not the floor's
    floor.came(100)
    for _ in range(30):  # then 100 bytes a second (a token a second): never cut
        now[0] += 1.0
        floor.came(100)
    for _ in range(59):  # then a byte every second: cut once a whole window is below 8 bytes a second
        now[0] += 1.0
        floor.came(1)
    with pytest.raises(httpx.ReadTimeout, match="--min-rate"):
        for _ in range(61):
            now[0] += 1.0
            floor.came(1)
