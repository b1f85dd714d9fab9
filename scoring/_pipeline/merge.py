"""``formatkit merge``: the parts of ``--shard K/N`` runs put back together, in input order.

Each part is an output of ``run --shard K/N`` (``OUT.jsonl`` with its run record ``OUT.jsonl.run.json``;
a file ``score`` wrote from it carries the record along), or a directory ``eval --shard K/N`` wrote
(its ``scored.jsonl``, else ``answered.jsonl``, with ``run.json``). The run record says which part of
which input the part holds (:mod:`scoring._runner.shard`): part K of N holds the records at input
positions K-1, K-1+N, ... of an input of ``input_records`` records with a given fingerprint.

Everything is checked before anything is written, and every problem is reported (not the first): parts
of different inputs or splits, a part given twice, a part missing, a part with a record missing or
doubled (its record count is not its share, or a record is there twice: one of its share is then
missing, named by the input position the second copy stands in), a part whose records are not in input
order. Merge does not read the input: it places a part's i-th record at the input position the part's
i-th record has (part K of N: K+(i-1)*N), so the order the parts hold their records is checked where the
records say where they were read (``meta.source``: the same file and sheet, a line or row that must grow
within a part); a part whose records step back is refused, naming the two records, rather than written out
of order. That holds when another part's records do follow the order they were read in; when every part
steps back, the input itself is not in that order (a sorted or assembled file) and nothing can be checked.
Records that carry no line or row cannot be checked either; the outcome says both, and the command says
so instead of "in input order". Then the output is written atomically, record by record
from the parts in turn (memory stays flat), each line as the part holds it, so the merge of the parts of
a run is byte for byte what one unsharded run writes. The merged file's run record lists the parts'.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import orjson

from formatkit._core.messages import Msg
from formatkit._core.record import RecordDict
from formatkit._core.writers import atomic_writer, refuse_special
from scoring._errors import MergeError
from scoring._results import results_lines
from scoring._runner.provenance import (
    RUN_RECORD,
    RunRecord,
    formatkit_version,
    now_iso,
    read_run_record,
    run_record_path,
    write_run_record,
)
from scoring._runner.shard import Shard

__all__ = ["MergeError", "MergeOutcome", "Part", "merge_parts", "resolve_part"]

#: The files of an ``eval`` directory a merge reads, in order of preference.
EVAL_FILES = ("scored.jsonl", "answered.jsonl")


@dataclass
class Part:
    """One part: its records file, its run record, and the record's ``shard`` entry."""

    given: str
    data: Path
    record_path: Path
    record: RunRecord | None = None
    shard: Shard | None = None
    expected: int = 0
    input_records: int = 0
    fingerprint: str = ""

    @property
    def name(self) -> str:
        return self.given


@dataclass
class MergeOutcome:
    output: Path
    records: int
    parts: list[Part] = field(default_factory=list)
    run_record: RunRecord = field(default_factory=RunRecord)
    #: Records whose order could not be checked: they carry no ``meta.source`` line or row.
    unchecked: int = 0
    #: False when every part's records step back in ``meta.source``: the input is not in the order its
    #: records were read from (a sorted or assembled file), so no order could be checked.
    order_checked: bool = True


def resolve_part(given: str | os.PathLike[str]) -> Part:
    """Where a part's records and run record are (a file, or an ``eval`` directory)."""
    path = Path(given)
    if path.is_dir():
        data = next((path / name for name in EVAL_FILES if (path / name).is_file()), path / EVAL_FILES[0])
        return Part(str(given), data, path / RUN_RECORD)
    own = run_record_path(path)
    if not own.exists() and path.name in EVAL_FILES and (path.parent / RUN_RECORD).exists():
        return Part(str(given), path, path.parent / RUN_RECORD)
    return Part(str(given), path, own)


def _read_shard(part: Part) -> Msg | None:
    """Fill ``part`` from its run record; the problem when it has none or it is not a shard's."""
    if not part.data.is_file():
        return Msg("ui.merge.problem.no_data", part=part.name, data=str(part.data))
    if not part.record_path.exists():
        return Msg("ui.merge.problem.no_run_record", part=part.name, record=str(part.record_path))
    record = read_run_record(part.record_path)
    shard = record.get("shard") if record else None
    if not isinstance(shard, dict):
        return Msg("ui.merge.problem.not_a_shard", part=part.name, record=str(part.record_path))
    try:
        part.shard = Shard(int(shard["index"]), int(shard["count"]))
        part.input_records = int(shard["input_records"])
        part.fingerprint = str(shard["input_fingerprint"])
    except (KeyError, TypeError, ValueError):
        return Msg("ui.merge.problem.damaged_shard", part=part.name, record=str(part.record_path))
    part.record = record
    part.expected = len(part.shard.positions(part.input_records))
    return None


