"""SIGTERM sent to a formatkit command while it writes its output (the tests of issue 14)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def terminate_while_writing(args: list[str], folder: Path) -> tuple[int, bytes]:
    """Run ``formatkit ARGS``, send SIGTERM once its temporary output appears in ``folder``, and return the
    exit code and stderr; skips the test when the command finished before it could be interrupted."""
    code = "import sys; from formatkit.cli import main; sys.argv[0] = 'formatkit'; main()"
    process = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(4000):  # wait until the temporary output exists (or the command is already done)
        if any(p.name.endswith(".tmp") for p in folder.iterdir()) or process.poll() is not None:
            break
        time.sleep(0.005)
    if process.poll() is not None:
        pytest.skip("the command finished before it could be interrupted")
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    return process.returncode, err
