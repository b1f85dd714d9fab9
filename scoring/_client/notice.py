"""A sentence said to the user at once (``on_notice``), in English, carrying its catalogue message so that
whoever prints it can say it in the run's language (``formatkit run --lang zh``).

A :class:`Said` is a ``str`` (its English text): every ``on_notice`` takes it as it takes any sentence, it
pickles across ``--processes`` workers, and a printer that knows a language renders :attr:`Said.msg`.
"""

from __future__ import annotations

from typing import Any

from formatkit._core.messages import Msg

__all__ = ["Said", "in_language"]


class Said(str):
    """The English text of ``msg``, with ``msg`` kept."""

    msg: Msg

    def __new__(cls, msg: Msg) -> Said:
        said = super().__new__(cls, msg.render("en"))
        said.msg = msg
        return said

    def __reduce__(self) -> tuple[Any, ...]:
        return (Said, (self.msg,))


def in_language(text: str, lang: str | None) -> str:
    """``text`` in ``lang`` when it is a :class:`Said` (else as it is)."""
    msg = getattr(text, "msg", None)
    return msg.render(lang) if isinstance(msg, Msg) and lang else text