def _identity(record: RecordDict) -> bytes:
    """What tells one input record from another in a part: its session id, where it was read from
    (``meta.source``) and its conversation (roles and contents, the responses left out)."""
    meta = record.get("meta")
    source = meta.get("source") if isinstance(meta, dict) else None
    turns = [(m.get("role"), m.get("content")) for m in record["messages"] if isinstance(m, dict)]
    data = orjson.dumps([record.get("session_id"), source, turns])
    return hashlib.blake2b(data, digest_size=16).digest()


def _place(record: RecordDict) -> tuple[tuple[str, str], int] | None:
    """Where the record was read: its file and sheet, and its line (or first row); None when it does not say."""
    meta = record.get("meta")
    source = meta.get("source") if isinstance(meta, dict) else None
    if not isinstance(source, dict):
        return None
    where = source.get("line")
    rows = source.get("rows")
    if not isinstance(where, int) and isinstance(rows, list) and rows and all(isinstance(r, int) for r in rows):
        where = min(rows)
    if not isinstance(where, int) or isinstance(where, bool):
        return None
    return (str(source.get("file")), str(source.get("sheet", ""))), where


@dataclass
class Order:
    """What a part's records say of their order: the first step back, and whether any two were compared."""

    problem: Msg | None = None
    compared: bool = False


def _count(
    part: Part, seen: set[bytes] | None, again: list[Again], order: Order | None = None
) -> tuple[int, Msg | None]:
    """The part's record count, and a problem when a line is not a JSON record; with ``seen`` (the
    identities of the records read so far, one 16-byte digest each), a record met before, in this part
    or another, is added to ``again``; with ``order``, the first record that stands before one read
    earlier from the same file and sheet is said there (the part is not in input order)."""
    count = 0
    last: dict[tuple[str, str], tuple[int, int]] = {}  # file and sheet: the line, the record's number
    for number, line in enumerate(results_lines(part.data), 1):  # numbered among the part's records
        data = line.record
        if data is None:
            problem = "not_json" if line.problem == "not_json" else "not_canonical"
            return count, Msg(f"ui.merge.problem.{problem}", part=part.name, number=number)
        count += 1
        if seen is not None:
            key = _identity(data)
            if key in seen:
                again.append(Again(part, number, key, _session(data)))
                continue  # said as doubled, not also as out of order
            seen.add(key)
        if order is not None and order.problem is None and (place := _place(data)) is not None:
            source, where = place
            before = last.get(source)
            order.compared = order.compared or before is not None
            if before is not None and where < before[0]:
                assert part.shard is not None
                order.problem = Msg(
                    "ui.merge.problem.out_of_order",
                    part=part.name,
                    label=part.shard.label,
                    number=number,
                    line=where,
                    file=source[0],
                    earlier=before[1],
                    earlier_line=before[0],
                )
                # one per part: the rest follow from it
            else:
                last[source] = (where, number)
    return count, None


class Again(NamedTuple):
    """A record met a second time: the part, its line among the part's records, its identity, its session id."""

    part: Part
    number: int
    key: bytes
    session: str


#: The records met twice said per part; the rest are counted in one line.
_SHOWN_AGAIN = 5


def _doubled(parts: list[Part], again: list[Again]) -> list[Msg]:
    """The problems of the records met twice: where each was met first (a second reading, only when there
    is one), and the input record whose place the second copy takes (a part holds its share in input order)."""
    wanted = {entry.key for entry in again}
    first: dict[bytes, tuple[Part, int]] = {}
    for part in parts:
        for number, line in enumerate(results_lines(part.data), 1):
            data = line.record  # a line that is no record is said as the part's problem
            if data is not None:
                key = _identity(data)
                if key in wanted:
                    first.setdefault(key, (part, number))
    problems: list[Msg] = []
    said: dict[int, int] = {}
    for entry in again:
        part, number = entry.part, entry.number
        assert part.shard is not None
        said[id(part)] = said.get(id(part), 0) + 1
        if said[id(part)] > _SHOWN_AGAIN:
            continue
        where_part, where = first[entry.key]
        place = (
            Msg("ui.merge.frag.place_here", where=where)
            if where_part is part
            else Msg("ui.merge.frag.place_other", where=where, other=where_part.name)
        )
        position = part.shard.index + (number - 1) * part.shard.count  # 1-based, the input's order
        lacks = Msg("ui.merge.frag.lacks", position=position) if position <= part.input_records else ""
        problems.append(
            Msg(
                "ui.merge.problem.doubled",
                part=part.name,
                label=part.shard.label,
                number=number,
                session=entry.session,
                place=place,
                lacks=lacks,
            )
        )
    for part in parts:
        more = said.get(id(part), 0) - _SHOWN_AGAIN
        if more > 0:
            problems.append(Msg("ui.merge.problem.more_doubled", part=part.name, more=more))
    return problems


def _session(record: RecordDict) -> str:
    return orjson.dumps(record.get("session_id")).decode()


