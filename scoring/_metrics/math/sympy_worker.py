"""The sympy worker: its own program (``python -m scoring._metrics.math.sympy_worker``), never a fork or a
spawn of the caller's.

:class:`~scoring._metrics.math.sympy_guard.SympyGuard` starts it with :mod:`subprocess`. A ``multiprocessing``
spawn would re-import the caller's ``__main__``: a user's script without an ``if __name__ == "__main__":``
guard ran again in the worker, and a script that runs a set bought its requests again (issue 18).

The protocol is one JSON line each way: ``[a, b, seconds]`` in, ``true``/``false``/``null`` out (null: sympy
could not say within ``seconds``, or could not parse). The inputs were screened by ``sympy_safe`` (no
newline can reach here). The worker ends when its input closes (the caller exited, even by ``kill -9``);
Ctrl-C is the caller's to handle, so the worker ignores SIGINT.
"""

from __future__ import annotations

import json
import signal
import sys
from typing import Any

__all__ = ["main"]


def _compare() -> Any:
    from sympy import log, simplify
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    transformations = (*standard_transformations, implicit_multiplication_application, convert_xor)
    local = {"ln": log}

    def compare(a: str, b: str) -> bool:
        ea = parse_expr(a, local_dict=local, transformations=transformations, evaluate=True)
        eb = parse_expr(b, local_dict=local, transformations=transformations, evaluate=True)
        if bool(simplify(ea - eb) == 0):
            return True
        eq = ea.equals(eb)
        return bool(eq) if eq is not None else False

    return compare


def main() -> None:  # pragma: no cover - runs in the worker process (tested through SympyGuard)
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def _alarm(signum: int, frame: Any) -> None:
        raise TimeoutError

    signal.signal(signal.SIGALRM, _alarm)
    compare = _compare()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    for line in sys.stdin:
        result: bool | None
        try:
            a, b, timeout = json.loads(line)
            signal.setitimer(signal.ITIMER_REAL, float(timeout))
            try:
                result = compare(str(a), str(b))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException:  # a timeout, a parse error, sympy's own recursion errors: unsettled
            result = None
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":  # pragma: no cover
    main()
