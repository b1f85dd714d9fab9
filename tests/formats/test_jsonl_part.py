"""``convert`` of a large jsonl file with a second process reading its later part (formatkit._api.jsonl_part)
gives byte for byte the output and the report of one process reading it alone, whatever the file holds and
wherever its problems are; the worker's records are used only when the whole file is clean, and no file of
the worker's is left behind.

The tests lower the size threshold so that small files take the two-process path; the worker is a real
``python -m`` process."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from formatkit._api import jsonl_part
from formatkit._api.conversion import convert
from formatkit._core import interpreter
from formatkit._core.modes import Mode

FIXTURES = Path(__file__).parents[2] / "fixtures"
JSONL_FIXTURES = sorted(
    p
    for folder in ("valid", "seed", "invalid/jsonl")
    for p in (FIXTURES / folder).iterdir()
    if p.suffix == ".jsonl" and not p.name.startswith("seed_output")
)
MODES: tuple[Mode, ...] = ("infer-eval", "infer-only", "scored")


@pytest.fixture
def two_parts(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every jsonl file of a one-file convert takes the two-process path (split at its middle); the list
    receives, per convert, whether the worker's records were used."""
    monkeypatch.setattr(jsonl_part, "MIN_BYTES", 0)
    monkeypatch.setattr(jsonl_part, "_LEAD", 0)
    monkeypatch.setattr(jsonl_part, "_usable_cores", lambda: 2)
    monkeypatch.delenv("FORMATKIT_WORKERS", raising=False)
    used: list[bool] = []
    join = jsonl_part.LaterPart.join

    def spy(self: jsonl_part.LaterPart, run: Any, handle: Any) -> bool:
        joined = join(self, run, handle)
        used.append(joined)
        return joined

    monkeypatch.setattr(jsonl_part.LaterPart, "join", spy)
    start = jsonl_part.LaterPart.start.__func__  # type: ignore[attr-defined]

    def started(cls: type[jsonl_part.LaterPart], *args: Any, **kwargs: Any) -> Any:
        """On a small file this process would pass the middle before the worker (a fresh interpreter) has
        said where it is: wait for it, as on a large file, where it says so long before."""
        part = start(cls, *args, **kwargs)
        if part is not None:
            part._listener.join(timeout=0.001)
            while part.boundary == sys.maxsize and part._process.poll() is None:
                time.sleep(0.005)
        return part

    monkeypatch.setattr(jsonl_part.LaterPart, "start", classmethod(started))
    return used


def _line(i: int, mode: Mode) -> dict[str, Any]:
    line: dict[str, Any] = {"prompt": f"第{i}题：1+{i}等于几？ What is 1+{i}?"}
    if i % 3:
        line["system"] = "你是一个严谨的助手。" if i % 2 else "   "
    if mode != "infer-only":
        line["answer"] = str(1 + i)
    if mode == "scored":
        line["response"] = f"答案是 {1 + i}"
    if i % 4 == 0:
        line["parameters"] = {"temperature": 0.7, "max_tokens": 512, "n": 1 + i % 3}
    return line


def _write(path: Path, lines: list[Any], *, raw: dict[int, bytes] | None = None) -> Path:
    """One JSON line per item, Chinese unescaped; ``raw`` replaces the bytes of some lines (1-based)."""
    out = []
    for number, line in enumerate(lines, start=1):
        if raw and number in raw:
            out.append(raw[number])
        else:
            out.append(json.dumps(line, ensure_ascii=False).encode() + b"\n")
    path.write_bytes(b"".join(out))
    return path


def _outcome(path: Path, out: Path, mode: Mode, *, meta: bool = True) -> tuple[dict[str, Any], bytes | None]:
    out.unlink(missing_ok=True)
    report = convert([path], out, mode=mode, profile="none", meta=meta)
    written = out.read_bytes() if out.exists() else None
    return report.model_dump(), written


def _compare(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: Mode = "infer-eval", *, meta: bool = True
) -> tuple[dict[str, Any], bytes | None]:
    """The two-process convert of ``path`` against one process; both outcomes equal, nothing left over."""
    two = _outcome(path, tmp_path / "out" / "two.jsonl", mode, meta=meta)
    with monkeypatch.context() as serial:
        serial.setenv("FORMATKIT_WORKERS", "1")
        one = _outcome(path, tmp_path / "out" / "one.jsonl", mode, meta=meta)
    assert two[0]["files"][0].pop("path") == one[0]["files"][0].pop("path")
    assert two == one
    leftovers = sorted(p.name for p in (tmp_path / "out").iterdir() if p.name not in ("one.jsonl", "two.jsonl"))
    assert leftovers == []
    return one


