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

__all__ = ["check_base_url", "endpoint_url", "public_url", "url_secrets"]

_SECRET_KEY = re.compile(r"key|token|secret|sig|password|passwd|auth|credential", re.IGNORECASE)


def check_base_url(base_url: str) -> None:
    """Raise :class:`~scoring.errors.EndpointSetupError` (one line, the URL's own words) when ``base_url``
    cannot be sent to: not http(s), no host, or a host or port no URL holds (``http://[::1/v1``), or a
    character no URL holds: a line break, a tab or any control character (``urlsplit`` drops line breaks and
    tabs silently, so ``http://local\nhost/v1`` would go to ``localhost`` with the key), a space, or more than
    :data:`MAX_URL` characters. Checked before any request: nothing, no key, is sent to a URL refused here."""
    from scoring._errors import EndpointSetupError

    text = base_url.strip()
    if len(text) > MAX_URL:
        raise EndpointSetupError(f"{base_url[:80]!r}...: a base URL of {len(text)} characters (at most {MAX_URL})")
    for position, char in enumerate(text, start=1):
        if char.isspace() or not char.isprintable():
            raise EndpointSetupError(
                f"{base_url!r}: a base URL holds no {_named(char)} (character {position}): "
                "it would be dropped or sent as it is; write the URL on one line, without spaces"
            )
    try:
        parts = urlsplit(base_url.strip())
        parts.port  # noqa: B018 - read for its check: a port past 65535, or not a number, raises here
    except ValueError as exc:
        raise EndpointSetupError(f"{base_url!r} is not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointSetupError(f"{base_url!r}: expected an http:// or https:// URL with a host")


#: The longest base URL taken (a URL is sent in every request line and printed in every notice).
MAX_URL = 2048


def _named(char: str) -> str:
    import unicodedata

    names = {"\n": "line break (\\n)", "\r": "carriage return (\\r)", "\t": "tab (\\t)", " ": "space"}
    return names.get(char) or f"{unicodedata.name(char, 'control character').lower()} (U+{ord(char):04X})"


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
