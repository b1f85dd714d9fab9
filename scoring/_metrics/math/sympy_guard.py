"""Algebraic equality with sympy in a guarded worker process.

sympy can hang in C-level loops or on huge integer powers; a signal alarm cannot stop those and does not
work outside the main thread. So sympy runs in one worker process, its own program
(:mod:`scoring._metrics.math.sympy_worker`, started with :mod:`subprocess`: never a ``multiprocessing``
spawn, which re-imports the caller's ``__main__`` and so re-ran a user's script without a ``__main__``
guard): each comparison waits at most ``timeout`` seconds, after which the worker is killed and a fresh
one started for the next item. Inputs are screened first (:func:`sympy_safe`): only plain expressions of
digits, letters and ``+ - * / ( ) ,`` reach sympy's parser (no names with underscores, no quotes, no
attribute access), and towers like ``9**9**9**9`` or huge literals never do.

Only items the fast paths cannot settle get here, so one worker is enough; results are cached.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from scoring._metrics.math.budget import extend

__all__ = ["WORKER", "SympyGuard", "default_guard", "sympy_safe"]

#: The worker program's arguments after the interpreter.
WORKER = ("-m", "scoring._metrics.math.sympy_worker")
#: The folder the worker starts in: the one holding the ``scoring`` package, so that ``-m`` (which puts the
#: current folder first on the path) finds this very package and never a user's file named like a module.
_HOME = str(Path(__file__).resolve().parents[3])

_ALLOWED = re.compile(r"^[0-9a-zA-Z+\-*/().,= ]+$")
_TOWER = re.compile(r"\*\*[^+\-*/]*\*\*|\*\*\(?[^()]*\*\*")
_BIG_LITERAL = re.compile(r"\d{16,}")
_BIG_EXPONENT = re.compile(r"\*\*\(?\s*(\d+)")
_NAMES = re.compile(r"[a-zA-Z]+")
_KNOWN_NAMES = {
    "sqrt",
    "sin",
    "cos",
    "tan",
    "cot",
    "sec",
    "csc",
    "asin",
    "acos",
    "atan",
    "log",
    "ln",
    "exp",
    "pi",
    "oo",
    "E",
    "I",
    "Abs",
    "factorial",
    "binomial",
}


def sympy_safe(expr: str) -> bool:
    """Whether a plain expression may be handed to sympy's parser."""
    if not expr or len(expr) > 200 or not _ALLOWED.match(expr) or "__" in expr:
        return False
    if _TOWER.search(expr) or _BIG_LITERAL.search(expr):
        return False
    if any(int(m.group(1)) > 1000 for m in _BIG_EXPONENT.finditer(expr)):
        return False
    for name in _NAMES.findall(expr):
        if name not in _KNOWN_NAMES and len(name) > 3:
            return False
    return ".(" not in expr and not re.search(r"[a-zA-Z)]\.", expr)


class SympyGuard:
    """One sympy worker with a hard per-item time limit; restarts itself after a timeout or crash."""

    def __init__(
        self,
        timeout: float = 2.0,
        *,
        startup_allowance: float = 30.0,
        command: Sequence[str] | None = None,
    ) -> None:
        """``timeout``: per-item limit (seconds). ``startup_allowance``: extra wait for a new worker's first
        answer (it imports sympy). ``command``: the worker program's argv (tests replace it)."""
        self.timeout = timeout
        self.startup_allowance = startup_allowance
        self._command = list(command) if command is not None else [sys.executable, *WORKER]
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._cache: dict[tuple[str, str], bool | None] = {}
        self._fresh = True
        self.timeouts = 0
        self.calls = 0

    def _start(self) -> subprocess.Popen[bytes]:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            return proc
        self._stop()
        proc = subprocess.Popen(
            self._command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=_HOME,
            close_fds=True,
        )
        self._proc, self._buffer = proc, b""
        self._fresh = True
        return proc

    def _read_line(self, proc: subprocess.Popen[bytes], seconds: float) -> bytes | None:
        """The worker's next line, or None when none comes within ``seconds`` (or the worker ended)."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + seconds
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _stop(self) -> None:
        proc = self._proc
        self._proc = None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait(1)
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()

    def close(self) -> None:
        with self._lock:
            self._stop()

    def equal(self, a: str, b: str, timeout: float | None = None) -> bool | None:
        """True/False when sympy settles it within the limit; None when it cannot (timeout, parse error).

        ``timeout``: what is left of the item's own time limit, when less than the guard's."""
        if not (sympy_safe(a) and sympy_safe(b)):
            return None
        key = (a, b)
        if key in self._cache:
            return self._cache[key]
        limit = self.timeout if timeout is None else min(self.timeout, timeout)
        if limit <= 0.01:
            return None
        with self._lock:
            self.calls += 1
            result: bool | None = None
            try:
                proc = self._start()
                assert proc.stdin is not None
                if self._fresh:
                    # A new worker first imports sympy, then says "ready": that is not the item's time.
                    started = time.monotonic()
                    ready = self._read_line(proc, self.startup_allowance)
                    extend(time.monotonic() - started)
                    if ready != b"ready":
                        raise OSError("the sympy worker did not start")
                    self._fresh = False
                proc.stdin.write(json.dumps([a, b, limit]).encode() + b"\n")
                proc.stdin.flush()
                line = self._read_line(proc, limit + 0.5)
                if line is None:
                    self.timeouts += 1
                    self._stop()
                else:
                    answer = json.loads(line)
                    result = answer if isinstance(answer, bool) else None
            except (OSError, ValueError):
                self._stop()
        if len(self._cache) >= 50_000:
            self._cache.clear()
        if result is not None or limit >= self.timeout:
            self._cache[key] = result
        return result


_DEFAULT: SympyGuard | None = None


def default_guard() -> SympyGuard:
    """The process-wide guard (started on first use, stopped at exit)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = SympyGuard()
        atexit.register(_DEFAULT.close)
    return _DEFAULT
