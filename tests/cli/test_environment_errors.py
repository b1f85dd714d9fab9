"""What the machine refuses — an output under a file, a device or a pipe given as a small side file, a
SIGTERM — gives one line and an exit code through the real entry point, never a traceback (issue 14)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sigterm import terminate_while_writing

RESPONSES = Path(__file__).parents[2] / "fixtures" / "responses"


def formatkit(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    code = "import sys; from formatkit.cli import main; sys.argv[0] = 'formatkit'; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["score", str(RESPONSES / "gsm8k.jsonl"), "-o", "{file}/scored.jsonl"], id="score"),
        pytest.param(["convert", str(RESPONSES / "gsm8k.jsonl"), "-o", "{file}/out.jsonl"], id="convert"),
    ],
)
def test_an_output_that_cannot_be_written_is_one_line(tmp_path: Path, args: list[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = formatkit(*[a.replace("{file}", str(blocker)) for a in args])
    assert result.returncode in (1, 2), result.stderr
    assert "Traceback" not in result.stderr and str(blocker) in result.stderr


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """gsm8k's responses scored, once for the tests of this module that read a scored file."""
    path = tmp_path_factory.mktemp("scored") / "scored.jsonl"
    result = formatkit("score", str(RESPONSES / "gsm8k.jsonl"), "-o", str(path))
    assert result.returncode == 0, result.stderr
    return path


def test_report_into_a_path_under_a_file_is_one_line(tmp_path: Path, scored: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    result = formatkit("report", str(scored), "--format", "md", "-o", str(tmp_path / "a-file" / "r.md"))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "cannot write there" in result.stderr


@pytest.mark.parametrize("side", ["device", "fifo", "huge"])
def test_small_side_files_are_bounded(tmp_path: Path, scored: Path, side: str) -> None:
    if side == "device":
        path = "/dev/zero"
    elif side == "fifo":
        path = str(tmp_path / "pipe")
        os.mkfifo(path)
    else:
        path = str(tmp_path / "huge.json")
        with open(path, "wb") as handle:
            handle.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of nothing, read no further than the limit
    # a device or a pipe read to its end would never end: the 60 s limit of formatkit() stops a hung test
    result = formatkit("report", str(scored), "--dimensions", path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--dimensions" in result.stderr
    judged = formatkit(
        "score", str(scored), "-o", str(tmp_path / "j.jsonl"), "--metric", "judge", "--judge-base-url",
        "http://127.0.0.1:9/v1", "--judge-model", "j", "--judge-template", path,
    )  # fmt: skip
    assert judged.returncode == 2 and "judge template: cannot read" in judged.stderr


@pytest.mark.slow
def test_sigterm_during_score_leaves_no_temporary_file(tmp_path: Path) -> None:
    source = tmp_path / "big.jsonl"
    line = '{"prompt": "3+4=?", "answer": "7", "response": "The answer is 7."}\n'
    source.write_text(line * 200_000, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    returncode, err = terminate_while_writing(["score", str(source), "-o", str(out), "--metric", "exact"], tmp_path)
    assert returncode == 128 + signal.SIGTERM
    assert b"Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.jsonl"]
