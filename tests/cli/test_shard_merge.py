"""``run --shard K/N`` and ``formatkit merge``: N parts give back one unsharded run, record for record."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from fakeserver import FakeOpenAI
from sigterm import stderr_until
from typer.testing import CliRunner, Result

from formatkit.cli import app

#: What a run records about time: it differs between any two runs (the issue: "timings aside").
TIMINGS = ("latency_ms", "ttft_ms")


def write_set(path: Path) -> Path:
    """Two datasets of a multi-turn and single-turn mix, Chinese included: 11 records."""
    lines: list[bytes] = []
    for i in range(8):
        lines.append(orjson.dumps({"prompt": f"题目 {i}：1+{i}=？", "answer": str(1 + i), "meta": {"dataset": "算术"}}))
    for i in range(3):
        lines.append(orjson.dumps({"prompt": f"q{i} (A) yes (B) no", "answer": "A", "meta": {"dataset": "choice"}}))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def invoke(*args: str) -> Result:
    return CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, list(args))


def run(server: FakeOpenAI, src: Path, out: Path, *extra: str) -> Result:
    return invoke("run", str(src), "-o", str(out), "--base-url", server.base_url, "--model", "fake", *extra)


def records(path: Path) -> list[dict[str, Any]]:
    """The records with their timings removed."""
    out = []
    for line in path.read_bytes().splitlines():
        record = orjson.loads(line)
        for message in record["messages"]:
            for response in message.get("responses") or []:
                for key in TIMINGS:
                    response.pop(key, None)
        out.append(record)
    return out


@pytest.fixture
def split(fake_openai: FakeOpenAI, tmp_path: Path) -> tuple[Path, list[Path], Path]:
    """The set, its three parts run, and one unsharded run of it."""
    src = write_set(tmp_path / "set.jsonl")
    whole = tmp_path / "whole.jsonl"
    assert run(fake_openai, src, whole).exit_code == 0
    parts = []
    for k in (1, 2, 3):
        part = tmp_path / f"part{k}.jsonl"
        result = run(fake_openai, src, part, "--shard", f"{k}/3")
        assert result.exit_code == 0, result.output
        parts.append(part)
    return src, parts, whole


def test_parts_hold_every_nth_record(split: tuple[Path, list[Path], Path]) -> None:
    _, parts, whole = split
    every = records(whole)
    for k, part in enumerate(parts):
        assert records(part) == every[k::3]


def test_merge_gives_back_the_unsharded_run(split: tuple[Path, list[Path], Path], tmp_path: Path) -> None:
    _, parts, whole = split
    merged = tmp_path / "merged.jsonl"
    result = invoke("merge", str(parts[2]), str(parts[0]), str(parts[1]), "-o", str(merged))  # any order
    assert result.exit_code == 0, result.output
    assert records(merged) == records(whole)
    record = orjson.loads((tmp_path / "merged.jsonl.run.json").read_bytes())
    assert [p["shard"]["part"] for p in record["parts"]] == ["1/3", "2/3", "3/3"]
    assert record["records"] == 11 and record["model"] == "fake"


def test_scores_and_report_of_the_parts_match_the_unsharded_run(
    split: tuple[Path, list[Path], Path], tmp_path: Path
) -> None:
    _, parts, whole = split
    merged = tmp_path / "merged.jsonl"
    assert invoke("merge", *map(str, parts), "-o", str(merged)).exit_code == 0
    scored = {}
    for path in (whole, merged, *parts):
        out = path.with_name(path.stem + ".scored.jsonl")
        assert invoke("score", str(path), "-o", str(out)).exit_code in (0, 1)
        scored[path] = out
    assert records(scored[merged]) == records(scored[whole])
    # the scored parts carry their run records: they merge to the scored unsharded run too
    merged_scores = tmp_path / "merged.scored2.jsonl"
    result = invoke("merge", *(str(scored[p]) for p in parts), "-o", str(merged_scores))
    assert result.exit_code == 0, result.output
    assert records(merged_scores) == records(scored[whole])
    # report reads the three scored parts as one model, with the scores of the unsharded run
    whole_report = invoke("report", str(scored[whole]), "--format", "json")
    parts_report = invoke("report", *(str(scored[p]) for p in parts), "--format", "json")
    a, b = orjson.loads(whole_report.stdout), orjson.loads(parts_report.stdout)
    assert list(b["models"]) == ["fake"]
    assert [run["shard"]["part"] for run in b["runs"]["fake"]] == ["1/3", "2/3", "3/3"]
    assert a["models"]["fake"]["datasets"] == b["models"]["fake"]["datasets"]
    assert a["overall"] == b["overall"]


def test_merge_refuses_a_missing_part(split: tuple[Path, list[Path], Path], tmp_path: Path) -> None:
    _, parts, _ = split
    result = invoke("merge", str(parts[0]), str(parts[2]), "-o", str(tmp_path / "m.jsonl"))
    assert result.exit_code == 1
    assert "2/3 missing" in result.stderr
    assert not (tmp_path / "m.jsonl").exists()


def test_merge_refuses_a_run_record_path_that_is_a_pipe_before_writing(
    split: tuple[Path, list[Path], Path], tmp_path: Path
) -> None:
    """OUT.run.json is written after OUT: a named pipe (or a device) there is refused before OUT is made."""
    import os

    _, parts, _ = split
    out = tmp_path / "m.jsonl"
    os.mkfifo(tmp_path / "m.jsonl.run.json")
    result = invoke("merge", *map(str, parts), "-o", str(out))
    assert result.exit_code == 1, result.output
    assert "is not a regular file" in result.stderr
    assert not out.exists() and (tmp_path / "m.jsonl.run.json").is_fifo()


def test_merge_refuses_a_part_given_twice(split: tuple[Path, list[Path], Path], tmp_path: Path) -> None:
    _, parts, _ = split
    copy = tmp_path / "again.jsonl"
    copy.write_bytes(parts[1].read_bytes())
    (tmp_path / "again.jsonl.run.json").write_bytes((tmp_path / "part2.jsonl.run.json").read_bytes())
    result = invoke("merge", *map(str, parts), str(copy), "-o", str(tmp_path / "m.jsonl"))
    assert result.exit_code == 1
    assert "part 2/3 is given 2 times" in result.stderr and "again.jsonl" in result.stderr
    assert not (tmp_path / "m.jsonl").exists()


@pytest.mark.parametrize("change", ["drop", "double"])
def test_merge_refuses_a_part_with_a_record_missing_or_doubled(
    split: tuple[Path, list[Path], Path], tmp_path: Path, change: str
) -> None:
    _, parts, _ = split
    lines = parts[1].read_bytes().splitlines(keepends=True)
    parts[1].write_bytes(b"".join(lines[:-1] if change == "drop" else [*lines, lines[0]]))
    result = invoke("merge", *map(str, parts), "-o", str(tmp_path / "m.jsonl"))
    assert result.exit_code == 1
    word = "missing" if change == "drop" else "doubled"
    assert "part2.jsonl (part 2/3) holds" in result.stderr and f"1 record(s) {word}" in result.stderr


def test_merge_refuses_parts_of_another_input(fake_openai: FakeOpenAI, split: tuple[Path, list[Path], Path]) -> None:
    src, parts, _ = split
    other = src.with_name("other.jsonl")
    other.write_bytes(src.read_bytes().replace("题目 3".encode(), "题目 三".encode()))
    stray = src.with_name("stray.jsonl")
    assert run(fake_openai, other, stray, "--shard", "2/3").exit_code == 0
    result = invoke("merge", str(parts[0]), str(stray), str(parts[2]), "-o", str(src.with_name("m.jsonl")))
    assert result.exit_code == 1
    assert "different inputs" in result.stderr and "stray.jsonl" in result.stderr


def test_merge_refuses_a_part_without_its_run_record(split: tuple[Path, list[Path], Path], tmp_path: Path) -> None:
    _, parts, _ = split
    (tmp_path / "part3.jsonl.run.json").unlink()
    result = invoke("merge", *map(str, parts), "-o", str(tmp_path / "m.jsonl"))
    assert result.exit_code == 1
    assert "part3.jsonl: no run record" in result.stderr


def test_bad_shard_is_bad_usage(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write_set(tmp_path / "set.jsonl")
    for spec in ("0/3", "4/3", "2", "a/b"):
        result = run(fake_openai, src, tmp_path / "o.jsonl", "--shard", spec)
        assert result.exit_code == 2, spec
        assert "--shard" in result.stderr
    assert fake_openai.requests == 0


def test_a_killed_part_rerun_merges_to_the_unsharded_run(
    fake_openai: FakeOpenAI, split: tuple[Path, list[Path], Path], tmp_path: Path
) -> None:
    """Part 2 is killed (SIGTERM) half-way, then rerun: it resumes, and the merge is the unsharded run."""
    src, parts, whole = split
    for name in ("part2.jsonl", "part2.jsonl.run.json", "part2.jsonl.journal"):  # part 2 starts from nothing
        (tmp_path / name).unlink()
    fake_openai.hold_after(1)  # one record, then the next waits in flight until the run has heard SIGTERM
    code = "import sys; from formatkit.cli import main; sys.argv[0] = 'formatkit'; main()"
    args = ["run", str(src), "-o", str(parts[1]), "--base-url", fake_openai.base_url, "--model", "fake"]
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args, "--shard", "2/3", "--concurrency", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    journal = tmp_path / "part2.jsonl.journal"
    for _ in range(2000):  # until the first record is journaled
        if journal.exists() and journal.read_bytes().count(b"\n") >= 1:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGTERM)
    said = stderr_until(process, "request(s) in flight")
    fake_openai.release()
    err = said.encode() + process.communicate(timeout=60)[1]
    assert process.returncode == 143, err
    assert not parts[1].exists()
    result = invoke("merge", *map(str, parts), "-o", str(tmp_path / "m.jsonl"))
    assert result.exit_code == 2 and "part2.jsonl" in result.stderr  # the killed part wrote nothing
    sent = fake_openai.requests
    fake_openai.delay = 0.0
    result = run(fake_openai, src, parts[1], "--shard", "2/3")
    assert result.exit_code == 0, result.output
    assert fake_openai.requests - sent < 4  # the journaled record was not sent again
    merged = tmp_path / "merged.jsonl"
    assert invoke("merge", *map(str, parts), "-o", str(merged)).exit_code == 0
    assert records(merged) == records(whole)


def test_parts_that_name_the_input_differently_still_merge(
    fake_openai: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # #30 item 3: each machine may spell the path its own way (relative, ./, absolute): the parts match, and
    # the merge equals one run apart from the timings and meta.source.file, as docs/pages/guide/shards.md says
    src = write_set(tmp_path / "set.jsonl")
    monkeypatch.chdir(tmp_path)
    whole = tmp_path / "whole.jsonl"
    assert run(fake_openai, Path("set.jsonl"), whole).exit_code == 0
    parts = []
    for k, spelled in enumerate([Path("./set.jsonl"), src.resolve(), Path("sub/../set.jsonl")], start=1):
        (tmp_path / "sub").mkdir(exist_ok=True)
        part = tmp_path / f"p{k}.jsonl"
        assert run(fake_openai, spelled, part, "--shard", f"{k}/3").exit_code == 0
        parts.append(part)
    merged = tmp_path / "merged.jsonl"
    result = invoke("merge", *map(str, parts), "-o", str(merged))
    assert result.exit_code == 0, result.output

    def unplaced(path: Path) -> list[dict[str, Any]]:
        out = records(path)
        for record in out:
            record["meta"]["source"].pop("file")
        return out

    assert unplaced(merged) == unplaced(whole)


def test_merge_refuses_a_part_whose_records_are_out_of_input_order(
    split: tuple[Path, list[Path], Path], tmp_path: Path
) -> None:
    # #39: a part with two records swapped was merged "in input order" with them out of order; the records
    # say where they were read (meta.source line), so the part is refused, naming both records
    _, parts, _ = split
    lines = parts[0].read_bytes().splitlines(keepends=True)
    parts[0].write_bytes(b"".join([lines[0], lines[2], lines[1], *lines[3:]]))
    result = invoke("merge", *map(str, parts), "-o", str(tmp_path / "m.jsonl"))
    assert result.exit_code == 1, result.output
    assert "part1.jsonl (part 1/3): record 3 (line 4 of" in result.stderr
    assert "comes after record 2 (line 7)" in result.stderr and "not in input order" in result.stderr
    assert not (tmp_path / "m.jsonl").exists()
    zh = invoke("merge", *map(str, parts), "-o", str(tmp_path / "m.jsonl"), "--lang", "zh")
    assert zh.exit_code == 1 and "不是输入顺序" in zh.stderr


def test_merge_says_when_it_could_not_check_the_order(split: tuple[Path, list[Path], Path], tmp_path: Path) -> None:
    # records that carry no source line cannot be checked: merge does not claim "in input order" for them
    _, parts, whole = split
    for part in parts:
        out = []
        for line in part.read_bytes().splitlines():
            record = orjson.loads(line)
            record["meta"].pop("source")
            out.append(orjson.dumps(record))
        part.write_bytes(b"\n".join(out) + b"\n")
    result = invoke("merge", *map(str, parts), "-o", str(tmp_path / "m.jsonl"))
    assert result.exit_code == 0, result.output
    assert "in input order" not in result.stderr
    assert "11 of them carry no source line or row" in result.stderr
    assert len(records(tmp_path / "m.jsonl")) == len(records(whole))


def test_an_input_not_in_the_order_its_records_were_read_merges_and_says_so(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    # a canonical file sorted after it was read keeps each record's meta.source: its lines step back in the
    # input itself, in every part; that is not a part out of order, so merge writes it and says what it checked
    lines = []
    for i in range(8):
        record = {
            "session_id": i,
            "messages": [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "reference_response": "r"}],
            "meta": {"source": {"file": "orig.xlsx", "sheet": "S", "rows": [20 - i]}},
        }
        lines.append(orjson.dumps(record))
    src = tmp_path / "sorted.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    whole = tmp_path / "whole.jsonl"
    assert run(fake_openai, src, whole).exit_code == 0
    parts = [tmp_path / f"p{k}.jsonl" for k in (1, 2)]
    for k, part in enumerate(parts, 1):
        assert run(fake_openai, src, part, "--shard", f"{k}/2").exit_code == 0
    merged = tmp_path / "m.jsonl"
    result = invoke("merge", *map(str, parts), "-o", str(merged))
    assert result.exit_code == 0, result.output
    assert "in input order" not in result.stderr and "could not be checked" in result.stderr
    assert records(merged) == records(whole)
