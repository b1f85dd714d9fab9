"""'Did you mean' suggestions for mistyped headers, keys and parameter names."""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable

__all__ = ["did_you_mean", "suggestion"]


def suggestion(word: str, candidates: Iterable[str]) -> str | None:
    """The closest known name to ``word``, or None when nothing is close."""
    options = list(candidates)
    folded = unicodedata.normalize("NFKC", word).strip().casefold().replace("-", "_").replace(" ", "_")
    for option in options:
        if option.casefold() == folded:
            return option
    matches = difflib.get_close_matches(folded, options, n=1, cutoff=0.6)
    return matches[0] if matches else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """A sentence to append to a message: ' Did you mean "x"?' or a list of what is known."""
    options = list(candidates)
    best = suggestion(word, options)
    if best is not None:
        return f' Did you mean "{best}"?'
    return " Known names: " + ", ".join(options) + "."