@pytest.mark.parametrize("mode", MODES)
def test_a_clean_file_is_read_on_two_cores_with_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_parts: list[bool], mode: Mode
) -> None:
    path = _write(tmp_path / "set.jsonl", [_line(i, mode) for i in range(3000)])
    report, written = _compare(path, tmp_path, monkeypatch, mode)
    assert two_parts == [True]  # the worker's records were used
    assert report["valid"] and report["files"][0]["records"] == 3000
    assert written is not None
    lines = written.splitlines()
    assert [json.loads(line)["session_id"] for line in lines] == list(range(3000))
    assert [json.loads(line)["meta"]["source"]["line"] for line in lines] == list(range(1, 3001))


def test_without_meta_and_with_trailing_blank_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_parts: list[bool]
) -> None:
    path = _write(tmp_path / "set.jsonl", [_line(i, "infer-eval") for i in range(2000)])
    path.write_bytes(path.read_bytes() + b"\n\n  \n")
    _compare(path, tmp_path, monkeypatch, meta=False)
    assert two_parts == [True]


#: A line of the later part (near the end) that breaks the clean state, each in its own way.
LATER_PROBLEMS = {
    "duplicate_key": b'{"prompt": "a", "answer": "1", "prompt": "b"}\n',
    "blank_line": b"\n",
    "invalid_json": b'{"prompt": "a", "answer": "1",}\n',
    "session_id_given": b'{"session_id": 7, "prompt": "a", "answer": "1"}\n',
    "session_id_past": b'{"session_id": 99999, "prompt": "a", "answer": "1"}\n',  # no problem, but an id given
    "multi_turn_line": b'{"messages": [{"role": "user", "content": "a"}], "answer": "1"}\n',
    "not_utf8": '{"prompt": "中文", "answer": "1"}\n'.encode("gbk"),
    "big_number": b'{"prompt": "a", "answer": "1", "parameters": {"max_tokens": 99999999999999999999}}\n',
    "bad_parameter": b'{"prompt": "a", "answer": "1", "parameters": {"temperature": 9}}\n',
    "warning_only": b'{"prompt": "a", "answer": "1", "parameters": {"top_k": 5}}\n',
    "no_answer": b'{"prompt": "a"}\n',
}


#: The default suite checks these; ``-m slow`` every problem (each case starts a worker, ~0.3 s).
QUICK = ("duplicate_key", "blank_line", "session_id_given", "not_utf8", "warning_only")


def _problems() -> list[Any]:
    return [p if p in QUICK else pytest.param(p, marks=pytest.mark.slow) for p in sorted(LATER_PROBLEMS)]


@pytest.mark.parametrize("problem", _problems())
@pytest.mark.parametrize("where", [1, 1000, 1001, 2000])
def test_a_problem_anywhere_gives_one_process_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_parts: list[bool], problem: str, where: int
) -> None:
    """The split falls after line 1000 of 2000 equal lines: lines 1 and 1000 are the first and last of this
    process's part, 1001 and 2000 of the worker's."""
    lines = [{"prompt": f"q{i:05d}", "answer": f"{i:05d}"} for i in range(2000)]
    path = _write(tmp_path / "set.jsonl", lines, raw={where: LATER_PROBLEMS[problem]})
    report, _ = _compare(path, tmp_path, monkeypatch)
    # A blank last line is trailing whitespace (no issue, and the worker's part is clean); an id past the
    # others is no problem either, but an id given: this process reads on itself.
    trailing = problem == "blank_line" and where == 2000
    assert bool(report["files"][0]["counts"]) != (trailing or problem == "session_id_past"), report
    if trailing:
        assert two_parts == [True]
    else:
        assert two_parts in ([False], [])  # never the worker's records


