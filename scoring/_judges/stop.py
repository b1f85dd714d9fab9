"""When the judge endpoint cannot serve at all: stop judging instead of writing every score null.

The client decides (:mod:`scoring._client.health`, the same rules as a run's): nothing has succeeded and
the first requests all failed the same way (LiteLLM's 400 "Invalid model name", 400 "No connected db.",
a 500 "Connection error"), or, once it has served, requests in a row failed an endpoint-wide way. The
judges only put the client's verdict in the judge's words: the hint names the ``--judge-*`` option to
check, read from the error's ``kind``.
"""

from __future__ import annotations

from scoring._errors import EndpointUnavailableError

__all__ = ["judge_stopped"]

_HINTS = {
    "connect": "check that the server is running and that --judge-base-url is right",
    "backend": (
        "the judge endpoint answers but cannot reach the model behind it: check that the backend server is up "
        "and that the gateway routes the judge model to it"
    ),
    "key": "check the API key",  # the command adds which variable it was read from
    "model": "check --judge-model: the endpoint does not serve a model by that name",
    "url": "check --judge-base-url (most servers expect it to end in /v1) and --judge-model",
    "refused": "every judge request was refused the same way: check --judge-model, the key and --judge-base-url",
}


def judge_stopped(down: EndpointUnavailableError) -> EndpointUnavailableError:
    """``down`` with a hint in the judge's terms."""
    hint = _HINTS.get(down.kind, down.hint or "check --judge-base-url, --judge-model and the key")
    return EndpointUnavailableError(str(down), status=down.status, hint=hint, cause=down.cause, kind=down.kind)
