"""What a judge is shown, read off a canonical record (a plain dict, as the jsonl holds it).

Every text taken from the record is untrusted and passes through :func:`neutralize` before it goes into
a prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from formatkit._core.record import RecordDict, reference_of
from scoring._judges.templates import Lang, neutralize

__all__ = ["checklist_text", "conversation_text", "conversation_words", "reference_text"]

_ROLE_LABEL: dict[Lang, dict[str, str]] = {
    "en": {"system": "System", "user": "User", "assistant": "Assistant"},
    "zh": {"system": "系统", "user": "用户", "assistant": "助手"},
}
_NO_CHECKLIST: dict[Lang, str] = {
    "en": "(no checklist for this item)",
    "zh": "（本题没有评分要点）",
}


def _content(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    # An earlier assistant turn the runner generated keeps its text in its first response.
    responses = message.get("responses")
    if isinstance(responses, list) and responses and isinstance(responses[0], dict):
        generated = responses[0].get("content")
        if isinstance(generated, str):
            return generated
    return ""


def conversation_words(record: RecordDict) -> str:
    """Every user and assistant turn before the target, joined (what the prompt language is read from).

    The whole conversation, not only the last question: a Chinese conversation whose last turn is
    ``1+1=?`` or an English term is still Chinese. System prompts are left out (often boilerplate in
    another language than the conversation).
    """
    messages: object = record.get("messages")
    if not isinstance(messages, list):
        return ""
    return "\n".join(
        _content(m) for m in messages[:-1] if isinstance(m, dict) and m.get("role") in ("user", "assistant")
    )


def conversation_text(record: RecordDict, lang: Lang) -> str:
    """The conversation up to the target turn, neutralized.

    A bare single user turn is shown as it is; with a system prompt or earlier turns, each turn is
    labelled with its role so the judge sees the history that the final question depends on.
    """
    history = [m for m in record.get("messages", [])[:-1] if isinstance(m, dict)]
    if len(history) == 1 and history[0].get("role") == "user":
        return neutralize(_content(history[0]))
    labels = _ROLE_LABEL.get(lang) or _ROLE_LABEL["en"]  # a language without judge prompts: English's
    parts = [f"[{labels.get(str(m.get('role')), str(m.get('role')))}]\n{_content(m)}" for m in history]
    return neutralize("\n\n".join(parts))


def reference_text(record: RecordDict) -> str | None:
    value = reference_of(record)
    return neutralize(value) if isinstance(value, str) else None


def checklist_text(record: RecordDict, lang: Lang) -> str:
    """``meta.checklist`` as a bulleted list (a list) or as given (a string); a stated absence if none."""
    meta = record.get("meta")
    value = meta.get("checklist") if isinstance(meta, dict) else None
    if isinstance(value, list):
        items = [str(item).strip() for item in value if str(item).strip()]
        if items:
            return neutralize("\n".join(f"- {item}" for item in items))
    elif isinstance(value, str) and value.strip():
        return neutralize(value.strip())
    return _NO_CHECKLIST.get(lang) or _NO_CHECKLIST["en"]