def _check(parts: list[Part], order_unknown: list[bool]) -> list[Msg]:
    problems = [problem for part in parts if (problem := _read_shard(part)) is not None]
    if problems:
        return problems
    first = parts[0]
    assert first.shard is not None
    for part in parts[1:]:
        assert part.shard is not None
        if part.shard.count != first.shard.count:
            problems.append(
                Msg(
                    "ui.merge.problem.other_split",
                    part=part.name,
                    label=part.shard.label,
                    first=first.name,
                    first_label=first.shard.label,
                )
            )
        elif part.fingerprint != first.fingerprint or part.input_records != first.input_records:
            problems.append(
                Msg(
                    "ui.merge.problem.other_input",
                    part=part.name,
                    records=part.input_records,
                    first=first.name,
                    first_records=first.input_records,
                )
            )
    if problems:
        return problems
    count = first.shard.count
    by_index: dict[int, list[Part]] = {}
    for part in parts:
        assert part.shard is not None
        by_index.setdefault(part.shard.index, []).append(part)
    for index, same in sorted(by_index.items()):
        if len(same) > 1:
            names = ", ".join(p.name for p in same)
            problems.append(Msg("ui.merge.problem.given_twice", index=index, count=count, times=len(same), names=names))
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in by_index]
    if missing:
        problems.append(Msg("ui.merge.problem.missing_parts", missing=", ".join(missing), count=count))
    seen: set[bytes] = set()
    again: list[Again] = []
    orders: dict[int, Order] = {}
    for part in parts:
        assert part.shard is not None
        # a part given twice is said above: its records are not each said again
        check = seen if by_index[part.shard.index][0] is part else None
        order = orders[id(part)] = Order()
        actual, problem = _count(part, check, again, order)
        if problem is not None:
            problems.append(problem)
        elif actual != part.expected:
            assert part.shard is not None
            how = Msg("ui.merge.frag.missing" if actual < part.expected else "ui.merge.frag.doubled")
            problems.append(
                Msg(
                    "ui.merge.problem.wrong_count",
                    part=part.name,
                    label=part.shard.label,
                    actual=actual,
                    records=part.input_records,
                    expected=part.expected,
                    difference=abs(actual - part.expected),
                    how=how,
                )
            )
    # A part steps back while another holds its records in the order they were read: that part is out of
    # input order. When every part that could be checked steps back, the input itself is not in the order
    # its records were read (a sorted or assembled file): nothing can be checked, and merge says so.
    stepped = [order.problem for order in orders.values() if order.problem is not None]
    if any(order.compared and order.problem is None for order in orders.values()):
        problems += stepped
    elif stepped:
        order_unknown.append(True)
    if again:
        problems += _doubled([p for p in parts if p.shard is not None and by_index[p.shard.index][0] is p], again)
    return problems


def merge_parts(
    parts: Sequence[str | os.PathLike[str]], output: str | os.PathLike[str], *, command: str | None = None
) -> MergeOutcome:
    """Merge the parts into ``output`` in input order and write its run record beside it
    (``OUT.run.json``: the parts' records). Raises :class:`MergeError` (nothing written) when they do
    not make the whole input exactly once."""
    if not parts:
        raise MergeError([Msg("ui.merge.problem.no_parts")])
    resolved = [resolve_part(p) for p in parts]
    out = Path(output)
    for part in resolved:
        if part.data.exists() and out.exists() and part.data.resolve() == out.resolve():
            raise MergeError([Msg("ui.merge.problem.output_is_part", part=part.name)])
    order_unknown: list[bool] = []
    problems = _check(resolved, order_unknown)
    if problems:
        raise MergeError(problems)
    refuse_special(run_record_path(out))  # before OUT is written: a pipe there would stop it half done
    by_index = sorted(resolved, key=lambda p: p.shard.index if p.shard else 0)
    total = by_index[0].input_records
    readers = [results_lines(part.data) for part in by_index]
    count = len(readers)
    unchecked = 0
    with atomic_writer(out) as handle:
        for position in range(total):
            line = next(readers[position % count])
            if line.record is None or _place(line.record) is None:
                unchecked += 1
            handle.write(line.raw)
    run_record: RunRecord = {
        "formatkit_version": formatkit_version(),
        "merged": now_iso(),
        "command": command,
        "records": total,
        "input_fingerprint": by_index[0].fingerprint,
        "parts": [{"path": part.name, **(part.record or {})} for part in by_index],
    }
    first: RunRecord = by_index[0].record or {}
    for key in ("model", "base_url", "parameters", "judge"):
        values = [(part.record or {}).get(key) for part in by_index]
        if all(value == values[0] for value in values) and values[0] is not None:
            run_record[key] = first[key]  # present: values[0] is its value
    write_run_record(run_record_path(out), run_record)
    return MergeOutcome(out, total, by_index, run_record, unchecked, not order_unknown)
