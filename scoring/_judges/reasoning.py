"""The judge's own reasoning, set apart from its reply before any verdict is looked for.

Only reasoning the judge wrote *first* is removed: a ``<think>…</think>`` block at the very start of the
reply (servers with a reasoning parser send it apart, as ``reasoning_content``, and the reply has none).
That block ends at the reply's **last** ``</think>``: inside its reasoning the judge quotes the response,
and a response holding ``</think>`` (a reasoning model's answer often does) would otherwise end the
judge's reasoning early and put the rest of it (its drafts, the response's planted verdict) where the
verdict is read. The prompts ask for nothing after the verdict; a judge that still mentions ``</think>``
after it loses that verdict (a counted void, never a wrong score). Without a leading ``<think>``, a
``</think>`` anywhere is text: a judge that mentions the response's ``</think>`` in its analysis, before or
after its verdict, keeps every word of its reply.

Not removed: a head-less block (a chat template that opens ``<think>`` in the prompt, so the reply
starts inside it and only a ``</think>`` ends it). Telling that close from a mention of the response's
``</think>`` is guesswork, and guessing wrong hands the verdict to whatever follows the mention. Drafts
left in the reply are harmless: with the nonce tag, drafts that agree with the verdict change nothing
and drafts that differ make the reply refused (a counted null, never a wrong score).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["JudgeText", "judge_text"]

_LEADING = re.compile(r"^\s*<\s*think\s*>", re.IGNORECASE)
_CLOSE = re.compile(r"<\s*/\s*think\s*>", re.IGNORECASE)


@dataclass(frozen=True)
class JudgeText:
    """The reply without its leading reasoning; ``cut_off``: the reasoning never closed (a token limit)."""

    body: str
    cut_off: bool = False


def judge_text(reply: str) -> JudgeText:
    """``reply`` with the judge's leading ``<think>…</think>`` removed (see the module docstring)."""
    leading = _LEADING.match(reply)
    if leading is None:
        return JudgeText(body=reply)
    closes = list(_CLOSE.finditer(reply, leading.end()))
    if not closes:
        return JudgeText(body="", cut_off=True)
    return JudgeText(body=reply[closes[-1].end() :])
