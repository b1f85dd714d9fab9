"""'Did you mean' suggestions for mistyped headers, keys and parameter names."""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable

from formatkit._core.messages import Later, Msg

__all__ = ["did_you_mean", "did_you_mean_later", "suggestion"]


def suggestion(word: str, candidates: Iterable[str]) -> str | None:
    """The closest known name to ``word``, or None when nothing is close."""
    options = list(candidates)
    folded = unicodedata.normalize("NFKC", word).strip().casefold().replace("-", "_").replace(" ", "_")
    for option in options:
        if option.casefold() == folded:
            return option
    matches = difflib.get_close_matches(folded, options, n=1, cutoff=0.6)
    return matches[0] if matches else None


def did_you_mean_later(word: str, candidates: Iterable[str]) -> Later:
    """:func:`did_you_mean`, worked out only if the message is rendered (the issue is kept)."""
    return Later(did_you_mean, word, list(candidates))


def did_you_mean(word: str, candidates: Iterable[str]) -> Msg:
    """A sentence to append to a message (a template's ``{hint}``): ' Did you mean "x"?' or a list of
    what is known."""
    options = list(candidates)
    best = suggestion(word, options)
    if best is not None:
        return Msg("frag.did_you_mean", name=best)
    return Msg("frag.known_names", names=", ".join(options))
