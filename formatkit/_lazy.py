"""Lazy exports for a package's ``__init__`` (PEP 562): a name is imported from its module on first use,
so importing the package stays cheap for the command line."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr", "load_ref"]


def lazy_getattr(namespace: dict[str, Any], exports: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of the package whose globals are ``namespace``: ``exports`` maps an
    exported name to the module defining it (``"module:name"`` when it is defined there under another
    name). The value is cached in ``namespace``, so later lookups are plain attribute reads."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        where = exports.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = load_ref(where if ":" in where else f"{where}:{name}")
        namespace[name] = value
        return value

    return __getattr__


def load_ref(ref: str) -> Any:
    """The object a ``"module:name"`` reference names, its module imported now: the one way the tables that
    name their entries by reference (lazy exports, input formats, metrics) turn a reference into the thing."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)
