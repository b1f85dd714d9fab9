"""Another tool's file (``--from KIND``): its lines read by the shape's module into formatkit's jsonl lines,
then through the jsonl rules, so a set made for another tool gets the same located checks as our own.

The tool's own mistakes (a missing field, a wrong type) are reported by the shape's module at their line,
under the tool's field names; what the jsonl rules find is reported at the same line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from formatkit._core.draft import Draft
from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.modes import Mode
from formatkit._core.record import RecordDict
from formatkit._drivers.jsonl import JsonlReader
from formatkit._reading.jsonl_lines import iter_json_lines
from formatkit._rules import jsonl as rules
from formatkit._rules.jsonl import detect_shape
from formatkit._rules.shapes import shape_reader

__all__ = ["PeerReader"]


class PeerReader(JsonlReader):
    """Reads a jsonl file of shape ``shape`` (a name of :data:`formatkit._rules.shapes.SHAPES`)."""

    def __init__(self, path: Path, *, shape: str, mode: Mode, sink: IssueSink, max_rows: int | None) -> None:
        super().__init__(path, mode=mode, sink=sink, max_rows=max_rows, fast=False)
        self.read_line = shape_reader(shape)

    def drafts(self) -> Iterator[Draft | RecordDict]:
        sink = self.sink
        if self.path.stat().st_size == 0:
            sink.add("empty_file", Msg("empty_file.jsonl"), line=None)
            return
        for line, value in iter_json_lines(self.path, sink):
            self.rows += 1
            if not rules.check_line_count(self.rows, self.max_rows, line, sink):
                break
            if not rules.check_object(value, line, sink):
                continue
            ours = self.read_line(value, line, sink)
            if ours is None:
                continue
            shape = detect_shape(ours, self.format) or self.format or "jsonl-single-turn"
            if self.format is None:
                self.format = shape
            elif shape != self.format:
                # a tool's file may mix a question with a conversation (EvalScope's messages form): read
                # each line in its own shape, not as a mistake of the file
                self.format = shape
            draft = self._draft(ours, line)
            if draft is not None:
                if draft.session_id is None:
                    self._session_ids.default(self._yielded, line, sink)
                self._yielded += 1
                yield draft
        rules.check_no_records(self.rows, sink)
