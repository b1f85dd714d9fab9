"""Row 1 of an Excel sheet: which column is which, with the header rules of docs/pages/reference/formats.md.

A header that matches a known column after trimming, case-folding, dropping spaces and underscores
(``System Prompt``) or reading its cell's first line (``query`` over ``(问题)``) is a warning; an alias (``system``,
``prompt``, ``answer``) is a warning; an unknown header is an error with a "did you mean"; a duplicated
header is an error; a column that holds data but has no header is an error; a missing required column
is an error, reported once for the file.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from formatkit._core.draft import Place
from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.modes import Mode
from formatkit._core.suggest import did_you_mean_later
from formatkit._reading.cells import CellError, NoValue, column_letter
from formatkit._rules.results import RESULT_FIELDS, result_column

__all__ = [
    "ALIASES",
    "CHINESE_NAMES",
    "COLUMNS",
    "HEADER_SEARCH_ROWS",
    "Header",
    "HeaderMatch",
    "header_name",
    "header_names",
    "header_row",
    "names_a_column",
    "read_header",
]

COLUMNS = ("session_id", "system_prompt", "query", "reference_response", "parameters", "response")
#: Accepted aliases from the seed's common field table.
ALIASES = {"system": "system_prompt", "prompt": "query", "answer": "reference_response"}
#: Header names users type in Chinese, and the column each one means (suggested, never accepted silently;
#: ``formatkit fix`` renames them). Seed 001's own words for the columns are among them (对话标识符,
#: 系统提示, 用户提示, 参考回复, 推理参数, 模型回答).
CHINESE_NAMES = {
    "对话标识符": "session_id",
    "对话id": "session_id",
    "会话id": "session_id",
    "对话编号": "session_id",
    "会话编号": "session_id",
    "编号": "session_id",
    "序号": "session_id",
    "系统提示": "system_prompt",
    "系统提示词": "system_prompt",
    "系统": "system_prompt",
    "人设": "system_prompt",
    "问题": "query",
    "提问": "query",
    "输入": "query",
    "用户输入": "query",
    "题目": "query",
    "用户提示": "query",
    "用户问题": "query",
    "参考答案": "reference_response",
    "标准答案": "reference_response",
    "答案": "reference_response",
    "正确答案": "reference_response",
    "参考回复": "reference_response",
    "参数": "parameters",
    "推理参数": "parameters",
    "回答": "response",
    "回复": "response",
    "模型回答": "response",
    "模型回复": "response",
    "输出": "response",
    "模型输出": "response",
}


@dataclass(slots=True)
class Header:
    """Where each known column is (0-based index) and how to name any column in an Issue."""

    index: dict[str, int] = field(default_factory=dict)
    labels: list[str] = field(default_factory=list)
    #: Required columns that are absent (already reported): records cannot be built.
    missing: list[str] = field(default_factory=list)

    def label(self, column: int) -> str:
        return self.labels[column] if column < len(self.labels) else column_letter(column)

    def place(self, name: str) -> str | None:
        """The issue label of a known column, or None when the sheet lacks it."""
        index = self.index.get(name)
        return None if index is None else self.labels[index]


def read_header(
    cells: Sequence[Any],
    has_data: Sequence[bool],
    *,
    sheet: str,
    mode: Mode,
    sink: IssueSink,
    below: Sequence[Sequence[Any]] = (),
) -> Header:
    """Map row 1 onto the known columns; ``has_data[j]`` tells whether column j holds any data.

    ``below`` holds the next few rows: when row 1 lacks a required column and one of them names it (a
    title row above the table is common), the missing-column error says which row to move up."""
    header = Header()
    width = max(len(cells), len(has_data))
    for j in range(width):
        raw = cells[j] if j < len(cells) else ""
        text = _header_text(raw)
        letter = column_letter(j)
        shown = text.strip()
        header.labels.append(f"{letter} ({shown})" if shown else letter)
        place: Place = {"sheet": sheet, "row": 1, "column": header.labels[j]}
        if not shown:
            if j < len(has_data) and has_data[j]:
                sink.add(
                    "missing_header",
                    Msg("missing_header", letter=letter, columns=", ".join(COLUMNS)),
                    **place,
                )
            continue
        name = _known_name(text, j, place, sink)
        if name is None:
            continue
        if name in header.index:
            first = header.labels[header.index[name]]
            sink.add(
                "duplicate_column",
                Msg("duplicate_column", letter=letter, name=name, first=first),
                **place,
            )
            continue
        header.index[name] = j
    _check_required(header, mode, sheet, sink, _header_below(below))
    return header


def names_a_column(cells: Sequence[Any]) -> bool:
    """Whether a row names any column of an evaluation set (exactly, as an alias, in Chinese, or an output
    column): a first row that names none (an instruction sheet's "请在“数据”工作表中填写") is no header."""
    return any(header_name(text) is not None for text in map(_header_text, cells) if text.strip())


#: How many rows from the top a header is looked for under title and note rows.
HEADER_SEARCH_ROWS = 10


def header_names(cells: Sequence[Any]) -> list[str]:
    """The known columns a row names (through :func:`header_name`), each once, in order."""
    names: list[str] = []
    for text in map(_header_text, cells):
        if text.strip() and (found := header_name(text)) is not None and found[0] not in names:
            names.append(found[0])
    return names


def _is_header(cells: Sequence[Any]) -> bool:
    names = header_names(cells)
    return "query" in names or len(names) >= 2


def header_row(rows: Sequence[Sequence[Any]]) -> int | None:
    """The 0-based index of the header row when row 1 is not one and a row below it within the first
    :data:`HEADER_SEARCH_ROWS` is (a title or note row above the table); None otherwise. A header names
    the query column or two known columns; both ``validate`` and ``formatkit fix`` read it here."""
    if not rows or _is_header(rows[0]):
        return None
    for index in range(1, min(len(rows), HEADER_SEARCH_ROWS)):
        if _is_header(rows[index]):
            return index
    return None


def _header_below(rows: Sequence[Sequence[Any]]) -> Msg | str:
    """A hint naming the first row under row 1 that is a header by the test :func:`header_row` uses (it
    names the query column or two known columns), or "": one test of what a header is, for both."""
    for offset, row in enumerate(rows, start=2):
        if _is_header(row):
            shown = ", ".join(f'"{n}"' for n in header_names(row))
            return Msg("frag.header_below", row=offset, names=shown)
    return ""


def _header_text(raw: Any) -> str:
    if raw is None:
        return ""
    if isinstance(raw, float):
        return f"{raw:g}"
    if isinstance(raw, CellError):
        return raw.text
    if isinstance(raw, NoValue):
        return "="
    return str(raw)


#: How a header cell names a known column: exactly; as an output column; after trimming, case-folding or
#: NFKC (a warning); through an alias (a warning); in Chinese (an error that suggests the name).
HeaderMatch = Literal["exact", "output", "normalized", "alias", "chinese"]


def header_name(text: str) -> tuple[str, HeaderMatch] | None:
    """The known column a header text names, and how; None when it names none. The header rules and
    ``formatkit fix`` (which renames the header) both read the columns through this one function."""
    if text in COLUMNS:
        return text, "exact"
    output = None if text.strip().casefold() in ALIASES else result_column(text)
    if output is not None:  # a known output column (score, analysis, usage, model, …): formatkit._rules.results
        return output, "output"
    # NFKC first: a header typed with a Chinese input method comes out full-width (ｑｕｅｒｙ), and a
    # copied one may carry no-break spaces; both name the column once normalised, like a case slip.
    folded = unicodedata.normalize("NFKC", text).strip().casefold()
    if folded in COLUMNS:
        return folded, "normalized"
    if folded in ALIASES:
        return ALIASES[folded], "alias"
    meant = CHINESE_NAMES.get(folded.replace(" ", ""))
    if meant is not None:
        return meant, "chinese"
    # Spaces, underscores and line breaks are how a template spells a column (System Prompt, Reference
    # Response, session id): without them it is the column's own name.
    squeezed = _SQUEEZED.get(_SQUEEZE.sub("", folded))
    if squeezed is not None:
        return squeezed, "normalized"
    if "\n" in folded or "\r" in folded:
        return _first_line_name(folded)
    return None


#: Each column's name without its underscores (systemprompt → system_prompt).
_SQUEEZED = {name.replace("_", ""): name for name in COLUMNS}
_SQUEEZE = re.compile(r"[\s_]+")


def _first_line_name(folded: str) -> tuple[str, HeaderMatch] | None:
    """A header of several lines (``query`` over a gloss ``(问题)``) names the column its first line names:
    a column's name there is a normalised header, an alias an alias, a Chinese name a Chinese one."""
    for line in folded.splitlines():
        if not line.strip():
            continue
        found = header_name(line)
        if found is None or found[1] == "output":
            return None
        return (found[0], "normalized") if found[1] == "exact" else found
    return None


def _known_name(text: str, j: int, place: Place, sink: IssueSink) -> str | None:
    """The known column a header names, reporting warnings and errors; None for an unknown header."""
    found = header_name(text)
    if found is not None and found[1] in ("exact", "output"):
        return found[0]
    name = None if found is None or found[1] == "chinese" else found[0]
    if name is None:
        meant = found[0] if found is not None else None
        known = [*COLUMNS, *ALIASES, *RESULT_FIELDS[1:6], "endpoint_id"]
        hint = Msg("frag.did_you_mean", name=meant) if meant else did_you_mean_later(text, known)
        sink.add(
            "unknown_column",
            Msg("unknown_column", name=text.strip(), hint=hint),
            **place,
        )
        return None
    if found is not None and found[1] == "alias":
        sink.add(
            "alias_column",
            Msg("alias_column", text=text.strip(), name=name),
            **place,
        )
    else:
        sink.add(
            "header_not_normalized",
            Msg("header_not_normalized", text=text, name=name),
            **place,
        )
    return name


def _check_required(header: Header, mode: Mode, sheet: str, sink: IssueSink, hint: Msg | str = "") -> None:
    known: Msg | str = ", ".join(f'"{n}"' for n in header.index) or Msg("frag.none")
    needed = ["query"]
    if mode != "infer-only":
        needed.append("reference_response")
    if mode == "scored":
        needed.append("response")
    for name in needed:
        if name in header.index:
            continue
        header.missing.append(name)
        sink.add(
            "missing_column",
            Msg("missing_column", name=name, why=Msg(f"frag.why.{name}", mode=mode), known=known, hint=hint),
            sheet=sheet,
            row=1,
        )
