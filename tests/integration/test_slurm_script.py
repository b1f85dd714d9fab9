"""What the shipped Slurm script (docs/jobs/slurm-eval.sh) does before anything runs on a node, with a stand-in
``sbatch`` on PATH that records what it is asked and answers job ids (issue #39 item 3): the command the jobs
will run is checked before submitting, and a failed part's recovery submits the part and a merge that waits
for it. The jobs themselves run on a real one-node Slurm in test_slurm_array.py (``-m jobs``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "docs" / "jobs" / "slurm-eval.sh"
FORMATKIT = Path(sys.executable).with_name("formatkit")

SBATCH = """#!/bin/sh
n=$(( $(wc -l < "$SBATCH_LOG" 2>/dev/null || echo 0) + 100 ))
echo "$*" >> "$SBATCH_LOG"
echo "$n;cluster"
"""


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sbatch").write_text(SBATCH)
    (bin_dir / "sbatch").chmod(0o755)
    return bin_dir


def script(tmp_path: Path, bin_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {
        "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "SBATCH_LOG": str(tmp_path / "sbatch.log"),
        "FORMATKIT_INPUT": str(tmp_path / "set.jsonl"),
        "FORMATKIT_OUT": str(tmp_path / "out"),
        "FORMATKIT_PARTS": "4",
        "FORMATKIT_BASE_URL": "http://127.0.0.1:9/v1 http://127.0.0.1:10/v1",
        "FORMATKIT_MODEL": "m",
    }
    return subprocess.run(
        ["bash", str(SCRIPT), *args], env={**base, **env}, cwd=tmp_path, capture_output=True, text=True, check=False
    )


def submitted(tmp_path: Path) -> list[str]:
    log = tmp_path / "sbatch.log"
    return log.read_text().splitlines() if log.exists() else []


def test_a_command_that_cannot_run_is_said_before_anything_is_submitted(tmp_path: Path, bin_dir: Path) -> None:
    # the README's install, venv not activated: `formatkit` is not on PATH, and the source tree's formatkit/
    # directory is where PATH's "." finds it (bash would exec it: "cannot execute: Is a directory")
    (tmp_path / "formatkit").mkdir()
    done = script(tmp_path, bin_dir, PATH=f"{bin_dir}{os.pathsep}.{os.pathsep}/usr/bin{os.pathsep}/bin")
    assert done.returncode == 2
    assert "cannot be run here" in done.stderr and "export FORMATKIT=" in done.stderr
    assert submitted(tmp_path) == []
    # a file that is no program, named by FORMATKIT
    (tmp_path / "notes.txt").write_text("x")
    done = script(tmp_path, bin_dir, FORMATKIT=str(tmp_path / "notes.txt"))
    assert done.returncode == 2 and "FORMATKIT=" in done.stderr
    assert submitted(tmp_path) == []


def test_the_array_then_a_merge_that_waits_for_it_with_the_checked_command(tmp_path: Path, bin_dir: Path) -> None:
    done = script(tmp_path, bin_dir, FORMATKIT=str(FORMATKIT))
    assert done.returncode == 0, done.stderr
    array, merge = submitted(tmp_path)
    assert "--array=1-4" in array
    assert "--dependency=afterok:100" in merge and "--kill-on-invalid-dep=yes" in merge and merge.endswith(" merge")
    assert "job array 100" in done.stdout and "job 101" in done.stdout


def test_a_failed_part_is_submitted_again_with_a_merge_after_it(tmp_path: Path, bin_dir: Path) -> None:
    done = script(tmp_path, bin_dir, "resubmit", "2,4", FORMATKIT=str(FORMATKIT))
    assert done.returncode == 0, done.stderr
    part, merge = submitted(tmp_path)
    assert "--array=2,4" in part
    # the merge runs only once the parts submitted again have succeeded
    assert "--dependency=afterok:100" in merge and merge.endswith(" merge")
    done = script(tmp_path, bin_dir, "resubmit", "2;rm", FORMATKIT=str(FORMATKIT))
    assert done.returncode == 2 and "expected part numbers" in done.stderr
    assert len(submitted(tmp_path)) == 2


def test_no_job_file_or_page_installs_by_the_bare_name() -> None:
    """``formatkit`` on PyPI is someone else's project: never `pip install formatkit`."""
    pages = [*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs" / "jobs").iterdir(), ROOT / "README.md"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for bad in ("pip install formatkit\n", "pip install formatkit`", "pip install formatkit "):
            assert bad not in text, page
