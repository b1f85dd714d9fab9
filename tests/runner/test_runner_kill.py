"""Resume after ``kill -9``: nothing finished is sent twice, every record appears once, in input order."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from fakeserver import FakeOpenAI, last_user
from sigterm import stderr_until

CONCURRENCY = 4


def write_set(path: Path, count: int) -> Path:
    path.write_bytes(b"".join(orjson.dumps({"prompt": f"q{i}", "answer": "a"}) + b"\n" for i in range(count)))
    return path


def command(server: FakeOpenAI, src: Path, out: Path, timeout: str = "5") -> list[str]:
    return [
        sys.executable,
        "-c",
        "from formatkit.cli import main; main()",
        "run",
        str(src),
        "-o",
        str(out),
        "--base-url",
        server.base_url,
        "--model",
        "m",
        "--concurrency",
        str(CONCURRENCY),
        "--backoff-base",
        "0.001",
        "--timeout",
        timeout,
    ]


def journaled_prompts(journal: Path) -> list[str]:
    prompts = []
    for line in journal.read_bytes().splitlines(keepends=True):
        if not line.endswith(b"\n"):
            continue  # torn by the kill
        entry = orjson.loads(line)["entry"]
        assert entry["status"] == "ok"
        prompts.append(entry["record"]["messages"][-1]["responses"][0]["content"])
    return prompts


def kill_after(server: FakeOpenAI, src: Path, out: Path, lines: int) -> None:
    env = {**os.environ, "OPENAI_API_KEY": ""}
    process = subprocess.Popen(command(server, src, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    journal = out.with_name(out.name + ".journal")
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            if journal.exists() and journal.read_bytes().count(b"\n") >= lines:
                break
            if process.poll() is not None:
                pytest.fail(f"the run ended before it could be killed (exit {process.returncode})")
            time.sleep(0.002)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(10)
    assert process.returncode == -signal.SIGKILL


def finish(server: FakeOpenAI, src: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": ""}
    return subprocess.run(command(server, src, out), capture_output=True, text=True, env=env, timeout=60)


def check_output(out: Path, count: int) -> None:
    records: list[dict[str, Any]] = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert [r["session_id"] for r in records] == list(range(count))
    assert [r["messages"][-1]["responses"][0]["content"] for r in records] == [f"q{i}" for i in range(count)]


def test_resume_after_kill_9_sends_nothing_finished_twice(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.hold_after(12)  # 12 replies, then the requests in flight wait: the kill comes before the end
    src = write_set(tmp_path / "set.jsonl", 60)
    out = tmp_path / "out.jsonl"
    kill_after(fake_openai, src, out, lines=12)
    assert not out.exists()
    done = journaled_prompts(out.with_name("out.jsonl.journal"))
    assert len(done) >= 12
    first_run = [last_user(b) for b in fake_openai.bodies]
    # At most the requests in flight were lost.
    assert len(first_run) - len(done) <= CONCURRENCY

    fake_openai.reset()
    result = finish(fake_openai, src, out)
    assert result.returncode == 0, result.stderr
    second_run = [last_user(b) for b in fake_openai.bodies]
    assert not set(second_run) & set(done), "a finished record was sent again"
    assert sorted(second_run + done, key=lambda p: int(p[1:])) == [f"q{i}" for i in range(60)]
    check_output(out, 60)


@pytest.mark.slow
def test_killed_again_and_again(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.delay = 0.005
    count = 400
    src = write_set(tmp_path / "set.jsonl", count)
    out = tmp_path / "out.jsonl"
    journal = out.with_name("out.jsonl.journal")
    rng = random.Random(7)
    for round_ in range(5):
        done_before = set(journaled_prompts(journal)) if round_ else set()
        kill_after(fake_openai, src, out, lines=min(count - 10, 40 * (round_ + 1) + rng.randint(0, 20)))
        this_round = [last_user(b) for b in fake_openai.bodies]
        assert not set(this_round) & done_before
        fake_openai.reset()
    done = set(journaled_prompts(journal))
    result = finish(fake_openai, src, out)
    assert result.returncode == 0, result.stderr
    assert not {last_user(b) for b in fake_openai.bodies} & done
    check_output(out, count)


def stop_in_flight(server: FakeOpenAI, process: subprocess.Popen[str], signum: int, answered: int = 8) -> str:
    """Send ``signum`` once the server, having answered ``answered`` requests, holds the next ones in flight;
    once the run has said it waits for them, let them go; the run's stderr."""
    deadline = time.monotonic() + 60
    while server.requests < answered + CONCURRENCY and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    process.send_signal(signum)
    said = stderr_until(process, "request(s) in flight")
    server.release()
    _, rest = process.communicate(timeout=60)
    return said + rest


