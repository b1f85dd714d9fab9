"""The prefix metric (the platform's 前缀匹配): the reply starts with the reference.

Both sides are put in the exact metric's normal form first (:func:`normalize_text`: width, case, punctuation
and English articles, whitespace collapsed), after the reply's reasoning block and Markdown bold are taken
off. Every accepted answer counts (a JSON list as the reference, ``meta.aliases``). A reference that ends in
a Latin letter or digit must end a word in the reply: ``1`` is no prefix of ``12``, ``cat`` none of
``category``; Chinese has no word breaks, so ``北京`` is a prefix of ``北京市``."""

from __future__ import annotations

from scoring._metrics.base import Item, ItemScore
from scoring._metrics.exact import accepted_answers
from scoring._metrics.normalize import normalize_text, reply_body

__all__ = ["score_prefix", "starts_with"]


def _word_char(char: str) -> bool:
    return char.isascii() and char.isalnum()


def starts_with(reply: str, reference: str) -> bool:
    """Whether the normalised ``reply`` starts with the normalised ``reference`` at a word's end."""
    if not reference or not reply.startswith(reference):
        return False
    following = reply[len(reference) : len(reference) + 1]
    return not (following and _word_char(following) and _word_char(reference[-1]))


def score_prefix(content: str, item: Item) -> ItemScore:
    answers = [a for a in accepted_answers(item) if normalize_text(a)]
    if not answers:
        return ItemScore(None, "prefix: no reference to compare with")
    reply = normalize_text(reply_body(content)[0].replace("**", ""))
    if not reply:
        return ItemScore(0.0, "prefix: the reply is empty", extracted="")
    for answer in answers:
        if starts_with(reply, normalize_text(answer)):
            return ItemScore(1.0, f"prefix: the reply starts with «{answer}»; 1", extracted=answer)
    head = reply[: max(len(normalize_text(a)) for a in answers) + 8]
    return ItemScore(0.0, f"prefix: the reply starts «{head}…», not with the reference; 0", extracted=head)
