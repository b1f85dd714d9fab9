"""Other tools' shapes of an evaluation set: one table, :data:`SHAPES`, from a shape's name to its entry.

Every place that names the peers' shapes reads this table: the command line's ``--to`` and ``--from`` (the
names they take, their help, the usage checks), :func:`formatkit.write_shape` and the readers of
``--from`` (:mod:`formatkit._drivers.peers`), the guide's table of shapes (``docs/generate.py``) and the
tests, which run over every entry. Adding a shape is one entry here and its module; see CONTRIBUTING.md,
"Add a peer's shape" (tests/shapes/test_shape_recipe.py registers a toy one).

An entry names its functions by dotted path (``"package.module:name"``), imported only when a file of that
shape is read or written, so the table costs nothing at start. A callable is accepted in place of a path (a
shape registered by a test or a plugin, :func:`register_shape`).

- ``reader`` (``--from``): ``read_line(value, line, sink)`` turns one line of the tool's file (a JSON
  object) into a line of formatkit's own jsonl (single-turn ``prompt``/``system``/``answer`` or multi-turn
  ``messages``, with ``session_id``, ``parameters`` and ``meta``), reporting the tool's own mistakes at their
  line and field under the tool's names, or returns None for a line it cannot read. The jsonl rules then
  check what was read, as they check formatkit's own jsonl.
- ``writer`` (``--to``): ``write_record(record, position, options)`` turns one canonical record into the
  tool's line(s), naming what the shape cannot hold (:class:`~formatkit._rules.shapes.common.Written`) or
  refusing a record it cannot hold at all (:class:`~formatkit._rules.shapes.common.Unfit`); the writer
  (:mod:`formatkit._api.shapes`) lists every field lost in a warning (``shape_field_lost``).

A shape with only one of them goes one way: ``--from`` or ``--to`` lists it only where it applies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from formatkit._lazy import load_ref

if TYPE_CHECKING:
    from formatkit._core.issues import IssueSink
    from formatkit._core.record import JsonObject, RecordDict
    from formatkit._rules.shapes.common import Written

__all__ = [
    "SHAPES",
    "Direction",
    "ReadLine",
    "ShapeSpec",
    "WriteRecord",
    "register_shape",
    "shape_names",
    "shape_reader",
    "shape_writer",
    "unregister_shape",
]

#: ``--from`` reads a shape, ``--to`` writes one.
Direction = Literal["read", "write"]
#: A shape's reader: one line of the tool's file (its JSON object, its line number, the sink) → formatkit's line.
ReadLine = Callable[["JsonObject", int, "IssueSink"], "JsonObject | None"]
#: A shape's writer: one canonical record, its position in the set and the options (``model``) → the lines.
WriteRecord = Callable[["RecordDict", int, dict[str, str]], "Written"]
#: A function by dotted path (``"formatkit._rules.shapes.promptfoo:read_line"``) or itself.
Ref = str | Callable[..., Any]


@dataclass(frozen=True)
class ShapeSpec:
    """One other tool's shape: the name ``--to``/``--from`` take, one line of help (the tool's file), its
    reader and writer by dotted path (None: the shape does not go that way), and for the guide's table what
    it holds of a record and what it does not. ``requests``: its lines are requests to a model (a batch
    API's), one per pending turn and sample, each naming the model (``--model``): written from one set, and
    not the set itself (what is read back is the replies, into that set: ``--from NAME --set SET``)."""

    name: str
    summary: str
    reader: Ref | None = None
    writer: Ref | None = None
    holds: str = ""
    loses: str = ""
    requests: bool = False

    @property
    def directions(self) -> tuple[Direction, ...]:
        """``("read", "write")``, or the one way the shape goes."""
        ways: list[Direction] = []
        if self.reader is not None:
            ways.append("read")
        if self.writer is not None:
            ways.append("write")
        return tuple(ways)


_SHAPES = "formatkit._rules.shapes"

#: Every shape by the name ``--to``/``--from`` take, in the order the help and the guide list them.
SHAPES: dict[str, ShapeSpec] = {
    spec.name: spec
    for spec in (
        ShapeSpec(
            "evalscope-qa",
            "EvalScope's custom general_qa jsonl (system, query, response; or messages)",
            reader=f"{_SHAPES}.evalscope_qa:read_line",
            writer=f"{_SHAPES}.evalscope_qa:write_record",
            holds="system prompt, conversation, reference",
            loses="session_id, parameters, labels",
        ),
        ShapeSpec(
            "evalscope-mcq",
            "EvalScope's custom general_mcq jsonl (id, question, A...J, answer)",
            reader=f"{_SHAPES}.evalscope_mcq:read_line",
            writer=f"{_SHAPES}.evalscope_mcq:write_record",
            holds="session_id, options (meta.choices), the right option's letter",
            loses="system prompt, conversation, parameters, other labels",
        ),
        ShapeSpec(
            "opencompass",
            "OpenCompass's custom dataset jsonl (question, answer; A, B, ... for options)",
            reader=f"{_SHAPES}.opencompass:read_line",
            writer=f"{_SHAPES}.opencompass:write_record",
            holds="options, reference",
            loses="session_id, system prompt, conversation, parameters, labels",
        ),
        ShapeSpec(
            "inspect",
            "inspect_ai's sample file, json_dataset (id, input, target, choices, metadata)",
            reader=f"{_SHAPES}.inspect_samples:read_line",
            writer=f"{_SHAPES}.inspect_samples:write_record",
            holds="everything but parameters",
            loses="parameters",
        ),
        ShapeSpec(
            "promptfoo",
            "promptfoo's test cases, one per jsonl line (vars, assert, metadata)",
            reader=f"{_SHAPES}.promptfoo:read_line",
            writer=f"{_SHAPES}.promptfoo:write_record",
            holds="session_id (as metadata.id), system prompt and question (vars), reference (an equals "
            "assertion), labels",
            loses="conversation, parameters",
        ),
        ShapeSpec(
            "openai-batch",
            "a Batch API's request file (OpenAI's /v1/batches): one request per pending turn",
            reader=f"{_SHAPES}.openai_batch:read_line",
            writer=f"{_SHAPES}.openai_batch:write_record",
            holds="the conversation and the parameters of each request",
            loses="the reference and the labels (they stay in the set)",
            requests=True,
        ),
    )
}


def shape_names(direction: Direction | None = None) -> list[str]:
    """The shapes' names in table order (those that go ``direction`` when it is given)."""
    return [name for name, spec in SHAPES.items() if direction is None or direction in spec.directions]


def _function(name: str, direction: Direction) -> Callable[..., Any]:
    spec = SHAPES.get(name)
    ref = None if spec is None else spec.reader if direction == "read" else spec.writer
    if ref is None:
        raise KeyError(f"no shape {name!r} to {direction}: one of {', '.join(shape_names(direction))}")
    return load_ref(ref) if isinstance(ref, str) else ref


def shape_reader(name: str) -> ReadLine:
    """The reader of shape ``name`` (imported now); KeyError for a shape that is not read (or not in the table)."""
    return cast("ReadLine", _function(name, "read"))


def shape_writer(name: str) -> WriteRecord:
    """The writer of shape ``name`` (imported now); KeyError for a shape that is not written (or not in the table)."""
    return cast("WriteRecord", _function(name, "write"))


def register_shape(spec: ShapeSpec) -> ShapeSpec:
    """Add ``spec`` to the table (a plugin's shape, a test's toy); a name already taken is an error."""
    if spec.name in SHAPES:
        raise ValueError(f"shape {spec.name!r}: the name is taken")
    if not spec.directions:
        raise ValueError(f"shape {spec.name!r}: neither a reader nor a writer")
    SHAPES[spec.name] = spec
    return spec


def unregister_shape(name: str) -> None:
    """Take ``name`` out of the table (what :func:`register_shape` added)."""
    SHAPES.pop(name, None)
