"""The choice metric: multiple-choice letters (single or a set) and yes/no; 1 or 0."""

from __future__ import annotations

from scoring._metrics.base import Item, ItemScore
from scoring._metrics.extract.choice import (
    LETTERS,
    extract_choice,
    extract_yes_no,
    option_letters,
    parse_choice_reference,
    parse_yes_no,
)

__all__ = ["ChoiceKey", "choice_key", "score_choice"]

# ("letters", valid letters, reference letters) or ("yes-no", "", "yes"/"no")
ChoiceKey = tuple[str, str, str]


def choice_key(item: Item) -> ChoiceKey | None:
    """What a choice item expects, or None when the reference is neither option letters nor yes/no."""
    if item.reference is None:
        return None
    choices = item.meta.get("choices")
    valid = option_letters(item.question, choices if isinstance(choices, list) else None)
    letters = parse_choice_reference(item.reference, valid or LETTERS)
    if letters is not None:
        if not valid:
            # No options visible: accept A–J, and up to the reference's letter for longer lists.
            valid = LETTERS[: max(10, LETTERS.index(letters[-1]) + 1)]
        return ("letters", valid, letters)
    yes_no = parse_yes_no(item.reference)
    if yes_no is not None and len(item.reference.strip()) <= 12:
        return ("yes-no", "", yes_no)
    return None


def score_choice(content: str, item: Item, key: ChoiceKey | None = None) -> ItemScore:
    """1 when the reply's last explicit choice (or bare letter) is exactly the reference's set, else 0."""
    key = key if key is not None else choice_key(item)
    if key is None:
        return ItemScore(None, f"choice: the reference {item.reference!r} is not an option letter or yes/no")
    kind, valid, expected = key
    found = extract_choice(content, valid) if kind == "letters" else extract_yes_no(content)
    if not found.found:
        return ItemScore(0.0, f"choice: no answer found ({found.how}); reference «{expected}»; wrong", "")
    verdict = "correct" if found.letters == expected else "wrong"
    return ItemScore(
        1.0 if verdict == "correct" else 0.0,
        f"choice: extracted «{found.letters}» via {found.how}; reference «{expected}»; {verdict}",
        found.letters,
    )
