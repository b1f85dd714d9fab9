"""Excel rows → records: single- or multi-turn detection, the session rules, and one Draft per record.

A file is multi-turn when a ``session_id`` repeats (docs/pages/reference/formats.md). One refinement: when
every row sharing an id carries its own reference answer, those rows read as separate records that share an id
by mistake (``duplicate_session_id``), not as one conversation — a multi-turn session keeps its reference on
its last row only.

A sheet with a ``dataset`` column (what ``export`` writes for results of several sets) numbers its sessions
per dataset: a session is the rows sharing ``dataset`` and ``session_id``, so two sets that each count
from 0 stay apart (a row with an empty dataset cell belongs to the next row of its id that names one).
A sheet without that column keys sessions by ``session_id`` alone, as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from formatkit._core.draft import Draft, Place
from formatkit._core.issues import Format, IssueSink
from formatkit._core.messages import Msg
from formatkit._core.record import MessageDict
from formatkit._rules.excel_header import Header
from formatkit._rules.excel_rows import Row
from formatkit._rules.parameters import parse_parameters

__all__ = ["Context", "SessionKey", "group_rows", "make_draft", "row_datasets", "session_key"]


@dataclass(slots=True)
class Context:
    """Where the rows come from, for places and the record's source."""

    file: str
    dataset: str
    sheet: str
    header: Header
    sink: IssueSink
    #: Column labels of the target turn's cells (reference, response, parameters); None when absent.
    target_labels: tuple[str | None, str | None, str | None] = field(init=False)

    def __post_init__(self) -> None:
        place = self.header.place
        self.target_labels = (place("reference_response"), place("response"), place("parameters"))

    def place(self, row: int, column: str | None = None) -> Place:
        label = self.header.place(column) if column else None
        if label is None:
            return {"sheet": self.sheet, "row": row}
        return {"sheet": self.sheet, "row": row, "column": label}


#: A session's identity: the row's ``dataset`` (None without one) and its integer ``session_id``.
SessionKey = tuple[str | None, int]


def _dataset_cell(row: Row) -> str | None:
    value = row.results.get("dataset") if row.results else None
    if value is None:
        return None
    return (f"{value:g}" if isinstance(value, float) else str(value)).strip() or None


def row_datasets(rows: list[Row]) -> dict[int, str | None]:
    """Each row's dataset, by row number. A row without one takes the dataset of the next row of its
    session_id that has one (a sheet that names the dataset on a session's last row only, as export did
    before it wrote every row, keeps its sessions whole)."""
    out: dict[int, str | None] = {}
    waiting: dict[Any, list[Row]] = {}
    for row in rows:
        dataset = _dataset_cell(row)
        out[row.number] = dataset
        if type(row.sid) is not int:
            continue
        if dataset is None:
            waiting.setdefault(row.sid, []).append(row)
        else:
            for earlier in waiting.pop(row.sid, []):
                out[earlier.number] = dataset
    return out


def session_key(row: Row, datasets: dict[int, str | None]) -> SessionKey:
    """(dataset, session_id) of a row whose session_id is an integer."""
    return datasets.get(row.number), row.sid


def _named(key: SessionKey) -> str:
    dataset, sid = key
    return str(sid) if dataset is None else f"{sid} (dataset {dataset})"


def _blank(text: str | None) -> bool:
    return text is None or not text or text.isspace()


def _rows_text(rows: list[Row], shown: int = 6) -> str:
    numbers = [str(r.number) for r in rows[:shown]]
    return ", ".join(numbers) + (", ..." if len(rows) > shown else "")


def group_rows(rows: list[Row], ctx: Context) -> tuple[Format, list[list[Row]], list[Row]]:
    """Decide the file's format and split its rows into records, in sheet order of their first row.

    Also returns the orphans: rows of a multi-turn file without a session_id. They are reported, and
    belong to no record (which conversation they continue is anyone's guess).
    """
    ids = [row.sid for row in rows if type(row.sid) is int]
    if len(set(ids)) == len(ids):
        # No integer id repeats, so no two rows share a (dataset, session_id) key whatever their datasets:
        # no duplicates, no sessions (the common single-turn sheet skips building the keys).
        return "excel-single-turn", [[row] for row in rows], []
    datasets = row_datasets(rows)
    by_id: dict[SessionKey, list[Row]] = {}
    for row in rows:
        if type(row.sid) is int:
            by_id.setdefault(session_key(row, datasets), []).append(row)
    duplicates: set[SessionKey] = set()
    sessions: set[SessionKey] = set()
    for key, members in by_id.items():
        if len(members) > 1:
            if all(not _blank(r.reference) for r in members):
                duplicates.add(key)
            else:
                sessions.add(key)
    for key in sorted(duplicates, key=lambda k: by_id[k][0].number):
        _report_duplicates(key, by_id[key], ctx)
    if not sessions:
        return "excel-single-turn", [[row] for row in rows], []

    without = [row for row in rows if row.sid is None]
    if without:
        _report_missing_ids(without, sessions, by_id, ctx)
    groups: list[list[Row]] = []
    open_groups: dict[SessionKey, list[Row]] = {}
    for row in rows:
        sid = row.sid
        if sid is None:
            continue
        key = session_key(row, datasets)
        if type(sid) is int and key in sessions:
            group = open_groups.get(key)
            if group is None:
                group = open_groups[key] = []
                groups.append(group)
            group.append(row)
        else:
            groups.append([row])
    _check_consecutive(rows, sessions, datasets, ctx)
    return "excel-multi-turn", groups, without


