"""Inputs and outputs at their edges (issue 18, item 5): a line with no end, a named pipe, two commands on
one output, a full disk."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner

from formatkit import convert, validate_file
from formatkit._reading import jsonl_lines
from formatkit.cli import app
from formatkit.errors import OutputError

runner = CliRunner()
FIXTURES = Path(__file__).parents[2] / "fixtures"


def formatkit(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """The ``formatkit`` console script's entry point in this process: its exit code and stderr."""
    from formatkit.cli import main

    capsys.readouterr()
    argv = sys.argv
    sys.argv = ["formatkit", *args]
    try:
        main()
        code: Any = 0
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.argv = argv
    return int(code or 0), capsys.readouterr().err


def _lines(n: int) -> list[str]:
    return [json.dumps({"prompt": f"{i}+1=?", "answer": str(i + 1)}) for i in range(n)]


def test_a_line_past_the_bound_is_one_issue_at_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl_lines, "MAX_LINE_BYTES", 64 << 10)
    lines = _lines(3)
    lines[1] = json.dumps({"prompt": "x" * (1 << 20), "answer": "1"})  # 1 MiB: past the (lowered) bound
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = validate_file(path)
    assert report.counts == {"line_too_long": 1} and report.records == 2
    [issue] = report.issues
    assert issue.line == 2 and "1,048,606 bytes, more than the 64 KiB" in issue.message
    # the line after the long one keeps its number, and a long last line without a break is one issue too
    path.write_bytes(b"\n".join(s.encode() for s in _lines(2)) + b"\n" + b"{" * (300 << 10))
    report = validate_file(path)
    assert [(i.code, i.line) for i in report.issues] == [("line_too_long", 3)] and report.records == 2


