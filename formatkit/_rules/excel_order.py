"""An exported sheet people sorted, filtered or trimmed: its rows back in the order ``export`` wrote them.

``formatkit export`` writes a ``row_key`` on every row: ``record.turn/turns``, each counted from 1
(``0012.2/3``: the second of the three turns of the twelfth record). A spreadsheet's Sort moves whole rows,
its filter hides them; neither changes a key. So a sheet with a ``row_key`` column is read in key order
whatever order its rows stand in, and records and turns come back as they were written: ``score`` of a
sorted sheet gives the unsorted sheet's result. What the keys show was deleted is said (``rows_missing``,
naming the keys): a whole record no longer in the sheet, or a conversation that lost turns (read without
them). Hidden rows (a filter) are read like every other row, and said (``hidden_rows``).

A key that is not one export writes, or that repeats another row's, is said once (``invalid_row_key``) and the
sheet is read in its own order, as a sheet without the column is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from formatkit._core.messages import Msg
from formatkit._rules.excel_rows import Row
from formatkit._rules.excel_sessions import Context
from formatkit._rules.results import ROW_KEY

__all__ = ["order_rows"]

_KEY = re.compile(r"\s*0*(\d+)\.0*(\d+)/(\d+)\s*")
#: How many keys or records a message names before "…".
_SHOWN = 8


@dataclass(frozen=True, slots=True)
class _Key:
    record: int
    turn: int
    turns: int


def _parse(value: object) -> _Key | None:
    match = _KEY.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return None
    key = _Key(int(match[1]), int(match[2]), int(match[3]))
    return key if key.record >= 1 and 1 <= key.turn <= key.turns else None


def _shown(items: list[str]) -> str:
    return ", ".join(items[:_SHOWN]) + (", …" if len(items) > _SHOWN else "")


def order_rows(rows: list[Row], ctx: Context) -> list[Row]:
    """``rows`` in ``row_key`` order, with what the keys show missing said; ``rows`` as they are when the
    sheet has no ``row_key`` column or a key cannot be used (said)."""
    if ctx.header.place(ROW_KEY) is None or not rows:
        return rows
    keyed: list[tuple[_Key, Row]] = []
    first: dict[tuple[int, int], Row] = {}
    turns: dict[int, int] = {}
    for row in rows:
        value = (row.results or {}).get(ROW_KEY)
        key = _parse(value)
        taken = first.get((key.record, key.turn)) if key is not None else None
        if key is None or taken is not None or turns.setdefault(key.record, key.turns) != key.turns:
            _unusable(row, value, taken, ctx)
            return rows
        first[(key.record, key.turn)] = row
        keyed.append((key, row))
    keyed.sort(key=lambda pair: (pair[0].record, pair[0].turn))
    _missing(keyed, turns, ctx)
    return [row for _, row in keyed]


def _unusable(row: Row, value: object, taken: Row | None, ctx: Context) -> None:
    shown = "" if value is None else str(value)
    message = (
        Msg("invalid_row_key.repeated", row=row.number, key=shown, first=taken.number)
        if taken is not None
        else Msg("invalid_row_key", row=row.number, key=shown)
    )
    ctx.sink.add("invalid_row_key", message, **ctx.place(row.number, ROW_KEY))


def _missing(keyed: list[tuple[_Key, Row]], turns: dict[int, int], ctx: Context) -> None:
    """One ``rows_missing`` for the records no row is left of, one per record that lost some turns."""
    present: dict[int, list[tuple[_Key, Row]]] = {}
    for key, row in keyed:
        present.setdefault(key.record, []).append((key, row))
    gone = [n for n in range(1, max(present) + 1) if n not in present]
    if gone:
        after = next((row for key, row in keyed if key.record > gone[0]), keyed[-1][1])
        ctx.sink.add(
            "rows_missing",
            Msg("rows_missing", count=len(gone), records=_shown([str(n) for n in gone])),
            **ctx.place(after.number, ROW_KEY),
        )
    for record, members in present.items():
        have = {key.turn for key, _ in members}
        lost = [t for t in range(1, turns[record] + 1) if t not in have]
        if lost:
            ctx.sink.add(
                "rows_missing",
                Msg(
                    "rows_missing.turns",
                    record=record,
                    count=len(lost),
                    turns=turns[record],
                    lost=_shown([str(t) for t in lost]),
                    rows=", ".join(str(row.number) for _, row in members),
                ),
                **ctx.place(members[0][1].number, ROW_KEY),
            )
