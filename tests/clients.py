"""The client's options as the tests give them, one flat list of keywords (``max_retries=0, stream=False``),
sorted into the objects :class:`~scoring.ChatClient` takes (:class:`~scoring.Limits`,
:class:`~scoring.RetryPolicy`, :class:`~scoring.Dialect`); any other keyword (``api_key``, ``transport``,
``on_notice``) passes as it is.

    ChatClient(server.base_url, "m", **client_options(backoff_base=0.001, max_retries=1, stream=False))
"""

from __future__ import annotations

import dataclasses
from typing import Any

from scoring import Dialect, Limits, RetryPolicy

_OBJECTS = {"limits": Limits, "retry": RetryPolicy, "dialect": Dialect}


def client_options(**flat: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, kind in _OBJECTS.items():
        names = {f.name for f in dataclasses.fields(kind)}
        given = {key: flat.pop(key) for key in list(flat) if key in names}
        if given:
            out[name] = kind(**given)
    return {**out, **flat}