@pytest.mark.slow
def test_a_large_file_with_no_line_break_is_an_issue_in_bounded_memory(tmp_path: Path) -> None:
    """A 600 MB file with no line break: a MemoryError traceback before (2 GB), now one issue at line 1,
    read in 64 MiB blocks."""
    path = tmp_path / "blob.jsonl"
    with path.open("wb") as handle:
        block = b"x" * (1 << 20)
        for _ in range(600):
            handle.write(block)
    code = (
        "import resource, sys\n"
        "from formatkit.cli import main\n"
        "sys.argv = ['formatkit', 'validate', sys.argv[1]]\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        "    print('peak', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stderr
    assert "line_too_long" in result.stdout and "Traceback" not in result.stderr
    peak_kib = int(result.stderr.split("peak")[-1])
    assert peak_kib < 400 * 1024  # a few 64 MiB blocks at most, never the file


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A named pipe that a thread fills with 5 records once, then closes."""
    path = tmp_path / "piped.jsonl"
    os.mkfifo(path)

    def feed() -> None:
        with path.open("w", encoding="utf-8") as handle:
            handle.write("\n".join(_lines(5)) + "\n")

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    yield path
    if thread.is_alive():  # nobody opened it: let the writer go
        with path.open("rb") as handle:
            handle.read()
    thread.join(5)


def test_a_named_pipe_holding_records_is_read_not_called_empty(fifo: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["convert", str(fifo), "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0, result.output  # was "The file is empty"
    assert len((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()) == 5


@pytest.mark.parametrize("command", ["run", "score", "export"])
def test_a_command_that_reads_twice_refuses_a_pipe_saying_what_to_do(fifo: Path, tmp_path: Path, command: str) -> None:
    out = tmp_path / ("out.xlsx" if command == "export" else "out.jsonl")
    args = [command, str(fifo), "-o", str(out)]
    if command == "run":
        args += ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "is a pipe, not a file" in result.stderr and "cat " in result.stderr


SCORED = FIXTURES / "responses" / "mmlu_pro.jsonl"


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (["convert", str(FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl")], "out.jsonl"),
        (["score", str(SCORED)], "out.jsonl"),
        (["report", str(SCORED), "--format", "html"], "out.html"),
        (["report", str(SCORED), "--format", "xlsx"], "out.xlsx"),
        (["export", str(SCORED)], "out.xlsx"),
    ],
    ids=["convert", "score", "report", "report-xlsx", "export"],
)
def test_an_output_another_command_is_writing_is_refused(
    held: Any, tmp_path: Path, command: list[str], name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / name
    out.write_bytes(b"the other command's result\n")
    held(out)
    code, stderr = formatkit([*command, "-o", str(out)], capsys)
    assert code == 2, stderr  # both exited 0 before, and one result was lost
    assert "is being written by another formatkit command" in stderr
    assert out.read_bytes() == b"the other command's result\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, f".{name}.lock"])


def test_two_scores_with_a_judge_on_one_output_buy_one_set_of_verdicts(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """Two real `formatkit score` processes at once: the second stops before buying anything."""
    fake_openai.hold_after(1)  # one verdict, then the first waits (holding the output) until the second is done
    fake_openai.responder = lambda body: '{"analysis": "ok", "score": 2}'
    source = tmp_path / "free.jsonl"
    records = [
        {
            "session_id": i,
            "messages": [
                {"role": "user", "content": f"介绍长江，第{i}题。"},
                {
                    "role": "assistant",
                    "reference_response": "长江是中国最长的河流。",
                    "responses": [{"content": "很长"}],
                },
            ],
        }
        for i in range(6)
    ]
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    args = [str(Path(sys.executable).with_name("formatkit")), "score", str(source), "-o", str(out), "--metric", "judge"]
    args += ["--judge-base-url", fake_openai.base_url, "--judge-model", "j", "--concurrency", "1"]
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while fake_openai.requests == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    second = subprocess.run(args, capture_output=True, text=True, timeout=60)
    fake_openai.release()
    _, first_err = first.communicate(timeout=60)
    assert first.returncode == 0, first_err
    assert second.returncode == 2, second.stderr
    assert "is being written by another formatkit command" in second.stderr
    assert fake_openai.requests == 6  # one verdict per record, bought once


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (["export", str(FIXTURES / "seed" / "seed_output_multi_turn.jsonl")], "out.xlsx"),
        (["report", str(SCORED), "--format", "xlsx"], "out.xlsx"),
        (["report", str(SCORED), "--format", "html"], "out.html"),
        (["score", str(SCORED)], "out.jsonl"),
        (["convert", str(FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl")], "out.jsonl"),
    ],
    ids=["export", "report-xlsx", "report-html", "score", "convert"],
)
def test_a_full_disk_is_one_line_and_exit_1(
    tmp_path: Path, command: list[str], name: str, capsys: pytest.CaptureFixture[str], full_disk: None
) -> None:
    """The disk fills while the output is written: one line naming the output, exit 1, nothing left behind
    (export printed a traceback and exited 2, report --format xlsx printed tracebacks)."""
    out = tmp_path / name
    code, stderr = formatkit([*command, "-o", str(out)], capsys)
    assert code == 1, stderr
    assert f"{out}: cannot write it (No space left on device)" in stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) <= 2, stderr
    assert list(tmp_path.iterdir()) == []


def test_the_library_raises_output_error_on_a_full_disk_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError, match="No space left on device"):
        convert([FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl"], tmp_path / "out.jsonl")
    assert list(tmp_path.iterdir()) == []


def test_the_library_refuses_an_output_another_process_writes(held: Any, tmp_path: Path) -> None:
    from formatkit._core.errors import OutputBusyError
    from scoring import score_file

    out = tmp_path / "out.jsonl"
    held(out)
    with pytest.raises(OutputBusyError) as info:
        convert([FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl"], out)
    assert info.value.pid is not None
    with pytest.raises(OutputBusyError):
        score_file(SCORED, out)
    assert not out.exists()


def test_a_second_eval_into_one_directory_sends_nothing(held: Any, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    directory = tmp_path / "eval"
    directory.mkdir()
    held(directory / "eval")  # what a running `formatkit eval -o eval` holds: eval/.eval.lock
    source = FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl"
    args = ["eval", str(source), "--base-url", fake_openai.base_url, "--model", "m", "-o", str(directory)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "is being written by another formatkit command" in result.stderr and "nothing was sent" in result.stderr
    assert fake_openai.requests == 0 and not (directory / "canonical.jsonl").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize(
    ("command", "name", "exit_code"),
    [
        (["convert", str(FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl")], "out.jsonl", 2),
        (["fix", str(FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl")], "out.jsonl", 2),
        (["score", str(SCORED)], "out.jsonl", 1),
        (["export", str(FIXTURES / "seed" / "seed_output_multi_turn.jsonl")], "out.xlsx", 1),
        (["report", str(SCORED), "--format", "html"], "out.html", 1),
        (
            [
                "run",
                str(FIXTURES / "seed" / "seed_output_single_turn.jsonl"),
                *("--base-url", "http://127.0.0.1:9/v1", "--model", "m"),
            ],
            "out.jsonl",
            1,
        ),
    ],
    ids=["convert", "fix", "score", "export", "report", "run"],
)
def test_an_output_that_is_not_a_regular_file_is_refused_and_left_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], name: str, exit_code: int
) -> None:
    """An output is put in place by renaming a new file over it: run as root, `-o /dev/full` replaced the
    device with a plain file. A device, pipe or socket is refused before any work (a named pipe stands in
    for /dev here), and nothing is made beside it (no lock, no journal)."""
    out = tmp_path / name
    os.mkfifo(out)
    code, stderr = formatkit([*command, "-o", str(out)], capsys)
    assert code == exit_code, stderr
    assert "is not a regular file" in stderr and "Traceback" not in stderr, stderr
    assert [p.name for p in tmp_path.iterdir()] == [name]
    assert out.is_fifo()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("name", ["scored.jsonl", "report.html", "run.json"])
def test_eval_refuses_an_output_in_its_directory_that_is_not_a_regular_file_before_any_request(
    fake_openai: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """eval writes several files into its directory; one of them a named pipe (a device, a socket) was
    refused only when its stage came, after every request of the run had been paid for."""
    directory = tmp_path / "eval"
    directory.mkdir()
    os.mkfifo(directory / name)
    source = FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl"
    args = ["eval", str(source), "--base-url", fake_openai.base_url, "--model", "m", "-o", str(directory)]
    code, stderr = formatkit(args, capsys)
    assert code == 1, stderr
    assert "is not a regular file" in stderr and "Traceback" not in stderr, stderr
    assert fake_openai.requests == 0
    assert [p.name for p in directory.iterdir()] == [name] and (directory / name).is_fifo()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_run_refuses_a_run_record_path_that_is_not_a_regular_file_before_any_request(
    fake_openai: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """run writes OUT.run.json once every request is paid for: a named pipe there was refused only then."""
    out = tmp_path / "out.jsonl"
    os.mkfifo(tmp_path / "out.jsonl.run.json")
    source = FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl"
    args = ["run", str(source), "--base-url", fake_openai.base_url, "--model", "m", "-o", str(out)]
    code, stderr = formatkit(args, capsys)
    assert code == 1, stderr
    assert "is not a regular file" in stderr and "Traceback" not in stderr, stderr
    assert fake_openai.requests == 0
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl.run.json"]


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "ascii"])
@pytest.mark.parametrize("typer_only", ["", "1"], ids=["fast-path", "typer"])
def test_chinese_on_a_stream_that_cannot_hold_it_is_utf8_not_a_traceback(
    tmp_path: Path, encoding: str, typer_only: str
) -> None:
    """A Windows redirect in cp1252 (or PYTHONIOENCODING=latin-1) cannot hold Chinese: the report is written
    in UTF-8, through the fast path and through typer alike, instead of ending in a UnicodeEncodeError."""
    name = tmp_path / "中文 题目.jsonl"
    name.write_bytes((FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl").read_bytes())
    env = {**os.environ, "PYTHONIOENCODING": encoding, "_FORMATKIT_TYPER_ONLY": typer_only}
    code = "import sys; sys.argv[0] = 'formatkit'; from formatkit.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "validate", str(name), "--lang", "zh"], capture_output=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in done.stderr
    assert "中文 题目.jsonl：通过" in done.stdout.decode("utf-8")
