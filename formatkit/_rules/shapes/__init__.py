"""Other tools' shapes of an evaluation set, both ways: :data:`SHAPES`, from a shape's name to its module.

A shape's module (``evalscope``, ``opencompass``, ``inspect_samples``, ``promptfoo``, ``openai_batch``) knows
that tool's fields and nothing else: ``read_line(value, line, sink)`` turns one line of the tool's file into
a line of formatkit's own jsonl (single-turn ``prompt``/``system``/``answer`` or multi-turn ``messages``,
with ``session_id``, ``parameters`` and ``meta``), reporting the tool's own mistakes at their line and field
under the tool's names; ``write_record(record, position)`` turns one canonical record into the tool's
line(s), naming what the shape cannot hold (:class:`~formatkit._rules.shapes.common.Written`) or refusing a
record it cannot hold at all (:class:`~formatkit._rules.shapes.common.Unfit`). The jsonl rules then check
what was read, as they check formatkit's own jsonl; the writer (:mod:`formatkit._api.shapes`) lists every
field lost in a warning (``shape_field_lost``).
"""

from __future__ import annotations

import importlib
from typing import Literal, cast, get_args

from formatkit._rules.shapes.common import Shape

__all__ = ["SHAPES", "Shape", "ShapeName", "shape_module"]

ShapeName = Literal["evalscope-qa", "evalscope-mcq", "opencompass", "inspect", "promptfoo", "openai-batch"]

#: Every shape by the name ``--to``/``--from`` take, to the module that reads and writes it.
SHAPES: dict[str, str] = {
    "evalscope-qa": "formatkit._rules.shapes.evalscope_qa",
    "evalscope-mcq": "formatkit._rules.shapes.evalscope_mcq",
    "opencompass": "formatkit._rules.shapes.opencompass",
    "inspect": "formatkit._rules.shapes.inspect_samples",
    "promptfoo": "formatkit._rules.shapes.promptfoo",
    "openai-batch": "formatkit._rules.shapes.openai_batch",
}

assert tuple(SHAPES) == get_args(ShapeName)


def shape_module(name: str) -> Shape:
    """The module of shape ``name`` (imported now); KeyError for a name not in :data:`SHAPES`."""
    return cast(Shape, importlib.import_module(SHAPES[name]))
