"""The shipped Slurm job script (docs/jobs/slurm-eval.sh) submitted for real: a one-node Slurm from Debian's
packages (tests/integration/slurm_cluster.py), a job array of ``eval --shard K/4`` then the dependent merge
and report, against the fake server on 127.0.0.1 -- and the merged result equals one machine's eval.

Marked ``jobs`` (not in the default suite; CI runs ``pytest -m jobs`` after ``apt-get install slurm-wlm
munge``); skipped, with the reason, where Slurm is not installed or the tests do not run as root.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from fakeserver import FakeOpenAI
from slurm_cluster import running_slurm, slurm_marks, wait_for_jobs
from typer.testing import CliRunner

from formatkit.cli import app

pytestmark = slurm_marks

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "docs" / "jobs" / "slurm-eval.sh"
#: 2,500 rows saved by LibreOffice: over the platform's 1,000-row upload limit, which a part does not check
SET = ROOT / "tests" / "corpora" / "spreadsheets" / "rows_2500.xlsx"
ROWS = 2500
PARTS = 4
FORMATKIT = Path(sys.executable).with_name("formatkit")


def records(path: Path, *drop: str) -> list[dict[str, Any]]:
    """The records with the timings each reply carries removed (they differ between any two runs), and the
    reply fields ``drop`` names."""
    out = []
    for line in path.read_bytes().splitlines():
        record = orjson.loads(line)
        for message in record["messages"]:
            for response in message.get("responses") or []:
                for key in ("latency_ms", "ttft_ms", *drop):
                    response.pop(key, None)
        out.append(record)
    return out


def endpoints(path: Path) -> list[str]:
    """The endpoint that gave each record's reply."""
    return [orjson.loads(line)["messages"][-1]["responses"][0]["endpoint"] for line in path.read_bytes().splitlines()]


def job_env(slurm: dict[str, str], server: FakeOpenAI, out: Path, parts: int) -> dict[str, str]:
    """The variables the script's header tells a user to export."""
    return {
        **slurm,
        "FORMATKIT_INPUT": str(SET),
        "FORMATKIT_OUT": str(out),
        "FORMATKIT_PARTS": str(parts),
        "FORMATKIT_BASE_URL": server.base_url,
        "FORMATKIT_MODEL": "fake",
        "OPENAI_API_KEY": "",
        "FORMATKIT": str(FORMATKIT),
    }


def submit(env: dict[str, str], cwd: Path) -> tuple[str, str]:
    """``bash slurm-eval.sh`` as the header says: the array's and the merge's job ids."""
    done = subprocess.run(["bash", str(SCRIPT)], env=env, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    found = re.search(r"job array (\d+) .* job (\d+)", done.stdout)
    assert found, done.stdout
    return found[1], found[2]


def logs(out: Path) -> str:
    return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-1500:]}" for p in sorted(out.glob("logs/*")))


@pytest.fixture
def server() -> Any:
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def replica() -> Any:
    replica = FakeOpenAI().start()
    yield replica
    replica.stop()


def test_the_array_then_the_merge_equal_one_machine(server: FakeOpenAI, replica: FakeOpenAI, tmp_path: Path) -> None:
    out = tmp_path / "sharded"
    with running_slurm(tmp_path / "slurm") as slurm:
        # two replicas of the model: every part sends to both
        env = job_env(slurm, server, out, PARTS) | {"FORMATKIT_BASE_URL": f"{server.base_url} {replica.base_url}"}
        array, merge = submit(env, tmp_path)
        states = wait_for_jobs(slurm, [array, merge])
    expected = {f"{array}_{k}": "COMPLETED" for k in range(1, PARTS + 1)} | {merge: "COMPLETED"}
    assert states == expected, logs(out)
    # each record asked once, over the four tasks, each part's requests spread over both replicas
    sent = {server.base_url: server.requests, replica.base_url: replica.requests}
    assert sum(sent.values()) == ROWS and min(sent.values()) > 0
    for k in range(1, PARTS + 1):
        part = orjson.loads((out / f"part.{k}" / "run.json").read_bytes())
        assert part["shard"]["part"] == f"{k}/{PARTS}"
    # one machine, the same set (past the upload limit: --profile none, which the parts did not need)
    whole = tmp_path / "whole"
    result = CliRunner(env={"OPENAI_API_KEY": ""}).invoke(
        app, ["eval", str(SET), "-o", str(whole), "--profile", "none", "--base-url", server.base_url, "--model", "fake"]
    )
    assert result.exit_code == 0, result.output
    merged = records(out / "scored.jsonl", "endpoint")
    assert len(merged) == ROWS
    assert merged == records(whole / "scored.jsonl", "endpoint")
    # each reply names the replica that gave it, and each part used both
    named = endpoints(out / "scored.jsonl")
    assert {url: named.count(url) for url in sent} == sent
    for k in range(PARTS):
        assert set(named[k::PARTS]) == {server.base_url, replica.base_url}
    # the report's scores and intervals are one machine's (its timings are not)
    report, one = (orjson.loads((d / "report.json").read_bytes()) for d in (out, whole))
    assert report["models"]["fake"]["datasets"] == one["models"]["fake"]["datasets"]
    for key in ("overall", "overall_interval", "dimensions", "datasets", "records", "errors"):
        assert report[key] == one[key], key
    assert "fake" in (out / "report.txt").read_text() and (out / "report.html").stat().st_size > 0
    assert (out / "report.xlsx").stat().st_size > 0  # every report eval writes


def test_a_failed_part_cancels_the_merge_and_the_recovery_command_completes_it(
    server: FakeOpenAI, tmp_path: Path
) -> None:
    out = tmp_path / "sharded"
    server.go_down()  # every part fails: the endpoint refuses connections
    with running_slurm(tmp_path / "slurm") as slurm:
        env = job_env(slurm, server, out, 2)
        array, merge = submit(env, tmp_path)
        states = wait_for_jobs(slurm, [array, merge])
        assert states == {f"{array}_1": "FAILED", f"{array}_2": "FAILED", merge: "CANCELLED"}, logs(out)
        assert not (out / "scored.jsonl").exists()
        # the endpoint is back: the header's recovery command submits the parts and a merge that waits for them
        back = FakeOpenAI().start(server.port)
        try:
            done = subprocess.run(
                ["bash", str(SCRIPT), "resubmit", "1,2"], env=env, cwd=tmp_path, capture_output=True, text=True
            )
            assert done.returncode == 0, done.stderr
            found = re.search(r"job array (\d+), the merge as job (\d+)", done.stdout)
            assert found, done.stdout
            states = wait_for_jobs(slurm, [found[1], found[2]])
        finally:
            back.stop()
    assert set(states.values()) == {"COMPLETED"}, logs(out)
    assert len((out / "scored.jsonl").read_bytes().splitlines()) == ROWS and back.requests == ROWS