def test_ctrl_c_keeps_what_finished_and_a_rerun_resumes(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.hold_after(8)  # 8 replies, then the requests in flight wait for the test: the run cannot end first
    src = write_set(tmp_path / "set.jsonl", 60)
    out = tmp_path / "out.jsonl"
    journal = out.with_name("out.jsonl.journal")
    env = {**os.environ, "OPENAI_API_KEY": ""}
    process = subprocess.Popen(
        command(fake_openai, src, out, timeout="300"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    stderr = stop_in_flight(fake_openai, process, signal.SIGINT)
    assert process.returncode == 130, stderr
    done = journaled_prompts(journal)
    assert f"interrupted. {len(done)} record(s) finished in this run are kept in {journal}" in stderr
    assert "Traceback" not in stderr
    assert not out.exists()

    fake_openai.reset()
    result = finish(fake_openai, src, out)
    assert result.returncode == 0, result.stderr
    assert not {last_user(b) for b in fake_openai.bodies} & set(done)
    check_output(out, 60)


def start_and_wait(server: FakeOpenAI, src: Path, out: Path, lines: int, timeout: str = "5") -> subprocess.Popen[str]:
    journal = out.with_name(out.name + ".journal")
    env = {**os.environ, "OPENAI_API_KEY": ""}
    process = subprocess.Popen(
        command(server, src, out, timeout), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    deadline = time.monotonic() + 30
    while not (journal.exists() and journal.read_bytes().count(b"\n") >= lines) and time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the run ended too early (exit {process.returncode})")
        time.sleep(0.005)
    return process


def test_sigterm_behaves_like_ctrl_c(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.hold_after(8)  # 8 replies, then the requests in flight wait for the test: the run cannot end first
    src = write_set(tmp_path / "set.jsonl", 60)
    out = tmp_path / "out.jsonl"
    journal = out.with_name("out.jsonl.journal")
    process = start_and_wait(fake_openai, src, out, 8, timeout="300")
    stderr = stop_in_flight(fake_openai, process, signal.SIGTERM)
    assert process.returncode == 143, stderr
    done = journaled_prompts(journal)
    assert f"terminated (SIGTERM). {len(done)} record(s) finished in this run are kept in {journal}" in stderr
    assert "Traceback" not in stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl.journal", "out.jsonl.journal.lock", "set.jsonl"]

    fake_openai.reset()
    result = finish(fake_openai, src, out)
    assert result.returncode == 0, result.stderr
    assert not {last_user(b) for b in fake_openai.bodies} & set(done)
    check_output(out, 60)


def test_a_second_run_on_the_same_output_is_refused_naming_the_holder(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    # the first run gets 2 replies, then its requests wait until the second run is done: it holds the output
    fake_openai.hold_after(2)
    src = write_set(tmp_path / "set.jsonl", 60)
    out = tmp_path / "out.jsonl"
    first = start_and_wait(fake_openai, src, out, 2, timeout="300")
    try:
        second = finish(fake_openai, src, out)
        assert second.returncode == 2, second.stderr
        assert f"is being written by another run (process {first.pid} holds" in second.stderr
        assert "nothing was sent" in second.stderr
    finally:
        fake_openai.release()
        _, stderr = first.communicate(timeout=60)
    assert first.returncode == 0, stderr
    check_output(out, 60)
    assert len(fake_openai.bodies) == 60  # nothing paid twice
