"""Readers turn a file into :class:`~formatkit._core.draft.Draft` records, reporting what they find.

Every reader follows :class:`DraftReader`: construct it with the path and the keywords ``mode``, ``sink``
(the issue sink), ``max_rows`` (the row limit of the profile), ``fast``, ``sheet`` and ``start``; iterate
:meth:`drafts`; then read :attr:`format` and :attr:`rows`. Which reader reads a file is the table of
:mod:`formatkit._core.formats`. A reader never raises for bad content: problems become issues in the sink.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from formatkit._core.draft import Draft
from formatkit._core.formats import INPUT_FORMATS, load
from formatkit._core.issues import Format, IssueSink
from formatkit._core.messages import Msg
from formatkit._core.modes import Mode
from formatkit._core.record import RecordDict

if TYPE_CHECKING:
    from formatkit._drivers.jsonl import PartStart

__all__ = ["DraftReader", "open_reader"]


class DraftReader(Protocol):
    format: Format | None
    rows: int

    def drafts(self) -> Iterator[Draft | RecordDict]:
        """Drafts for the shared rules, or (on a reader's fast path) the finished canonical record of a
        row that passes every rule, exactly as build_record would make it from the row's Draft."""
        ...


def open_reader(
    path: Path,
    *,
    mode: Mode,
    sink: IssueSink,
    max_rows: int | None,
    fast: bool = True,
    sheet: str | None = None,
    start: PartStart | None = None,
) -> DraftReader | None:
    """The reader for ``path``'s extension (:data:`formatkit._core.formats.INPUT_FORMATS`), or None (with an
    issue) when formatkit cannot read it. ``fast``: rows that pass every rule on cheap checks skip the Draft
    (the same record either way). ``sheet``: the worksheet of a table to read. ``start``: read only the part
    of a jsonl file from there (see PartStart); a reader ignores what does not apply to its format."""
    suffix = path.suffix.lower()
    known = INPUT_FORMATS.get(suffix)
    if known is not None:
        reader: DraftReader = load(known.reader)(
            path, mode=mode, sink=sink, max_rows=max_rows, fast=fast, sheet=sheet, start=start
        )
        return reader
    sink.add(
        "unsupported_extension",
        Msg(
            "unsupported_extension",
            name=path.name,
            suffix=suffix or Msg("frag.extension_less"),
            fix=Msg("frag.convert_format"),
        ),
    )
    return None
