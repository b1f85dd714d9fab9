"""#39: the xlsx report printed as 173 pages with p-values shown as ``9.799214E-17``. Every sheet the report
writes prints landscape, one page wide, the header row on every page; p-values show as people read them
and stay numbers. Read back with openpyxl from the written file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from typer.testing import CliRunner

from formatkit.cli import app

runner = CliRunner()


def _record(i: int, score: float, model: str) -> dict[str, Any]:
    answer = {"parameters": {}, "content": f"answer {i}", "model": model, "score": score, "analysis": "rule"}
    return {
        "session_id": i,
        "messages": [
            {"role": "user", "content": f"question {i}"},
            {"role": "assistant", "reference_response": "r", "responses": [answer]},
        ],
        "meta": {"dataset": "set"},
    }


def _report(tmp_path: Path) -> Path:
    scores = {"a": [1.0] * 120, "b": [0.0] * 120, "c": [float(i % 2) for i in range(120)]}
    paths = []
    for name, values in scores.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(_record(i, s, name)) + "\n" for i, s in enumerate(values)))
        paths.append(str(path))
    out = tmp_path / "r.xlsx"
    result = runner.invoke(app, ["report", *paths, "--format", "xlsx", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_every_sheet_prints_landscape_one_page_wide_with_its_header_on_every_page(tmp_path: Path) -> None:
    book = load_workbook(_report(tmp_path))
    assert len(book.worksheets) >= 5
    for ws in book.worksheets:
        assert ws.page_setup.orientation == "landscape", ws.title
        assert ws.sheet_properties.pageSetUpPr.fitToPage, ws.title
        assert (ws.page_setup.fitToWidth, ws.page_setup.fitToHeight) == (1, 0), ws.title
        assert ws.print_title_rows == "$1:$1", ws.title


def test_p_values_are_numbers_shown_with_four_decimals_or_below_0_0001(tmp_path: Path) -> None:
    ws = load_workbook(_report(tmp_path))["Pairs"]
    header = [cell.value for cell in ws[1]]
    p, adjusted = header.index("p"), header.index("p adjusted")
    cells = [
        row[column] for row in ws.iter_rows(min_row=2) for column in (p, adjusted) if row[column].value is not None
    ]
    assert cells
    for cell in cells:
        assert isinstance(cell.value, float)  # a number still: sorts and filters as one
        assert cell.number_format == '[<0.0001]"<0.0001";0.0000'
    assert any(cell.value < 0.0001 for cell in cells)  # a against b: the case that printed 9.799214E-17
    difference = header.index("difference")
    assert ws.cell(row=2, column=difference + 1).number_format == "0.00"  # the other columns as before
