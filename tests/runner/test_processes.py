"""Past one core (issue #30 item 2): ``run --processes N`` sends from N worker processes while the run
keeps one output, one journal and one run record; what a record gets does not depend on N."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from fakeserver import FakeOpenAI, Fault, last_user
from sigterm import stderr_until
from typer.testing import CliRunner

from formatkit.cli import app

TIMINGS = ("latency_ms", "ttft_ms")


def write_set(path: Path, count: int) -> Path:
    lines = [{"prompt": f"q{i}" if i % 7 else f"bad {i}", "answer": "a"} for i in range(count)]
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def cli(*args: str) -> Any:
    return CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, list(args))


def responses(out: Path) -> list[dict[str, Any]]:
    found = []
    for line in out.read_bytes().splitlines():
        response = orjson.loads(line)["messages"][-1]["responses"][0]
        found.append({key: value for key, value in response.items() if key not in TIMINGS})
    return found


def test_two_processes_give_what_one_gives_each_record_sent_once(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.rules.append(lambda body: Fault("400", message="refused") if "bad" in last_user(body) else None)
    src = write_set(tmp_path / "set.jsonl", 40)
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    common = ["--base-url", fake_openai.base_url, "--model", "m", "--concurrency", "4"]
    assert cli("run", str(src), "-o", str(one), *common).exit_code == 1  # the "bad" records end in error
    fake_openai.reset()
    result = cli("run", str(src), "-o", str(two), *common, "--processes", "2")
    assert result.exit_code == 1, result.output
    assert fake_openai.requests == 40  # each record once, none lost, none twice
    assert responses(two) == responses(one)
    assert [r.get("error") for r in responses(two)].count("http_400: refused") == 6
    record = json.loads((tmp_path / "two.jsonl.run.json").read_text())
    assert record["processes"] == 2
    assert record["summary"]["requests"] == 40 and record["summary"]["attempts"] == 40
    assert "processes" not in json.loads((tmp_path / "one.jsonl.run.json").read_text())
    # one journal for the run: a rerun (one process) finds every record done and sends nothing
    fake_openai.reset()
    assert cli("run", str(src), "-o", str(two), *common).exit_code == 1
    assert fake_openai.requests == 6  # only the records that ended in error are asked again


def test_an_endpoint_that_cannot_serve_stops_a_run_of_several_processes(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    fake_openai.rules.append(lambda body: Fault("404", message="The model `m` does not exist."))
    src, out = write_set(tmp_path / "set.jsonl", 20), tmp_path / "out.jsonl"
    args = ["--base-url", fake_openai.base_url, "--model", "m", "--processes", "2", "--concurrency", "2"]
    result = cli("run", str(src), "-o", str(out), *args)
    assert result.exit_code == 1
    assert "cannot serve" in result.output and "Traceback" not in result.output
    assert "check the model name" in result.output
    assert not out.exists()
    assert fake_openai.requests <= 2 * 3  # each worker stops after its own handful, as one process would


@pytest.mark.slow
def test_ctrl_c_to_the_whole_group_journals_what_was_in_flight_and_a_rerun_buys_nothing_twice(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    """Ctrl-C in a terminal reaches the workers too: they ignore it, the run's grace lets the replies in
    flight land in the one journal, and the rerun sends only what was never answered."""
    fake_openai.hold_after(8)  # then requests stay in flight until the run has heard Ctrl-C
    count = 40
    src, out = write_set(tmp_path / "set.jsonl", count), tmp_path / "out.jsonl"
    journal = tmp_path / "out.jsonl.journal"
    args = ["run", str(src), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "m"]
    args += ["--concurrency", "4", "--processes", "2"]
    code = "import sys; from formatkit.cli import main; sys.argv[0] = 'formatkit'; main()"
    env = {**os.environ, "OPENAI_API_KEY": ""}
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env=env,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    for _ in range(200_000):  # until the server holds 4 requests (a count, not a time)
        if fake_openai.in_flight >= 4 or process.poll() is not None:
            break
        time.sleep(0.001)
    assert fake_openai.in_flight == 4
    os.killpg(process.pid, signal.SIGINT)  # the parent and its workers, as Ctrl-C does
    stderr = stderr_until(process, "in flight")
    fake_openai.release()
    stderr += process.communicate(timeout=60)[1].decode()
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert not out.exists()
    sent = fake_openai.requests
    assert journal.read_bytes().count(b"\n") == sent  # every request sent was journaled, none lost
    rerun = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, env=env, check=False)
    assert rerun.returncode == 0, rerun.stderr
    assert fake_openai.requests == count  # nothing bought twice over both runs
    assert [r["content"] for r in responses(out)] == [f"q{i}" if i % 7 else f"bad {i}" for i in range(count)]


@pytest.mark.slow
def test_a_worker_killed_stops_the_run_with_its_journal_kept(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """``kill -9`` of one worker: the run stops saying so (exit 1, no traceback, the output not written),
    what finished is journaled, and the rerun sends only what was never answered."""
    fake_openai.hold_after(8)
    count = 30
    src, out = write_set(tmp_path / "set.jsonl", count), tmp_path / "out.jsonl"
    journal = tmp_path / "out.jsonl.journal"
    args = ["run", str(src), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "m"]
    args += ["--concurrency", "4", "--processes", "2"]
    code = "import sys; from formatkit.cli import main; sys.argv[0] = 'formatkit'; main()"
    env = {**os.environ, "OPENAI_API_KEY": ""}
    process = subprocess.Popen([sys.executable, "-c", code, *args], stderr=subprocess.PIPE, env=env)
    for _ in range(200_000):
        if fake_openai.in_flight >= 4 or process.poll() is not None:
            break
        time.sleep(0.001)
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    assert len(children) == 2
    os.kill(int(children[0]), signal.SIGKILL)
    fake_openai.release()
    stderr = process.communicate(timeout=60)[1].decode()
    assert process.returncode == 1, stderr
    assert "worker process" in stderr and "ended" in stderr and "Traceback" not in stderr
    assert not out.exists()
    journaled = journal.read_bytes().count(b"\n")
    assert journaled >= 8
    rerun = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, env=env, check=False)
    assert rerun.returncode == 0, rerun.stderr
    # bought twice at most what was in flight (--concurrency 4), as after kill -9 of one process
    assert count <= fake_openai.requests <= count + 4
    assert len(responses(out)) == count