def test_a_byte_order_mark_or_a_session_id_in_the_first_part_keeps_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_parts: list[bool]
) -> None:
    """A session_id given early (1500) that a later line without one would take: one process finds it."""
    lines: list[Any] = [{"prompt": f"q{i:05d}", "answer": f"{i:05d}"} for i in range(2000)]
    lines[3] = {"session_id": 1500, "prompt": "q", "answer": "a"}
    path = _write(tmp_path / "ids.jsonl", lines)
    report, _ = _compare(path, tmp_path, monkeypatch)
    assert report["files"][0]["counts"] == {"mixed_session_ids": 1}
    bom = _write(tmp_path / "bom.jsonl", lines[4:])
    bom.write_bytes(b"\xef\xbb\xbf" + bom.read_bytes())
    report, written = _compare(bom, tmp_path, monkeypatch)
    assert report["files"][0]["counts"] == {"utf8_bom": 1} and written is not None
    assert two_parts == [False, False]


@pytest.mark.parametrize("mode", [MODES[0], *(pytest.param(m, marks=pytest.mark.slow) for m in MODES[1:])])
def test_every_jsonl_fixture_gives_one_process_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_parts: list[bool], mode: Mode
) -> None:
    for path in JSONL_FIXTURES:
        _compare(path, tmp_path, monkeypatch, mode)


def test_a_worker_that_cannot_start_or_dies_leaves_one_process_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_parts: list[bool]
) -> None:
    path = _write(tmp_path / "set.jsonl", [_line(i, "infer-eval") for i in range(2000)])
    with monkeypatch.context() as broken:
        broken.setattr(sys, "executable", str(tmp_path / "no-python"))
        _compare(path, tmp_path, monkeypatch)
    with monkeypatch.context() as failing:
        failing.setattr(sys, "executable", "/bin/false")
        _compare(path, tmp_path, monkeypatch)
    # A worker killed once it has read its part and said so (SIGKILL, exit -9): whenever this process gets
    # to the middle, before or after that, the worker's part is not used. (Killing it from here when this
    # process gets there raced with a worker that had already finished.)
    command = interpreter.worker_command

    def killed(module: str) -> list[str]:
        return command(module, "main(sys.argv[1:]) + os.kill(os.getpid(), 9)")

    with monkeypatch.context() as killing:
        killing.setattr(jsonl_part, "worker_command", killed)
        _compare(path, tmp_path, monkeypatch)
    assert two_parts == [False]  # the one worker that started (the others could not) was not used
    assert True not in two_parts


