"""Report arithmetic a reader can check (issue 19, item 7): records and responses are counted in columns
of their own (with n samples a record holds n responses), and every details table has one header per cell."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from formatkit.cli import app


def _response(score: float | None, model: str = "m") -> dict[str, Any]:
    response: dict[str, Any] = {"content": "x", "model": model, "score": score, "metric": "exact", "answer": "x"}
    if score is None:
        response["analysis"] = "unscorable"
    return response


def _record(sid: int, scores: list[float | None]) -> dict[str, Any]:
    return {
        "session_id": sid,
        "meta": {"dataset": "qa"},
        "messages": [
            {"role": "user", "content": f"q{sid}"},
            {"role": "assistant", "reference_response": "x", "responses": [_response(s) for s in scores]},
        ],
    }


def _results(tmp_path: Path) -> Path:
    """3 records × 3 samples: record 0 all scored, record 1 with one unscorable sample, record 2 none."""
    records = [_record(0, [1.0, 1.0, 0.0]), _record(1, [1.0, None, 0.0]), _record(2, [None, None, None])]
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _report(*args: str) -> str:
    result = CliRunner().invoke(app, ["report", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def _md_tables(text: str) -> list[list[list[str]]]:
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
            current.append([c.strip() for c in cells])
        elif current:
            tables.append(current)
            current = []
    return tables


def test_md_details_have_one_header_per_cell_and_separate_records_from_responses(tmp_path: Path) -> None:
    tables = _md_tables(_report(str(_results(tmp_path)), "--format", "md"))
    assert tables
    for table in tables:
        assert {len(row) for row in table} == {len(table[0])}, table[0]
    details = next(t for t in tables if "model" in t[0])
    row = dict(zip(details[0], details[2], strict=True))
    assert (row["records"], row["scored records"]) == ("3", "2")
    assert (row["responses"], row["unscorable responses"], row["void verdicts"]) == ("9", "4", "0")


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[int]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append(0)
        elif tag in ("td", "th") and self.tables and self.tables[-1]:
            self.tables[-1][-1] += 1


def test_html_tables_have_one_header_per_cell(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    _report(str(_results(tmp_path)), "--format", "html", "-o", str(out))
    parser = _Cells()
    parser.feed(out.read_text(encoding="utf-8"))
    tables = [t for t in parser.tables if t]
    assert tables
    for rows in tables:
        assert len(set(rows)) == 1, rows


def test_json_counts_records_and_responses_apart(tmp_path: Path) -> None:
    data = json.loads(_report(str(_results(tmp_path)), "--format", "json"))
    qa = data["datasets"]["qa"]
    assert (qa["void"], qa["small"]) == (0, True)
    assert (qa["records"], qa["scored_records"], qa["responses"], qa["scored_responses"], qa["errors"]) == (
        3,
        2,
        9,
        5,
        4,
    )


def test_score_summary_separates_records_from_responses(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["score", str(_results(tmp_path)), "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0, result.output
    head = next(line for line in result.stdout.splitlines() if "records" in line and "dataset" in line)
    assert "scored records" in head and "unscorable responses" in head
