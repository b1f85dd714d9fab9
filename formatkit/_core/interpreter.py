"""Starting a fresh Python interpreter that imports what this process imports (the workers of ``convert`` and
``score --workers``): never a fork of this process, never a ``multiprocessing`` spawn, so a user's script
without a ``__main__`` guard is not run again.

Not ``python -m package.module``: that puts the current folder first on the import path, where this process
(the ``formatkit`` command, or a script run from another folder) never looked. A user's ``formatkit.py`` or
``scoring.py`` there was run by the worker (``score --workers 2`` then died with a MemoryError traceback,
reading the script's output as its answers), and a folder holding another checkout would have had the work
done by that version's code. The worker gets this process's ``sys.path``, in its order, and stops at once
unless the package it imports is this very one.
"""

from __future__ import annotations

import os
import sys

__all__ = ["python_can_start", "worker_command"]


def python_can_start() -> bool:
    """Whether ``sys.executable`` is a Python interpreter to start. Not in a frozen application (PyInstaller,
    cx_Freeze: it is the application itself, which would start again with the worker's arguments: the
    user's program run a second time), nor where Python does not know it (None or empty, embedded)."""
    return bool(sys.executable) and not getattr(sys, "frozen", False)


def worker_command(module: str, call: str = "main(sys.argv[1:])") -> list[str]:
    """The command running ``module``'s ``call`` (its exit code the process's) in a fresh interpreter with
    this process's import path; it exits 1 at once unless the top-level package of ``module`` it imports
    is this process's (the folder holding that package is added to the path when it is not on it)."""
    package = module.split(".")[0]
    here = os.path.abspath(sys.modules[package].__file__ or "")
    root = os.path.dirname(os.path.dirname(here))
    paths = [p for p in sys.path if isinstance(p, str)]
    if root not in (os.path.abspath(p or os.curdir) for p in paths):
        paths.insert(0, root)
    name = call.split("(")[0]
    code = (
        f"import os, sys; sys.path[:] = {paths!r}; import {package}\n"
        f"if os.path.abspath({package}.__file__ or '') != {here!r}: raise SystemExit(1)\n"
        f"from {module} import {name}; raise SystemExit({call})"
    )
    return [sys.executable, "-c", code]
