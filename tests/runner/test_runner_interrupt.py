"""Ctrl-C and SIGTERM let the replies in flight land in the journal (issue 18, item 6): a rerun buys
nothing twice. A second Ctrl-C leaves at once. ``run`` and the judges of ``score`` alike."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from fakeserver import FakeOpenAI, Fault
from sigterm import stderr_until

CODE = "import sys; from formatkit.cli import main; sys.argv[0] = 'formatkit'; main()"


def write_set(path: Path, count: int) -> Path:
    path.write_bytes(b"".join(orjson.dumps({"prompt": f"q{i}", "answer": "a"}) + b"\n" for i in range(count)))
    return path


def write_answered(path: Path, count: int) -> Path:
    records = [
        {
            "session_id": i,
            "messages": [
                {"role": "user", "content": f"question {i}"},
                {"role": "assistant", "reference_response": "a", "responses": [{"content": f"answer {i}"}]},
            ],
        }
        for i in range(count)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def run_args(server: FakeOpenAI, src: Path, out: Path) -> list[str]:
    return ["run", str(src), "-o", str(out), "--base-url", server.base_url, "--model", "m", "--concurrency", "4"]


def score_args(server: FakeOpenAI, src: Path, out: Path) -> list[str]:
    return [
        "score", str(src), "-o", str(out), "--metric", "judge", "--concurrency", "4",
        "--judge-base-url", server.base_url, "--judge-model", "j",
    ]  # fmt: skip


#: The command with an hour's grace after the first Ctrl-C: only the second Ctrl-C can end it soon.
HOUR_OF_GRACE = "from scoring._runner import stopping; stopping.GracefulStop.__init__.__defaults__ = (3600.0,)\n" + CODE


def start(args: list[str], code: str = CODE) -> subprocess.Popen[str]:
    env = {**os.environ, "OPENAI_API_KEY": ""}
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def wait_for_lines(process: subprocess.Popen[str], journal: Path, lines: int) -> None:
    deadline = time.monotonic() + 30
    while not (journal.exists() and journal.read_bytes().count(b"\n") >= lines) and time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the command ended too early (exit {process.returncode})")
        time.sleep(0.005)


STOPS = [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated (SIGTERM)")]


@pytest.mark.parametrize("command", ["run", "score"])
@pytest.mark.parametrize(("signum", "code", "said"), STOPS, ids=["Ctrl-C", "SIGTERM"])
def test_a_rerun_after_a_stop_buys_nothing_twice(
    fake_openai: FakeOpenAI, tmp_path: Path, command: str, signum: int, code: int, said: str
) -> None:
    fake_openai.hold_after(8)  # then four requests are in flight, held until the run has heard the signal
    fake_openai.responder = (lambda body: '{"analysis": "ok", "score": 2}') if command == "score" else None
    count = 60
    out = tmp_path / "out.jsonl"
    journal = tmp_path / "out.jsonl.journal"
    if command == "run":
        args = run_args(fake_openai, write_set(tmp_path / "set.jsonl", count), out)
    else:
        args = score_args(fake_openai, write_answered(tmp_path / "answered.jsonl", count), out)
    process = start(args)
    wait_for_lines(process, journal, 8)
    deadline = time.monotonic() + 60
    while fake_openai.in_flight < 4 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    process.send_signal(signum)
    stderr = stderr_until(process, "request(s) in flight")
    fake_openai.release()
    stderr += process.communicate(timeout=30)[1]
    assert process.returncode == code, stderr
    assert said in stderr and "Traceback" not in stderr
    assert "waiting up to 10 s for the 4 request(s) in flight" in stderr
    assert not out.exists()
    first = fake_openai.requests
    assert journal.read_bytes().count(b"\n") == first  # every request sent was journaled
    rerun = subprocess.run([sys.executable, "-c", CODE, *args], capture_output=True, text=True, check=False)
    assert rerun.returncode == 0, rerun.stderr
    assert fake_openai.requests == count  # 60 requests for 60 records, over both runs


def test_a_second_ctrl_c_leaves_at_once(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    fake_openai.rules.append(lambda body: Fault("slow", delay=600) if "q3" not in str(body) else None)
    process = start(run_args(fake_openai, write_set(tmp_path / "set.jsonl", 4), out), HOUR_OF_GRACE)
    wait_for_lines(process, tmp_path / "out.jsonl.journal", 1)
    process.send_signal(signal.SIGINT)
    stderr = stderr_until(process, "Ctrl-C again to leave at once")  # the first one was heard
    process.send_signal(signal.SIGINT)
    # neither the hour of grace nor the 600 s replies: only leaving at once ends it within the safety limit
    stderr += process.communicate(timeout=120)[1]
    assert process.returncode == 130, stderr
    assert "Ctrl-C again to leave at once" in stderr and "Traceback" not in stderr
    assert "1 record(s) finished in this run are kept" in stderr
