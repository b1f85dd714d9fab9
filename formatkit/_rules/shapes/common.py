"""What every shape's module shares: the record taken apart, what a writer returns, and the checks of a
tool's own fields (a missing field, a wrong type), reported at the line and under the tool's field name."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath

from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.record import JsonObject, MessageDict, RecordDict, ResponseDict, last_message
from formatkit._rules.jsonl import report_type

__all__ = [
    "LETTERS",
    "Parts",
    "Unfit",
    "Written",
    "choice_of",
    "common_losses",
    "conversation",
    "extra_labels",
    "letter_of",
    "parts_of",
    "read_text",
    "require",
    "single_question",
]

#: The option letters a multiple-choice shape names its options by (EvalScope and OpenCompass: A to J).
LETTERS = "ABCDEFGHIJ"


class Unfit(Exception):
    """A record the shape cannot hold at all (a conversation where the tool takes one question, a
    multiple-choice shape without options): an error at the record's place, nothing written."""

    def __init__(self, reason: Msg) -> None:
        super().__init__(reason.key)
        self.reason = reason


@dataclass
class Written:
    """A record in the tool's shape: its lines (one, or one per request of a batch) and the fields of the
    record the shape cannot hold (``meta.subject``, ``parameters``, ...), to be listed in a warning."""

    lines: list[JsonObject]
    lost: list[str] = field(default_factory=list)


@dataclass
class Parts:
    """A canonical record taken apart the way the other tools see a question."""

    session_id: int | str
    system: str | None
    #: The turns between the system prompt and the question (earlier user and assistant turns).
    history: list[MessageDict]
    question: str
    reference: str | None
    parameters: JsonObject
    #: The target turn's responses that hold a reply, a score or an error (not pending stubs).
    answered: list[ResponseDict]
    #: meta without ``source`` (where the record was read: made anew when the shape is read back), nor a
    #: ``dataset`` that only repeats the name of the file it was read from.
    meta: JsonObject


def parts_of(record: RecordDict) -> Parts:
    """The record's parts (a record convert wrote: its shape is checked)."""
    messages = record["messages"]
    target = last_message(messages)
    before = messages[:-1]
    system = before[0].get("content") if before and before[0]["role"] == "system" else None
    turns = before[1:] if system is not None else before
    question = last_message(turns).get("content", "")
    responses = target.get("responses") or []
    parameters = responses[0].get("parameters") if responses else None
    given = record.get("meta") or {}
    source = given.get("source") or {}
    named = PurePath(str(source.get("file", ""))).stem
    # a dataset named after its file (the default) is named after the file it is read back from: not lost
    meta = {k: v for k, v in given.items() if k != "source" and not (k == "dataset" and v == named)}
    return Parts(
        session_id=record["session_id"],
        system=system,
        history=list(turns[:-1]),
        question=question,
        reference=target.get("reference_response"),
        parameters=dict(parameters) if isinstance(parameters, dict) else {},
        answered=[r for r in responses if set(r) - {"parameters"}],
        meta=meta,
    )


def common_losses(
    parts: Parts, position: int, *, holds: tuple[str, ...], meta_holds: tuple[str, ...] = ()
) -> list[str]:
    """The fields of ``parts`` a shape that holds ``holds`` (of ``session_id``, ``system``, ``parameters``,
    ``responses``) and the meta labels ``meta_holds`` cannot hold. A session_id equal to the record's
    position is not lost: reading the shape back gives it again."""
    lost: list[str] = []
    if "session_id" not in holds and parts.session_id != position:
        lost.append("session_id")
    if "system" not in holds and parts.system is not None:
        lost.append("system")
    if "parameters" not in holds and parts.parameters:
        lost.append("parameters")
    if "responses" not in holds and parts.answered:
        lost.append("responses")
    lost.extend(f"meta.{key}" for key, value in parts.meta.items() if key not in meta_holds and value is not None)
    return lost


def single_question(parts: Parts, shape: str) -> None:
    """Refuse a conversation (earlier turns) in a shape that holds one question."""
    if parts.history:
        raise Unfit(Msg("shape_record_unfit.conversation", shape=shape, turns=len(parts.history)))


def conversation(parts: Parts, shape: str) -> list[JsonObject]:
    """The record's turns as ``{"role", "content"}`` messages, the question last; a conversation whose
    earlier assistant turn is still to be generated is refused (the tools take history as given)."""
    messages: list[JsonObject] = [{"role": "system", "content": parts.system}] if parts.system is not None else []
    for message in parts.history:
        content = message.get("content")
        if content is None:
            raise Unfit(Msg("shape_record_unfit.pending_turn", shape=shape))
        messages.append({"role": message["role"], "content": content})
    messages.append({"role": "user", "content": parts.question})
    return messages


def require(value: JsonObject, name: str, line: int, sink: IssueSink) -> bool:
    """Whether the tool's required field ``name`` is there (``missing_field`` at the line when not)."""
    if value.get(name) is None:
        sink.add("missing_field", Msg("missing_field", name=name), line=line, field=name)
        return False
    return True


def read_text(value: JsonObject, name: str, line: int, sink: IssueSink) -> str | None:
    """The tool's text field ``name`` (None when absent); a number is read as its text, anything else is an
    ``invalid_type`` at the line, under the tool's name."""
    found = value.get(name)
    if found is None or isinstance(found, str):
        return found
    if isinstance(found, (int, float)) and not isinstance(found, bool):
        return str(found)
    report_type(line, name, Msg("frag.expect.text"), found, sink)
    return None


def letter_of(reference: str | None, choices: list[str]) -> str | None:
    """The option letter the reference names: the letter itself (``B``, ``b``, ``(B)``) or an option's
    exact text; None when it names none of the options."""
    if reference is None:
        return None
    text = reference.strip().strip("()（）.。").upper()
    if len(text) == 1 and text in LETTERS[: len(choices)]:
        return text
    for index, choice in enumerate(choices):
        if reference.strip() == choice.strip():
            return LETTERS[index]
    return None


def choice_of(value: JsonObject, line: int, sink: IssueSink) -> list[str] | None:
    """The options a line names by letter (``A``, ``B``, ... in order from A, as the tools read them), as
    texts; None when it has no ``A``."""
    choices: list[str] = []
    for letter in LETTERS:
        if letter not in value:
            break
        text = read_text(value, letter, line, sink)
        if text is None:
            return None
        choices.append(text)
    return choices or None


def extra_labels(value: JsonObject, known: tuple[str, ...]) -> JsonObject:
    """The keys of a tool's line that formatkit has no place for, kept as meta labels (nothing lost)."""
    return {k: v for k, v in value.items() if k not in known}
