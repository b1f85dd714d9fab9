"""Multiple-choice lines as EvalScope's ``general_mcq`` and OpenCompass's custom sets write them: the
question, one key per option (``A``, ``B``, ... from A on), ``answer`` the letter of the right one."""

from __future__ import annotations

from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.record import JsonObject
from formatkit._rules.shapes.common import LETTERS, Parts, Unfit, choice_of, letter_of, read_text

__all__ = ["check_answer", "read_choices", "write_choices"]


def write_choices(line: JsonObject, parts: Parts, shape: str) -> None:
    """Add the record's options (``meta.choices``) and the letter of its reference to ``line``; Unfit when
    it has no options, more than the letters, or a reference that names none of them."""
    choices = parts.meta.get("choices")
    if not isinstance(choices, list) or not choices:
        raise Unfit(Msg("shape_record_unfit.no_choices", shape=shape))
    if len(choices) > len(LETTERS):
        raise Unfit(Msg("shape_record_unfit.too_many_choices", shape=shape, count=len(choices), most=len(LETTERS)))
    for letter, choice in zip(LETTERS, choices, strict=False):
        line[letter] = choice
    if parts.reference is not None:
        right = letter_of(parts.reference, [str(c) for c in choices])
        if right is None:
            raise Unfit(Msg("shape_record_unfit.not_a_choice", shape=shape, reference=parts.reference))
        line["answer"] = right


def read_choices(value: JsonObject, out: JsonObject, line: int, sink: IssueSink) -> bool:
    """Read the options into ``out["meta"]["choices"]`` and ``answer`` into ``out["answer"]``; False when
    something was reported."""
    before = sink.errors
    choices = choice_of(value, line, sink)
    if choices is not None:
        out.setdefault("meta", {})["choices"] = choices
    answer = read_text(value, "answer", line, sink)
    if answer is not None and answer != "":
        out["answer"] = answer
        if choices is not None:
            check_answer(answer, choices, "answer", line, sink)
    return sink.errors == before


def check_answer(answer: str, choices: list[str], name: str, line: int, sink: IssueSink) -> bool:
    """The answer of a multiple-choice line names one of its options (a letter among theirs, or an option's
    text); else an error at the line (a letter the options do not reach would score every reply wrong)."""
    if letter_of(answer, choices) is not None:
        return True
    letters = f"{LETTERS[0]}–{LETTERS[len(choices) - 1]}" if len(choices) > 1 else LETTERS[0]
    shown = answer if len(answer) <= 80 else answer[:80] + "..."
    message = Msg("invalid_type.not_a_choice", field=name, count=len(choices), letters=letters, value=shown)
    sink.add("invalid_type", message, line=line, field=name)
    return False