def _report_duplicates(key: SessionKey, members: list[Row], ctx: Context) -> None:
    for row in members[1:]:
        ctx.sink.add(
            "duplicate_session_id",
            Msg("duplicate_session_id", sid=_named(key), first=members[0].number),
            **ctx.place(row.number, "session_id"),
        )


def _report_missing_ids(
    without: list[Row], sessions: set[SessionKey], by_id: dict[SessionKey, list[Row]], ctx: Context
) -> None:
    example = min(sessions, key=lambda s: by_id[s][0].number)
    ctx.sink.add(
        "mixed_session_ids",
        Msg(
            "mixed_session_ids",
            sid=_named(example),
            rows=_rows_text(by_id[example]),
            count=len(without),
            without=_rows_text(without),
        ),
        **ctx.place(without[0].number, "session_id"),
    )
    for row in without:
        ctx.sink.add(
            "missing_session_id",
            Msg("missing_session_id", row=row.number),
            **ctx.place(row.number, "session_id"),
        )


def _check_consecutive(
    rows: list[Row], sessions: set[SessionKey], datasets: dict[int, str | None], ctx: Context
) -> None:
    """One warning per session whose rows other rows separate, at its first row, naming all its rows: it
    is the cause of what the session rules then say about those rows (a single-turn set whose ids repeat
    by mistake reads as conversations, and every earlier reference is "misplaced"), so it comes first."""
    last_position: dict[SessionKey, int] = {}
    scattered: dict[SessionKey, None] = {}
    members: dict[SessionKey, list[Row]] = {}
    placed = [row for row in rows if row.sid is not None]  # rows without an id are reported already
    for position, row in enumerate(placed):
        key = session_key(row, datasets)
        if type(row.sid) is not int or key not in sessions:
            continue
        members.setdefault(key, []).append(row)
        before = last_position.get(key)
        if before is not None and before != position - 1:
            scattered[key] = None
        last_position[key] = position
    for key in scattered:
        group = members[key]
        ctx.sink.add(
            "session_not_consecutive",
            Msg("session_not_consecutive", sid=_named(key), count=len(group), rows=_rows_text(group, 12)),
            **ctx.place(group[0].number, "session_id"),
        )


def make_draft(group: list[Row], fmt: Format, ctx: Context) -> Draft:
    """One record: history from the earlier rows, the target turn from the last row."""
    first = group[0]
    last = group[-1]
    system = first.system
    history: list[MessageDict] = [{"role": "system", "content": system}] if system and not system.isspace() else []
    if len(group) > 1:
        _session_rules(group, ctx)
        for row in group[:-1]:
            history.append({"role": "user", "content": row.query or ""})
            response = row.response
            if response is None or _blank(response):
                history.append({"role": "assistant"})
            else:
                history.append({"role": "assistant", "content": response})
        numbers = [row.number for row in group]
    else:
        numbers = [last.number]
    history.append({"role": "user", "content": last.query or ""})
    sid = last.sid
    number = last.number
    sheet = ctx.sheet
    reference_label, response_label, parameters_label = ctx.target_labels
    raw: dict[str, float | int] = {}
    for row in group:
        if row.raw:
            raw.update(row.raw)
    return Draft(
        session_id=sid if type(sid) is int else None,
        history=history,
        reference=last.reference,
        reference_place={"sheet": sheet, "row": number, "column": reference_label},
        response=last.response,
        response_place={"sheet": sheet, "row": number, "column": response_label},
        parameters=last.parameters,
        parameters_place={"sheet": sheet, "row": number, "column": parameters_label},
        source={"file": ctx.file, "format": fmt, "sheet": sheet, "rows": numbers, "dataset": ctx.dataset},
        results={name: (value, ctx.place(number, name)) for name, value in last.results.items()}
        if last.results
        else None,
        meta={"raw_values": raw} if raw else None,
    )


def _session_rules(group: list[Row], ctx: Context) -> None:
    first, last = group[0], group[-1]
    system = None if _blank(first.system) else (first.system or "").strip()
    sink = ctx.sink
    differing = [row for row in group[1:] if (None if _blank(row.system) else (row.system or "").strip()) != system]
    if differing:
        # One issue per session, naming its rows: a prompt written only on the first row is one mistake.
        numbers = ", ".join(str(row.number) for row in differing[:12]) + (" …" if len(differing) > 12 else "")
        empty = system is not None and all(_blank(row.system) for row in differing)
        message = (
            Msg("system_prompt_mismatch", first=first.number, rows=numbers)
            if empty
            else Msg(
                "system_prompt_mismatch.differs",
                rows=numbers,
                first=first.number,
                found=_describe(None if _blank(differing[0].system) else differing[0].system),
                expected=_describe(system),
            )
        )
        sink.add(
            "system_prompt_mismatch",
            message,
            **ctx.place(differing[0].number, "system_prompt"),
        )
    for row in group[:-1]:
        if not _blank(row.reference):
            sink.add(
                "misplaced_reference",
                Msg("misplaced_reference", row=row.number, last=last.number),
                **ctx.place(row.number, "reference_response"),
            )
        if not _blank(row.parameters) and not _same_parameters(row.parameters, last.parameters):
            sink.add(
                "parameters_mismatch",
                Msg("parameters_mismatch", row=row.number, last=last.number),
                **ctx.place(row.number, "parameters"),
            )


def _same_parameters(earlier: str | None, last: str | None) -> bool:
    if _blank(last):
        return False
    if (earlier or "").strip() == (last or "").strip():
        return True
    a, b = parse_parameters(earlier or ""), parse_parameters(last or "")
    return a is not None and a == b


def _describe(text: str | None) -> Msg | str:
    if text is None:
        return Msg("frag.empty")
    return f'"{text[:30]}…"' if len(text) > 30 else f'"{text}"'
