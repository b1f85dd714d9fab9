"""LiteLLM's proxy on 127.0.0.1 for the gateway tests: where it is installed, and one running instance.

Both gateway modules start the proxy the same way (a master key, telemetry and schema updates off, a free
port, a wait on its liveliness probe, a log kept for the failure message); this is that one place.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

__all__ = ["PROXY", "free_port", "gateway_marks", "running_proxy"]


def _proxy_command() -> str | None:
    if importlib.util.find_spec("litellm") is None:
        return None
    beside = Path(sys.executable).with_name("litellm")
    return str(beside) if beside.exists() else shutil.which("litellm")


PROXY = _proxy_command()

#: ``pytestmark`` of a gateway module: marked, and skipped when the proxy is not installed.
gateway_marks = [
    pytest.mark.gateway,
    pytest.mark.skipif(PROXY is None, reason="LiteLLM's proxy is not installed (pip install 'litellm[proxy]')"),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_proxy(config: str, workdir: Path, key: str | None = None) -> Iterator[tuple[str, str]]:
    """The proxy serving ``config`` (its YAML), started in ``workdir``: yields its base URL and master key
    (``key``, else a new one); stopped on exit. Fails the test with the end of its log when it exits or does
    not start in 180 s."""
    assert PROXY is not None
    (workdir / "config.yaml").write_text(config, "utf-8")
    port = free_port()
    key = key or "sk-" + secrets.token_hex(32)
    env = {
        **os.environ,
        "LITELLM_MASTER_KEY": key,
        "LITELLM_TELEMETRY": "False",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "DISABLE_SCHEMA_UPDATE": "true",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    log = (workdir / "proxy.log").open("wb")
    process = subprocess.Popen(
        [PROXY, "--config", str(workdir / "config.yaml"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=workdir,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                pytest.fail("LiteLLM's proxy exited:\n" + (workdir / "proxy.log").read_text("utf-8", "replace")[-3000:])
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health/liveliness", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("LiteLLM's proxy did not start within 180 s")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1", key
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
