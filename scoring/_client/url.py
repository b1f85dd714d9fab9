"""Endpoint URLs: the request path joined before the query string, and a form safe to print.

``https://x.openai.azure.com/openai/deployments/d?api-version=2024-06-01`` + ``chat/completions`` is
``https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-06-01``.
Credentials inside a URL (``https://user:pass@host``, ``?api-key=...``) never reach a message:
:func:`public_url` drops the user part and masks secret-looking query values; :func:`url_secrets` lists
them for scrubbing server messages.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["endpoint_url", "public_url", "url_secrets"]

_SECRET_KEY = re.compile(r"key|token|secret|sig|password|passwd|auth|credential", re.IGNORECASE)


def endpoint_url(base_url: str, path: str = "chat/completions") -> str:
    """``base_url`` with ``/path`` appended to its path (its query, if any, kept after it)."""
    parts = urlsplit(base_url.strip())
    joined = parts.path.rstrip("/") + "/" + path.lstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, joined, parts.query, ""))


def public_url(url: str) -> str:
    """``url`` without user name and password, with secret-looking query values masked."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, "***" if _SECRET_KEY.search(k) else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


def url_secrets(url: str) -> list[str]:
    """The credentials inside ``url`` (user info, secret query values), to mask in any text."""
    parts = urlsplit(url)
    found: list[str] = []
    userinfo = parts.netloc.rpartition("@")[0]
    if userinfo:
        password = userinfo.partition(":")[2]
        found += [s for s in (password, userinfo) if s]
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if value and _SECRET_KEY.search(key):
            found.append(value)
    return sorted(found, key=len, reverse=True)