def test_one_process_where_a_second_does_not_pay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below the size threshold, with the platform's row limit, on one core, when told, or in a frozen
    application (where sys.executable would start the application again): no worker."""
    path = _write(tmp_path / "set.jsonl", [_line(i, "infer-eval") for i in range(2000)])
    started: list[bool] = []
    start = jsonl_part.LaterPart.start.__func__  # type: ignore[attr-defined]

    def spy(cls: type[jsonl_part.LaterPart], *args: Any, **kwargs: Any) -> Any:
        part = start(cls, *args, **kwargs)
        started.append(part is not None)
        return part

    monkeypatch.setattr(jsonl_part.LaterPart, "start", classmethod(spy))
    monkeypatch.delenv("FORMATKIT_WORKERS", raising=False)
    monkeypatch.setattr(jsonl_part, "_usable_cores", lambda: 2)
    convert([path], tmp_path / "a.jsonl", profile="none")  # under MIN_BYTES
    monkeypatch.setattr(jsonl_part, "MIN_BYTES", 0)
    monkeypatch.setattr(jsonl_part, "_LEAD", 0)
    convert([path], tmp_path / "b.jsonl", profile="platform")  # the row limit
    convert([path], tmp_path / "c.jsonl", profile="none", fast=False)  # the full path asked for
    monkeypatch.setenv("FORMATKIT_WORKERS", "1")
    convert([path], tmp_path / "d.jsonl", profile="none")  # told
    monkeypatch.delenv("FORMATKIT_WORKERS")
    monkeypatch.setattr(jsonl_part, "_usable_cores", lambda: 1)
    convert([path], tmp_path / "e.jsonl", profile="none")  # one core
    assert started == [False] * 5
    monkeypatch.setattr(jsonl_part, "_usable_cores", lambda: 2)
    with monkeypatch.context() as frozen:  # a PyInstaller application: sys.executable is the application
        frozen.setattr(sys, "frozen", True, raising=False)
        convert([path], tmp_path / "f.jsonl", profile="none")
    with monkeypatch.context() as unknown:  # Python does not know its interpreter (embedded)
        unknown.setattr(sys, "executable", "")
        convert([path], tmp_path / "g.jsonl", profile="none")
    assert started == [False] * 7
    convert([path], tmp_path / "h.jsonl", profile="none")
    assert started == [False] * 7 + [True]


def test_the_worker_imports_what_this_process_imports_not_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_parts: list[bool]
) -> None:
    """The ``formatkit`` command never imports from the current folder; its worker did (``python -m`` puts
    the folder first): a user's ``formatkit.py`` there was run, and the worker failed."""
    path = _write(tmp_path / "set.jsonl", [_line(i, "infer-eval") for i in range(2000)])
    marker = tmp_path / "ran"
    (tmp_path / "formatkit.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    _compare(path, tmp_path, monkeypatch)
    assert not marker.exists()
    assert two_parts == [True]


def test_the_boundary_is_found_without_reading_a_long_line_into_memory(tmp_path: Path) -> None:
    """The middle of a file falling in a very long line (a JSON array saved as .jsonl is one line of the
    whole file): that line is skipped a block at a time, as the reader skips it, never read whole (a 2 GB
    line was a 1 GB read, or a MemoryError traceback)."""
    import tracemalloc

    path = tmp_path / "array.jsonl"
    path.write_bytes(b'{"prompt": "a", "answer": "1"}\n[' + b'{"prompt": "x"}, ' * (24 << 16) + b"{}]\n{}\n")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        with path.open("rb") as handle:
            offset = jsonl_part._boundary(handle, size)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert offset == size - 3
    assert peak < 4 << 20, peak  # blocks of 1 MiB (reading the line whole: ~10 MiB here)
    one_line = tmp_path / "one.jsonl"
    one_line.write_bytes(b"[" + b"1, " * (8 << 20) + b"1]")
    with one_line.open("rb") as handle:
        assert jsonl_part._boundary(handle, one_line.stat().st_size) is None


@pytest.mark.parametrize("how", ["fails_after_a_block", "copies_nothing"])
def test_the_worker_part_is_copied_once_whatever_copy_file_range_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_parts: list[bool], how: str
) -> None:
    """The worker's records go into the output by copy_file_range where the kernel can; when it stops
    after a first block (an error), the rest went through memory from the part's start (that block twice),
    and a 0 before the end was taken for the end (the rest lost)."""
    import errno
    import os

    real = getattr(os, "copy_file_range", None)
    calls: list[int] = []

    def flaky(source: int, target: int, count: int, *args: Any) -> int:
        calls.append(count)
        if how == "copies_nothing":
            return 0
        if len(calls) > 1 or real is None:
            raise OSError(errno.EIO, "copy_file_range stopped")
        return int(real(source, target, min(count, 4096)))

    monkeypatch.setattr(os, "copy_file_range", flaky, raising=False)
    path = _write(tmp_path / "set.jsonl", [_line(i, "infer-eval") for i in range(3000)])
    _, written = _compare(path, tmp_path, monkeypatch)
    assert two_parts == [True] and calls
    assert written is not None and len(written.splitlines()) == 3000


def test_a_cpu_quota_counts_as_fewer_cores(tmp_path: Path) -> None:
    """A container started with --cpus=1 sees the machine's cores but may keep one busy: no second reader."""
    v2 = tmp_path / "cpu.max"
    cores = jsonl_part._usable_cores(())
    v2.write_text("100000 100000\n")
    assert jsonl_part._usable_cores((str(v2),)) == 1
    v2.write_text("150000 100000\n")
    assert jsonl_part._usable_cores((str(v2),)) == 1
    v2.write_text(f"{cores * 100000} 100000\n")
    assert jsonl_part._usable_cores((str(v2),)) == cores
    v2.write_text("max 100000\n")
    assert jsonl_part._usable_cores((str(v2),)) == cores
    quota, period = tmp_path / "cfs_quota_us", tmp_path / "cfs_period_us"
    quota.write_text("50000\n")
    period.write_text("100000\n")
    assert jsonl_part._usable_cores((str(tmp_path / "absent"), (str(quota), str(period)))) == 1
