"""The keywords metric (the platform's 包含关键词匹配): the reply contains every keyword the reference lists.

The reference lists the keywords separated by the delimiters people type — ``,`` ``，`` ``、`` ``;`` ``；`` or one
per line (a JSON list of strings is a list of keywords too); a comma between two digits is part of a number
(``1,000``), not a delimiter; each keyword is trimmed and empty ones are dropped. The reply (its reasoning block
and Markdown bold taken off) and each keyword are compared in :func:`~scoring._metrics.wordmatch.match_form`
(width, case and punctuation set aside, numbers and words kept whole: ``C++`` is not ``C``, ``3`` is not in
``3.5``); a keyword that starts or ends with a letter or digit of an alphabetic script must stand as a word
there (``cat`` is not found in ``category``); Chinese keywords are found anywhere. The score is all or nothing
(1 when every keyword is found); the share found is written beside it as ``partial_score``, and the analysis
lists the keywords found and missing."""

from __future__ import annotations

import re

from scoring._metrics.base import Item, ItemScore
from scoring._metrics.exact import json_list
from scoring._metrics.normalize import reply_body
from scoring._metrics.wordmatch import found_at_word, match_form

__all__ = ["KEYWORD_DELIMITERS", "keyword_list", "score_keywords"]

#: What separates the keywords of a reference.
KEYWORD_DELIMITERS = re.compile(r"[，、;；\n]|(?<!\d),|,(?!\d)")


def keyword_list(reference: str) -> list[str]:
    """The keywords a reference lists, in order, each once (a JSON list of strings, or delimited text)."""
    text = reference.strip()
    parts = json_list(text)
    if parts is None:
        parts = KEYWORD_DELIMITERS.split(text)
    return list(dict.fromkeys(part.strip() for part in parts if match_form(part)))


def score_keywords(content: str, item: Item) -> ItemScore:
    keywords = keyword_list(item.reference or "")
    if not keywords:
        return ItemScore(None, "keywords: the reference lists no keyword")
    reply = match_form(reply_body(content)[0].replace("**", ""))
    found = [k for k in keywords if found_at_word(reply, match_form(k))]
    missing = [k for k in keywords if k not in found]
    share = len(found) / len(keywords)
    listed = f"found {', '.join(found) or 'none'}" + (f"; missing {', '.join(missing)}" if missing else "")
    score = 1.0 if not missing else 0.0
    return ItemScore(
        score,
        f"keywords: {len(found)} of {len(keywords)} ({listed}); {score:g}",
        extracted=", ".join(found),
        partial=round(share, 4),
    )
