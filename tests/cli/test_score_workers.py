"""``score --workers N``: the same bytes and the same summary as one process, whatever N and the batches."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner, Result

from formatkit.cli import app
from scoring._pipeline import score_workers

RESPONSES = Path(__file__).parents[2] / "fixtures" / "responses"
ROOT = Path(__file__).parents[2]


def score(src: Path, out: Path, *extra: str) -> Result:
    return CliRunner().invoke(app, ["score", str(src), "-o", str(out), "--json", *extra])


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(score_workers, "BATCH", 4)  # many batches, each worker several times


@pytest.mark.parametrize(("name", "workers"), [("gsm8k", "2"), ("math_mixed", "3"), ("mmlu_pro", "2"), ("yes_no", "3")])
def test_workers_write_what_one_process_writes(
    name: str, workers: str, tmp_path: Path, small_batches: None, guard: object
) -> None:
    src = RESPONSES / f"{name}.jsonl"
    one, many = score(src, tmp_path / "one.jsonl"), score(src, tmp_path / "many.jsonl", "--workers", workers)
    assert one.exit_code == many.exit_code == 0, many.output
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "many.jsonl").read_bytes()
    assert one.stdout == many.stdout  # the summary: totals, intervals, auto's choices
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many.jsonl", "one.jsonl"]  # no spool left


@pytest.mark.parametrize("metric", ["choice", "exact"])
def test_a_named_rule_metric_in_workers(metric: str, tmp_path: Path, small_batches: None) -> None:
    src = RESPONSES / "mmlu_pro.jsonl"
    one = score(src, tmp_path / "one.jsonl", "--metric", metric)
    many = score(src, tmp_path / "many.jsonl", "--metric", metric, "--workers", "2")
    assert one.exit_code == many.exit_code == 0, many.output
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "many.jsonl").read_bytes()
    assert one.stdout == many.stdout


def test_an_invalid_input_writes_nothing(tmp_path: Path, small_batches: None) -> None:
    lines = (RESPONSES / "gsm8k.jsonl").read_bytes().splitlines()
    bad = orjson.loads(lines[-1])
    bad["messages"][-1]["responses"][0]["usage"] = "lots"
    src = tmp_path / "bad.jsonl"
    src.write_bytes(b"\n".join([*lines[:-1], orjson.dumps(bad)]) + b"\n")
    for metric in ("auto", "exact"):
        result = score(src, tmp_path / "out.jsonl", "--metric", metric, "--workers", "2")
        assert result.exit_code == 1, result.output
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_a_custom_metric_module_in_the_current_folder_runs_in_the_workers(
    tmp_path: Path, small_batches: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mymetrics_h22.py").write_text(
        "def first_letter(response, item):\n    return 1.0 if response[:1] == str(item.reference)[:1] else 0.0\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    src = RESPONSES / "mmlu_pro.jsonl"
    one = score(src, tmp_path / "one.jsonl", "--metric", "mymetrics_h22:first_letter")
    many = score(src, tmp_path / "many.jsonl", "--metric", "mymetrics_h22:first_letter", "--workers", "2")
    assert one.exit_code == many.exit_code == 0, many.output
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "many.jsonl").read_bytes()


def test_a_script_without_a_main_guard_is_not_run_again_by_the_workers(tmp_path: Path) -> None:
    """A newcomer's script calls the library at module level: each worker must not import it again."""
    marker = tmp_path / "ran.txt"
    script = tmp_path / "score_it.py"
    script.write_text(
        textwrap.dedent(f"""
            from scoring._pipeline.score_file import score_file
            with open({str(marker)!r}, "a") as f:
                f.write("ran\\n")
            outcome = score_file({str(RESPONSES / "gsm8k.jsonl")!r}, {str(tmp_path / "out.jsonl")!r}, workers=2)
            print(outcome.scored_responses)
        """),
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "ran\n"
    assert int(done.stdout.strip()) > 0


def test_a_metric_that_fails_in_a_worker_stops_the_run_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "badmetric_h22.py").write_text(
        "def boom(response, item):\n    raise ValueError('炸了 on purpose')\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    result = score(
        RESPONSES / "gsm8k.jsonl", tmp_path / "out.jsonl", "--metric", "badmetric_h22:boom", "--workers", "2"
    )
    assert result.exit_code == 1
    assert "scoring worker" in result.stderr and "ValueError: 炸了 on purpose" in result.stderr
    assert "nothing was written" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".pyc" and p.name != "__pycache__") == [
        "badmetric_h22.py"
    ]


def test_a_scoring_py_in_the_current_folder_is_not_run_by_the_workers(tmp_path: Path) -> None:
    """The workers import this process's scoring, not the current folder's: started with ``python -m`` they
    ran a user's ``scoring.py`` (which the ``formatkit`` command never looks at), and ``score --workers 2``
    died with a MemoryError traceback reading that script's output as its answers."""
    command = Path(sys.executable).parent / "formatkit"
    if not command.exists():
        pytest.skip("the formatkit console script is not installed beside this Python")
    marker = tmp_path / "ran.txt"
    (tmp_path / "scoring.py").write_text(f"open({str(marker)!r}, 'a').write('ran')\nprint('x' * 100)\n")
    src = RESPONSES / "mmlu_pro.jsonl"
    outputs = []
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}.jsonl"
        done = subprocess.run(
            [str(command), "score", str(src), "-o", str(out), "--workers", workers],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert not marker.exists()
