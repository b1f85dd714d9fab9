"""Signals sent to a running formatkit command: SIGTERM while it writes its output (the tests of issue 14), and
what it says on stderr once it has heard one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

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


def stderr_until(process: subprocess.Popen[Any], text: str) -> str:
    """What ``process`` has written to stderr once it has written ``text`` (all it wrote, if it ended
    first). Read from the pipe itself, so that ``process.communicate()`` afterwards gets the rest."""
    assert process.stderr is not None
    fd = process.stderr.fileno()
    seen = b""
    while text.encode() not in seen:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        seen += chunk
    return seen.decode()
