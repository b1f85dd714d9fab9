"""The prefix metric (the platform's 前缀匹配): the reply starts with the reference.

The reply (its reasoning block and Markdown bold taken off) and every accepted answer (a JSON list as the
reference, ``meta.aliases``) are compared in :func:`~scoring._metrics.wordmatch.match_form` (width, case and
punctuation set aside, numbers and words kept whole); the match must end a word where the reference ends in a
letter or digit of an alphabetic script: ``1`` is no prefix of ``12`` or ``1,000``, ``3`` none of ``3.5``, ``cat``
none of ``category``; Chinese has no word breaks, so ``北京`` is a prefix of ``北京市``."""

from __future__ import annotations

from scoring._metrics.base import Item, ItemScore
from scoring._metrics.exact import accepted_answers
from scoring._metrics.normalize import answer_form, nfkc, reply_body
from scoring._metrics.wordmatch import match_form, starts_at_word

__all__ = ["score_prefix"]


#: After an answer made of symbols, a further bracket continues it: ``) ] >`` does not start with ``) ]``'s answer.
_BRACKETS = frozenset("()[]{}<>（）【】")


def score_prefix(content: str, item: Item) -> ItemScore:
    answers = [a for a in accepted_answers(item) if match_form(a) or answer_form(a)]
    if not answers:
        return ItemScore(None, "prefix: no reference to compare with")
    body = reply_body(content)[0].replace("**", "")
    symbols = [a for a in answers if not match_form(a)]
    for answer in symbols:
        # an answer made of symbols (") ] }") keeps them: the reply must start with the same symbols
        squeezed, wanted = "".join(nfkc(body).split()), answer_form(answer)
        if squeezed.startswith(wanted) and squeezed[len(wanted) : len(wanted) + 1] not in _BRACKETS:
            return ItemScore(1.0, f"prefix: the reply starts with «{answer}»; 1", extracted=answer)
    answers = [a for a in answers if match_form(a)]
    if not answers:
        head = " ".join(body.split())[:20]
        return ItemScore(0.0, f"prefix: the reply starts «{head}…», not with the reference; 0", extracted=head)
    reply = match_form(body)
    if not reply:
        return ItemScore(0.0, "prefix: the reply is empty", extracted="")
    for answer in answers:
        if starts_at_word(reply, match_form(answer)):
            return ItemScore(1.0, f"prefix: the reply starts with «{answer}»; 1", extracted=answer)
    head = reply[: max(len(match_form(a)) for a in answers) + 8]
    return ItemScore(0.0, f"prefix: the reply starts «{head}…», not with the reference; 0", extracted=head)
