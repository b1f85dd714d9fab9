"""A real ``formatkit serve`` (or any uvicorn command) in a process of its own, on a port the system picks.

``running(command, env)`` starts the command with ``--port 0`` already in it, reads uvicorn's log until it
says where it listens, and yields the base URL on 127.0.0.1; the process group is stopped (SIGTERM, then
SIGKILL) when the block ends. The log is kept for the assertion messages.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx

__all__ = ["Running", "running"]

_LISTENING = re.compile(r"Uvicorn running on https?://\S+?:(\d+)")


@dataclass
class Running:
    url: str
    process: subprocess.Popen[str]
    log: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(self.log)


def _wait_answering(url: str, process: subprocess.Popen[str], log: list[str], wait: float) -> None:
    """Until ``/healthz`` answers: with ``--workers`` the parent binds the port before a worker listens on it."""
    for _ in range(int(wait * 10)):
        if process.poll() is not None:
            break
        try:
            httpx.get(f"{url}/healthz", timeout=5)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"the server never answered on {url}:\n{''.join(log)}")


@contextlib.contextmanager
def running(command: list[str], env: dict[str, str], *, cwd: str | None = None, wait: float = 90) -> Iterator[Running]:
    process = subprocess.Popen(
        command,
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: the workers stop with it
    )
    log: list[str] = []
    found = threading.Event()
    port: list[int] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            log.append(line)
            match = _LISTENING.search(line)
            if match and not port:
                port.append(int(match.group(1)))
                found.set()
        found.set()  # the process ended (or closed its output) without saying where it listens

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        found.wait(wait)
        if not port:
            raise AssertionError(f"the server did not start: {command}\n{''.join(log)}")
        url = f"http://127.0.0.1:{port[0]}"
        _wait_answering(url, process, log, wait)
        yield Running(url, process, log)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        reader.join(timeout=5)
