"""Past one core (issue #30 item 2): ``run --processes N`` sends from N worker processes while the run
keeps one output, one journal and one run record; what a record gets does not depend on N."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
from fakeserver import FakeOpenAI, Fault, last_user
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
