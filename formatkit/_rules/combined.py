"""Rules over several files read as one set (an upload, a ``convert`` or ``eval`` of several files).

Each file's own rules keep a session_id unique in its file; a canonical file keeps it unique per dataset
(``meta.dataset``, the input file's name by default). Two files that give records to one dataset (a set
and an older copy of it, or ``a/set.jsonl`` and ``b/set.jsonl``) would each pass alone and write a
combined file that ``validate`` refuses: that is checked here, record by record, at the later record's own
place, before anything is written or sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from formatkit._core.draft import Place
from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.record import RecordDict, SourceDict

__all__ = ["CombinedIds", "combined_ids", "place_of"]


def place_of(source: Mapping[str, Any]) -> Place:
    """Where a record starts in its file, from its source: ``line``, or ``sheet`` and ``row``."""
    if source.get("line") is not None:
        return {"line": source["line"]}
    place: Place = {}
    if source.get("sheet") is not None:
        place["sheet"] = source["sheet"]
    rows = source.get("rows")
    row = rows[0] if isinstance(rows, list) and rows else source.get("row")
    if row is not None:
        place["row"] = row
    return place


def _where(file: str, place: Place) -> Msg | str:
    if "line" in place:
        return Msg("frag.place.line", file=file, line=place["line"])
    if "sheet" in place and "row" in place:
        return Msg("frag.place.row", file=file, sheet=place["sheet"], row=place["row"])
    return file


def combined_ids(files: int, *, by_dataset: bool = True) -> CombinedIds | None:
    """The cross-file check for ``files`` files written (or validated) as one output, or None where it can
    never fire: one file with datasets kept, where an id met again is in the same file and dataset, which
    the file's own rules report. Skipping it there keeps a one-file run's memory flat (it remembers every
    id) and saves ~1 µs a record."""
    return CombinedIds(by_dataset=by_dataset) if files > 1 or not by_dataset else None


class CombinedIds:
    """A session_id is unique in its dataset across every file written into one output.

    ``by_dataset=False`` (``convert --no-meta``): the output carries no dataset, so an id must be unique in
    the whole output. A repeat inside one file and one dataset is left to the file's own rules (it is
    reported there once).
    """

    def __init__(self, *, by_dataset: bool = True) -> None:
        self.by_dataset = by_dataset
        #: (dataset or None, id) -> (file, dataset, source) of the record that first used it.
        self._first: dict[tuple[Any, Any], tuple[str, Any, SourceDict]] = {}

    def check(self, record: RecordDict, file: str, source: SourceDict, sink: IssueSink) -> bool:
        """False (and an issue in ``sink`` at the record's place) when an earlier record holds its id.
        ``source``: where the record was read (``line``, or ``sheet`` and ``rows``), see :func:`place_of`."""
        session_id: object = record.get("session_id")  # a record passed through as it was read
        if isinstance(session_id, (dict, list)) or session_id is None:
            return True
        meta = record.get("meta")
        dataset: object = meta.get("dataset") if isinstance(meta, dict) else None
        if isinstance(dataset, (dict, list)):
            dataset = None
        key = (dataset if self.by_dataset else None, session_id)
        first = self._first.get(key)
        if first is None:
            self._first[key] = (file, dataset, source)
            return True
        first_file, first_dataset, first_source = first
        if first_file == file and first_dataset == dataset:
            return True  # the file's own rule reports it
        first_place = _where(first_file, place_of(first_source))
        if self.by_dataset:
            message = Msg("duplicate_session_id.files", sid=session_id, dataset=dataset, first=first_place)
        else:
            message = Msg("duplicate_session_id.files_no_meta", sid=session_id, first=first_place)
        sink.add("duplicate_session_id", message, **place_of(source))
        return False
