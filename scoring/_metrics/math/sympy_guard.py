"""Algebraic equality with sympy in a guarded worker process.

sympy can hang in C-level loops or on huge integer powers; a signal alarm cannot stop those and does not
work outside the main thread. So sympy runs in one worker process (``spawn`` start method, safe from any
thread): each comparison waits at most ``timeout`` seconds, after which the worker is killed and a fresh
one started for the next item. Inputs are screened first (:func:`sympy_safe`): only plain expressions of
digits, letters and ``+ - * / ( ) ,`` reach sympy's parser (no names with underscores, no quotes, no
attribute access), and towers like ``9**9**9**9`` or huge literals never do.

Only items the fast paths cannot settle get here, so one worker is enough; results are cached.
"""

from __future__ import annotations

import atexit
import multiprocessing
import re
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from scoring._metrics.math.budget import extend

__all__ = ["SympyGuard", "default_guard", "sympy_safe"]

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


def _serve(conn: Connection) -> None:  # pragma: no cover - runs in the worker process
    import signal

    from sympy import simplify
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    transformations = (*standard_transformations, implicit_multiplication_application, convert_xor)
    local = {"ln": __import__("sympy").log}

    def _alarm(signum: int, frame: Any) -> None:
        raise TimeoutError

    signal.signal(signal.SIGALRM, _alarm)
    while True:
        try:
            a, b, timeout = conn.recv()
        except EOFError:
            return
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            ea = parse_expr(a, local_dict=local, transformations=transformations, evaluate=True)
            eb = parse_expr(b, local_dict=local, transformations=transformations, evaluate=True)
            diff = simplify(ea - eb)
            result: bool | None = bool(diff == 0)
            if not result:
                eq = ea.equals(eb)
                result = bool(eq) if eq is not None else False
        except BaseException:
            result = None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        conn.send(result)


class SympyGuard:
    """One sympy worker with a hard per-item time limit; restarts itself after a timeout or crash."""

    def __init__(
        self,
        timeout: float = 2.0,
        *,
        startup_allowance: float = 30.0,
        worker: Callable[[Connection], None] | None = None,
    ) -> None:
        """``timeout``: per-item limit (seconds). ``startup_allowance``: extra wait for a new worker's first
        answer (it imports sympy). ``worker``: the worker's main function (tests replace it)."""
        self.timeout = timeout
        self.startup_allowance = startup_allowance
        self._worker = worker or _serve
        self._lock = threading.Lock()
        self._proc: Any = None
        self._conn: Connection | None = None
        self._cache: dict[tuple[str, str], bool | None] = {}
        self._fresh = True
        self.timeouts = 0
        self.calls = 0

    def _start(self) -> Connection:
        if self._conn is not None and self._proc is not None and self._proc.is_alive():
            return self._conn
        self._stop()
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=self._worker, args=(child,), daemon=True, name="formatkit-sympy")
        proc.start()
        child.close()
        self._proc, self._conn = proc, parent
        self._fresh = True
        return parent

    def _stop(self) -> None:
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if conn is not None:
            conn.close()
        if proc is not None and proc.is_alive():
            proc.kill()
            proc.join(1)

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
            conn = self._start()
            # The first call to a new worker also pays its start-up (importing sympy): allow for it.
            fresh = self._fresh
            budget = limit + (self.startup_allowance if fresh else 0.5)
            started = time.monotonic()
            try:
                conn.send((a, b, limit))
                if conn.poll(budget):
                    result: bool | None = conn.recv()
                    self._fresh = False
                else:
                    self.timeouts += 1
                    result = None
                    self._stop()
            except (EOFError, OSError, BrokenPipeError):
                result = None
                self._stop()
            if fresh:
                extend(time.monotonic() - started)  # the worker's start-up is not the item's time
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
