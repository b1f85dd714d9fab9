"""How many examples a property test tries: its full count when the slow tests run (``pytest -m slow``, or
``FUZZ_FULL=1``), a quarter of it (at least 25) in the default suite, so that the suite stays quick and a
longer hunt is one option away.

    @settings(max_examples=examples(300))

``FULL`` is set by tests/conftest.py from the command line before any test module is imported.
"""

from __future__ import annotations

import os

__all__ = ["FULL", "examples"]

FULL = os.environ.get("FUZZ_FULL", "") not in ("", "0")


def examples(full: int) -> int:
    """``full`` when the full hunt is asked for, else a quarter of it (at least 25, at most ``full``)."""
    return full if FULL else min(full, max(25, full // 4))
