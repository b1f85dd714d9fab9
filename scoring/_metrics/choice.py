"""The choice metric: multiple-choice letters (single or a set) and yes/no; 1 or 0, or unscorable."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping

from scoring._metrics.base import Item, ItemScore
from scoring._metrics.extract.choice import (
    LETTERS,
    ChoiceExtraction,
    extract_choice,
    extract_yes_no,
    option_letters,
    option_texts,
    parse_choice_reference,
    parse_yes_no,
    reference_letters,
)

__all__ = ["YES_NO", "ChoiceKey", "choice_key", "score_choice"]

#: The kind of a yes/no reference (``auto``'s ``reference_kind`` says it too): a kind of reference, not a
#: metric's name, though a metric may be called so (CONTRIBUTING's worked judge kind is ``yes-no``).
YES_NO = "yes-no"

# ("letters", valid letters, reference letters) or (YES_NO, "", "yes"/"no")
ChoiceKey = tuple[str, str, str]


def _choices(item: Item) -> list[str] | None:
    choices = item.meta.get("choices")
    return [str(choice) for choice in choices] if isinstance(choices, list) else None


def choice_key(item: Item) -> ChoiceKey | None:
    """What a choice item expects, or None when the reference is neither option letters nor yes/no."""
    if item.reference is None:
        return None
    valid = option_letters(item.question, _choices(item))
    letters = parse_choice_reference(item.reference, valid or LETTERS)
    if letters is not None and not valid and len(letters) > 1 and not _key_like(item.reference):
        letters = None  # "DNA", "CPU", "ATP" with no options in sight are words, not three option letters
    if letters is not None:
        if not valid:
            # No options visible: accept A–J, and up to the reference's letter for longer lists.
            valid = LETTERS[: max(10, LETTERS.index(letters[-1]) + 1)]
        return ("letters", valid, letters)
    yes_no = parse_yes_no(item.reference)
    if yes_no is not None and len(item.reference.strip()) <= 12:
        return (YES_NO, "", yes_no)
    return None


def _key_like(reference: str) -> bool:
    """Several letters an answer key could hold with no options in sight: all within A–J (``ACD``, ``A,C``),
    the most options a benchmark gives (MMLU-Pro); ``DNA``, ``CPU``, ``ATP`` reach beyond."""
    return all(c <= "J" for c in reference.upper() if "A" <= c <= "Z")


def _unscorable(item: Item) -> ItemScore:
    reference = item.reference
    named = reference_letters(reference) if reference is not None else None
    if named is not None:
        valid = option_letters(item.question, _choices(item))
        return ItemScore(
            None, f"choice: the reference «{named}» names a letter outside the item's options ({valid[0]}–{valid[-1]})"
        )
    return ItemScore(None, f"choice: the reference {reference!r} is not an option letter or yes/no")


class _Options(Mapping[str, str]):
    """The item's option texts, read only when extraction needs them (most replies name their letter)."""

    def __init__(self, item: Item) -> None:
        self._item = item

    @functools.cached_property
    def _texts(self) -> dict[str, str]:
        return option_texts(self._item.question, _choices(self._item))

    def __getitem__(self, key: str) -> str:
        return self._texts[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


def _extract(content: str, item: Item, valid: str) -> ChoiceExtraction:
    # The options' texts let a conclusion that names an option by its text, or a final answer that restates
    # it, count as that option.
    return extract_choice(content, valid, _Options(item))


def score_choice(content: str, item: Item, key: ChoiceKey | None = None) -> ItemScore:
    """1 when the reply's last explicit choice (or bare letter) is exactly the reference's set, else 0.

    A reply that names no letter, or hedges between options, is wrong (0) and ``extracted`` is None; a
    reference that names no option (or a letter outside the options) makes the item unscorable (None).
    """
    key = key if key is not None else choice_key(item)
    if key is None:
        return _unscorable(item)
    kind, valid, expected = key
    found = _extract(content, item, valid) if kind == "letters" else extract_yes_no(content)
    if not found.found:
        return ItemScore(0.0, f"choice: no answer found ({found.how}); reference «{expected}»; wrong", None)
    verdict = "correct" if found.letters == expected else "wrong"
    return ItemScore(
        1.0 if verdict == "correct" else 0.0,
        f"choice: extracted «{found.letters}» via {found.how}; reference «{expected}»; {verdict}",
        found.letters,
    )
