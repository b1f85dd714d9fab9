"""Shared fixtures: ``fake_openai``, a local OpenAI-compatible server (see tests/fakeserver.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

from fakeserver import FakeOpenAI

from scoring._metrics.math import SympyGuard

# No hypothesis test is timed (its default: 200 ms an example, which a loaded machine exceeds); see
# tests/test_architecture_tests.py for the rule.
settings.register_profile("formatkit", deadline=None)
settings.load_profile("formatkit")


def _selects_slow(config: pytest.Config) -> bool:
    """Whether this run's ``-m`` expression selects the tests marked slow (``-m slow``)."""
    from _pytest.mark.expression import Expression

    def slow_only(name: str, /, **kwargs: str | int | bool | None) -> bool:
        return name == "slow"

    marks = config.getoption("markexpr", "") or ""
    return not marks or Expression.compile(marks).evaluate(slow_only)


def pytest_configure(config: pytest.Config) -> None:
    """A run of the slow tests runs the property tests with their full count of examples (tests/fuzz.py)."""
    import fuzz

    if _selects_slow(config):
        fuzz.FULL = True


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """... and selects them too: ``-m slow`` is the long hunt (the default suite runs a quarter of the examples)."""
    if _selects_slow(config):
        for item in items:
            if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
                item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def english_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages follow the locale (LC_ALL / LC_MESSAGES / LANG): the suite pins English, so a developer
    whose machine speaks Chinese sees the same results; tests of Chinese output set it themselves."""
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A fresh fake endpoint on 127.0.0.1 (random free port), stopped after the test."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def guard() -> Iterator[SympyGuard]:
    """One guarded sympy worker for the math metric's tests (it restarts itself after a timeout or a crash;
    starting one imports sympy, so the modules share it)."""
    g = SympyGuard(timeout=30.0)  # far above any comparison here, however loaded the machine
    yield g
    g.close()


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk is full for every output being written: a write to a file opened on an atomic writer's
    temporary file (``*.tmp``) raises ENOSPC; other files are untouched."""
    import errno
    import os

    class FullDisk:
        def __init__(self, handle: Any) -> None:
            self._handle = handle

        def write(self, data: Any) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, name: str) -> Any:
            return getattr(self._handle, name)

    real_fdopen = os.fdopen

    def fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
        handle = real_fdopen(fd, *args, **kwargs)
        return FullDisk(handle) if os.readlink(f"/proc/self/fd/{fd}").endswith(".tmp") else handle

    monkeypatch.setattr(os, "fdopen", fdopen)


#: Holds an output's lock until killed, as a command writing that output does.
_HOLD = (
    "import sys, time\n"
    "from formatkit._core.writers import output_lock\n"
    "with output_lock(sys.argv[1]):\n"
    "    print('held', flush=True)\n"
    "    time.sleep(60)\n"
)


@pytest.fixture
def held() -> Iterator[Any]:
    """Hold an output's lock from another process, as a second command writing it would."""
    import subprocess

    procs: list[subprocess.Popen[str]] = []

    def hold(output: Path) -> None:
        proc = subprocess.Popen(
            [sys.executable, "-c", _HOLD, str(output)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        procs.append(proc)
        assert proc.stdout is not None and proc.stdout.readline() == "held\n", proc.stderr

    yield hold
    for proc in procs:
        proc.kill()
        proc.communicate(timeout=5)
