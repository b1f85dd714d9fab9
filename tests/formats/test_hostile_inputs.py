"""Hostile and careless inputs (issue 14): each is generated here by a few lines of code, never stored.

Every case asserts the exit code, a located issue and no traceback; the ones about resources measure
peak memory in a subprocess (never wall-clock time).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest
from fuzz import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sigterm import terminate_while_writing
from typer.testing import CliRunner

from formatkit._api.validate import validate_file
from formatkit._reading.numfmt import render
from formatkit._reading.xlsx_scan import _exact, scan_sheet
from formatkit.cli import app

runner = CliRunner()

# --- a tiny .xlsx writer: raw sheet XML, chosen number formats and workbook settings ------------------

_NS = (
    'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
)
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def xlsx(path: Path, sheet_data: str, *, formats: tuple[str, ...] = (), calc: str = "", after: str = "") -> Path:
    """A one-sheet workbook; style ``i + 1`` shows numbers with ``formats[i]``."""
    num_fmts = "".join(
        f'<numFmt numFmtId="{164 + i}" formatCode="{escape(f, {chr(34): "&quot;"})}"/>' for i, f in enumerate(formats)
    )
    xfs = '<xf numFmtId="0"/>' + "".join(
        f'<xf numFmtId="{164 + i}" applyNumberFormat="1"/>' for i in range(len(formats))
    )
    parts = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        'content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
        "_rels/.rels": f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook {_NS}><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets>'
        f"{calc}</workbook>",
        "xl/_rels/workbook.xml.rels": '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
        f'relationships"><Relationship Id="rId1" Type="{_REL}/worksheet" Target="worksheets/sheet1.xml"/>'
        f'<Relationship Id="rId2" Type="{_REL}/styles" Target="styles.xml"/></Relationships>',
        "xl/styles.xml": '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f'<numFmts count="{len(formats)}">{num_fmts}</numFmts><cellXfs count="{len(formats) + 1}">{xfs}</cellXfs>'
        "</styleSheet>",
        "xl/worksheets/sheet1.xml": f"<worksheet {_NS}><sheetData>{sheet_data}</sheetData>{after}</worksheet>",
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in parts.items():
            archive.writestr(name, body)
    return path


def text(ref: str, value: str) -> str:
    return f'<c r="{ref}" t="inlineStr"><is><t>{escape(value)}</t></is></c>'


HEADER = '<row r="1">' + text("A1", "query") + text("B1", "reference_response") + "</row>"


def one_row(reference_cell: str) -> str:
    return HEADER + '<row r="2">' + text("A2", "1+1") + reference_cell + "</row>"


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    output = result.output
    assert "Traceback" not in output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, output


def codes(path: Path, **kwargs: Any) -> dict[str, list[dict[str, Any]]]:
    report = validate_file(path, **kwargs)
    found: dict[str, list[dict[str, Any]]] = {}
    for issue in report.issues:
        found.setdefault(issue.code, []).append(issue.model_dump(exclude_none=True))
    return found


def peak_mib(*args: str) -> tuple[int, float, str]:
    """Run the CLI in a fresh interpreter; its exit code, peak RSS in MiB and output."""
    code = (
        "import sys\n"
        "from formatkit.cli import app\n"
        "try:\n"
        f"    app({list(args)!r})\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        # VmHWM starts afresh at exec; ru_maxrss keeps the peak of the process it was forked from (pytest,
        # hundreds of MiB late in a long run), so it would measure the test runner, not formatkit.
        "peak = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')) / 1024\n"
        "print(f'PEAK {peak:.0f}', file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False)
    err = done.stderr
    assert "Traceback" not in err and "Traceback" not in done.stdout, err[-2000:]
    peak = float(err.rsplit("PEAK ", 1)[1].split()[0])
    return done.returncode, peak, done.stdout + err


# --- crashes: the grid bound under every spelling ----------------------------------------------------

FAR_CELLS = [
    ("single_quotes", "<row r='1048576'><c r='XFD1048576'><v>1</v></c></row>"),
    ("spaces_around_equals", '<row r = "1048576"><c r = "XFD1048576"><v>1</v></c></row>'),
    ("character_reference", '<row r="1048576"><c r="&#88;FD1048576"><v>1</v></c></row>'),
    ("attribute_not_first", '<row r="1048576"><c t="n" r="XFD1048576"><v>1</v></c></row>'),
    ("lower_case", '<row r="1048576"><c r="xfd1048576"><v>1</v></c></row>'),
    ("no_r_far_row", '<row r="1048576">' + "<c><v>1</v></c>" * 2000 + "</row>"),
    ("cell_ref_beyond_its_row", '<row r="3"><c r="ZZ1000000"><v>1</v></c></row>'),
]


@pytest.mark.parametrize(("spelling", "cells"), FAR_CELLS, ids=[c[0] for c in FAR_CELLS])
def test_far_cell_under_any_spelling_is_refused_in_bounded_memory(tmp_path: Path, spelling: str, cells: str) -> None:
    path = xlsx(tmp_path / f"{spelling}.xlsx", HEADER + cells)
    assert path.stat().st_size < 20_000
    status, peak, output = peak_mib("validate", str(path))
    assert status == 1
    assert "[unreadable_file]" in output and "stray cells" in output
    assert peak < 300


def test_prefixed_tags_are_measured_exactly(tmp_path: Path) -> None:
    sheet = (
        '<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>query</x:t></x:is></x:c></x:row>'
        '<x:row r="1048576"><x:c r="XFD1048576"><x:v>1</x:v></x:c></x:row>'
    )
    path = tmp_path / "prefixed.xlsx"
    xlsx(path, "")
    with zipfile.ZipFile(path) as archive:
        scan = scan_sheet(archive, "xl/worksheets/sheet1.xml")
    assert (scan.rows, scan.cols) == (0, 0)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(
            "xl/worksheets/sheet2.xml",
            f'<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>{sheet}'
            "</x:sheetData></x:worksheet>",
        )
    with zipfile.ZipFile(path) as archive:
        scan = scan_sheet(archive, "xl/worksheets/sheet2.xml")
    assert (scan.rows, scan.cols) == (1_048_576, 16_384)


def test_a_sparse_grid_of_a_few_cells_is_refused_but_a_dense_one_is_read(tmp_path: Path) -> None:
    sparse = xlsx(
        tmp_path / "sparse.xlsx", one_row(text("B2", "2")) + '<row r="60000"><c r="AZ60000"><v>1</v></c></row>'
    )
    assert "unreadable_file" in codes(sparse)
    dense_rows = "".join(f'<row r="{r}">' + text(f"A{r}", "q") + text(f"B{r}", "a") + "</row>" for r in range(2, 400))
    dense = xlsx(tmp_path / "dense.xlsx", HEADER + dense_rows)
    assert codes(dense, profile="none") == {}


# --- silent alteration: numbers as Excel shows them ------------------------------------------------------

SHOWN = [
    ("0.00", "3.14159", "3.14"),
    ("0%", "0.5", "50%"),
    ("#,##0", "1234567", "1,234,567"),
    ("0.00E+00", "1E-07", "1.00E-07"),
    ('"¥"#,##0', "18", "¥18"),
    ("# ?/?", "0.5", "1/2"),
    ("[$¥-804]#,##0.00", "18", "¥18.00"),
    ('0.0,,"M"', "12345678", "12.3M"),
    ("000", "7", "007"),
]


@pytest.mark.parametrize(("fmt", "stored", "shown"), SHOWN, ids=[s[0] for s in SHOWN])
def test_a_number_converts_to_the_text_excel_shows(tmp_path: Path, fmt: str, stored: str, shown: str) -> None:
    path = xlsx(tmp_path / "n.xlsx", one_row(f'<c r="B2" s="1"><v>{stored}</v></c>'), formats=(fmt,))
    out = tmp_path / "out.jsonl"
    status, output = cli("convert", str(path), "-o", str(out))
    assert status == 0, output
    assert "[number_format]" in output or "number_format" in output
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["messages"][-1]["reference_response"] == shown
    assert record["meta"]["raw_values"] == {"B2": json.loads(stored)}


def test_general_and_text_formats_change_nothing(tmp_path: Path) -> None:
    path = xlsx(tmp_path / "g.xlsx", one_row('<c r="B2" s="1"><v>2.5</v></c>'), formats=("@",))
    assert codes(path) == {}


@pytest.mark.parametrize(
    ("fmt", "value", "shown"),
    [
        ("0.00", 1.005, "1.01"),
        ("0.00", -0.001, "0.00"),
        ("#,##0.00_);(#,##0.00)", -5, "(5.00)"),
        ("0.0%", -0.5, "-50.0%"),
    ],
)
def test_rendering_follows_excel_rounding_and_sections(fmt: str, value: float, shown: str) -> None:
    assert render(value, fmt) == shown


def test_stale_formula_value_is_an_error_on_its_cell(tmp_path: Path) -> None:
    path = xlsx(
        tmp_path / "stale.xlsx",
        one_row('<c r="B2" t="str"><f>"="&amp;"1+1"</f><v>0</v></c>'),
        calc='<calcPr fullCalcOnLoad="1"/>',
    )
    found = codes(path)
    assert found["stale_formula_value"][0]["row"] == 2
    assert found["stale_formula_value"][0]["column"] == "B (reference_response)"


def test_hidden_and_filtered_rows_are_named(tmp_path: Path) -> None:
    rows = "".join(
        f'<row r="{r}"{" hidden=" + chr(34) + "1" + chr(34) if r in (3, 4, 7) else ""}>'
        + text(f"A{r}", "q")
        + text(f"B{r}", "a")
        + "</row>"
        for r in range(2, 9)
    )
    path = xlsx(tmp_path / "h.xlsx", HEADER + rows, after='<autoFilter ref="A1:B8"/>')
    issue = codes(path)["hidden_rows"][0]
    assert issue["row"] == 3
    assert "3-4, 7" in issue["message"] and "filtered" in issue["message"]


# --- unbounded work --------------------------------------------------------------------------------------


def test_one_merged_range_listed_thousands_of_times_is_one_issue(tmp_path: Path) -> None:
    rows = "".join(f'<row r="{r}">' + text(f"A{r}", "q") + text(f"B{r}", "a") + "</row>" for r in range(2, 300))
    merges = '<mergeCells count="5000">' + '<mergeCell ref="A2:B299"/>' * 5000 + "</mergeCells>"
    path = xlsx(tmp_path / "m.xlsx", HEADER + rows, after=merges)
    assert len(codes(path, profile="none")["merged_cells"]) == 1


def test_issues_are_counted_but_memory_stays_bounded(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b'{"prompt": "a", "answer": "b"}\n' + b"\n" * 300_000 + b'{"prompt": "a", "answer": "b"}\n')
    report = validate_file(path, profile="none")
    assert report.counts == {"blank_line": 300_000}
    assert report.warnings == 300_000
    assert len(report.issues) <= 1000 and report.omitted == 300_000 - len(report.issues)
    status, peak, _ = peak_mib("validate", "--profile", "none", "--json", str(path))
    assert status == 0
    assert peak < 200


def test_reading_stops_once_the_platform_limit_is_decided(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    path.write_bytes(b'{"prompt": "a", "answer": "b"}\n' * 1500 + b"{broken\n" * 500)
    report = validate_file(path)
    assert report.records == 1000
    assert [i.code for i in report.issues] == ["too_many_rows"]
    assert report.issues[0].line == 1001


# --- lone surrogates, huge integers, mixed ids, terminal escapes ---------------------------------------------


@pytest.mark.parametrize("command", ["validate", "validate --json", "convert"])
@pytest.mark.parametrize(
    "line",
    ['{"prompt": "a\\ud800", "answer": "b"}', '{"prompt": "a", "answer": "b", "\\udfff": 1}'],
    ids=["value", "key"],
)
def test_lone_surrogate_is_one_located_verdict_everywhere(tmp_path: Path, command: str, line: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    args = command.split() + [str(path)] + (["-o", str(tmp_path / "o.jsonl")] if command == "convert" else [])
    status, output = cli(*args)
    assert status == 1
    assert "lone_surrogate" in output
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize("number", [2**63, 2**200, -(2**63) - 1])
def test_integers_beyond_64_bits_are_refused(tmp_path: Path, number: int) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text('{"prompt": "a", "answer": "b", "parameters": {"seed": ' + str(number) + "}}\n", encoding="utf-8")
    found = codes(path)
    assert found["number_too_large"][0]["field"] == "parameters.seed"


def test_huge_seed_in_an_excel_parameters_cell_is_out_of_range(tmp_path: Path) -> None:
    header = (
        '<row r="1">' + text("A1", "query") + text("B1", "reference_response") + text("C1", "parameters") + "</row>"
    )
    row = '<row r="2">' + text("A2", "q") + text("B2", "a") + text("C2", '{"seed": ' + str(2**200) + "}") + "</row>"
    path = xlsx(tmp_path / "p.xlsx", header + row)
    status, output = cli("convert", str(path), "-o", str(tmp_path / "o.jsonl"))
    assert status == 1 and "parameter_out_of_range" in output


def test_lines_with_and_without_session_id_cannot_share_an_id(tmp_path: Path) -> None:
    path = tmp_path / "ids.jsonl"
    message = '"messages": [{"role": "user", "content": "a"}], "answer": "b"'
    path.write_text(f'{{{message}}}\n{{"session_id": 0, {message}}}\n', encoding="utf-8")
    assert codes(path)["mixed_session_ids"][0]["line"] == 2


def test_terminal_escapes_are_printed_escaped(tmp_path: Path) -> None:
    path = tmp_path / "esc.jsonl"
    path.write_text('{"prompt": "a", "answer": "b", "\\u001b[2J\\u001b[32mok (0 errors)": 1}\n', encoding="utf-8")
    status, output = cli("validate", str(path))
    assert status == 1
    assert "\x1b" not in output
    assert "\\x1b[2J" in output


# --- output a person can act on --------------------------------------------------------------------------


def test_issues_are_grouped_by_code_with_the_blocking_error_first(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(b'{"prompt": "a", "answer": "b"}\n' + b'{"prompt": ""}\n' * 1200)
    status, output = cli("validate", str(path))
    assert status == 1
    lines = output.splitlines()
    assert len(lines) < 20
    assert "too_many_rows" in lines[1]
    status, everything = cli("validate", "--all", str(path))
    assert len(everything.splitlines()) > 1000
    status, three = cli("validate", "--max-issues", "3", str(path))
    assert "… and 996 more" in three


# --- fuzzing ---------------------------------------------------------------------------------------------

_refs = st.tuples(st.integers(1, 2000), st.integers(1, 800))


@st.composite
def sheet_xml(draw: st.DrawFn) -> str:
    rows = []
    for _ in range(draw(st.integers(0, 6))):
        cells = []
        for _ in range(draw(st.integers(0, 4))):
            row, col = draw(_refs)
            letters = ""
            n = col
            while n:
                n, rest = divmod(n - 1, 26)
                letters = chr(65 + rest) + letters
            spelling = draw(st.sampled_from(['<c r="{}">', "<c r='{}'>", '<c r = "{}">', '<c t="n" r="{}">', "<c>"]))
            if draw(st.booleans()):
                cells.append(spelling.format(f"{letters}{row}") + "<v>1</v></c>")
            else:  # formatting only, no value
                cells.append(spelling.format(f"{letters}{row}")[:-1] + ' s="1"/>')
        row_tag = draw(st.sampled_from(['<row r="{}">', "<row>", "<row r='{}'>"]))
        rows.append(row_tag.format(draw(st.integers(1, 3000))) + "".join(cells) + "</row>")
    return "".join(rows)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=sheet_xml())
def test_the_fast_scan_agrees_with_the_exact_parse(tmp_path: Path, body: str) -> None:
    path = xlsx(tmp_path / "f.xlsx", body)
    with zipfile.ZipFile(path) as archive:
        fast = scan_sheet(archive, "xl/worksheets/sheet1.xml")
        exact = _exact(archive, "xl/worksheets/sheet1.xml", type(fast)())
    # The fast bound may count formatting-only cells (an over-estimate, settled exactly before a refusal);
    # it never under-estimates the extent, nor over-estimates the cells with content.
    assert fast.rows >= exact.rows and fast.cols >= exact.cols and fast.cells <= exact.cells
    if not fast.estimated:
        assert (fast.rows, fast.cols, fast.cells) == (exact.rows, exact.cols, exact.cells)
    elif "/>" not in body:
        assert fast.cells == exact.cells
        assert fast.rows == exact.rows
        assert fast.cols == exact.cols or (fast.cols == 26 and exact.cols <= 26)


_nasty = st.text(
    alphabet=st.one_of(st.characters(min_codepoint=0, max_codepoint=0x9F), st.sampled_from("\ud800\udfff\u202e中")),
    max_size=12,
)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=_nasty, value=_nasty)
def test_jsonl_lines_with_surrogates_and_controls_never_crash(tmp_path: Path, key: str, value: str) -> None:
    path = tmp_path / "z.jsonl"
    line = json.dumps({"prompt": value or "x", "answer": "b", key: value}, ensure_ascii=True)
    path.write_text(line + "\n", encoding="utf-8")
    report = validate_file(path)
    report.model_dump_json()  # never a serialisation error
    for issue in report.issues:
        assert issue.line == 1
    status, output = cli("validate", str(path))
    assert status in (0, 1)
    assert not any(ch in output for ch in "\x1b\x07\x00\u202e")
    assert os.path.exists(path)


# --- messages that name the culprit ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "hint"),
    [
        ('{"prompt": "a", "answer": "b"},', "trailing comma after the object"),
        ('{"prompt": "a", "answer": "b",}', 'trailing comma before "}"'),
    ],
    ids=["after_object", "before_brace"],
)
def test_a_trailing_comma_is_named(tmp_path: Path, line: str, hint: str) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    assert hint in codes(path)["invalid_json"][0]["message"]


@pytest.mark.parametrize(
    ("header", "meant"),
    [
        ("问题", "query"),
        ("参考答案", "reference_response"),
        ("系统提示", "system_prompt"),
        ("回答", "response"),
        ("参数", "parameters"),
        ("对话ID", "session_id"),
    ],
)
def test_chinese_header_names_suggest_the_column(tmp_path: Path, header: str, meant: str) -> None:
    sheet = '<row r="1">' + text("A1", "query") + text("B1", "reference_response") + text("C1", header) + "</row>"
    sheet += '<row r="2">' + text("A2", "q") + text("B2", "a") + "</row>"
    issue = codes(xlsx(tmp_path / "h.xlsx", sheet))["unknown_column"][0]
    assert f'Did you mean "{meant}"?' in issue["message"]
    assert issue["column"] == f"C ({header})"


def test_system_prompt_only_on_the_first_row_is_one_issue_per_session(tmp_path: Path) -> None:
    names = ("session_id", "system_prompt", "query", "reference_response")
    sheet = '<row r="1">' + "".join(text(f"{'ABCD'[i]}1", n) for i, n in enumerate(names)) + "</row>"
    for r, (sid, system) in enumerate([(0, "你是老师"), (0, ""), (0, ""), (1, "你是厨师"), (1, "")], start=2):
        cells = f'<c r="A{r}"><v>{sid}</v></c>' + (text(f"B{r}", system) if system else "")
        last = r in (4, 6)
        sheet += f'<row r="{r}">' + cells + text(f"C{r}", "q") + (text(f"D{r}", "a") if last else "") + "</row>"
    found = codes(xlsx(tmp_path / "s.xlsx", sheet))["system_prompt_mismatch"]
    assert [i["row"] for i in found] == [3, 6]
    assert "filled only on row 2, the session's first; row(s) 3, 4 leave it empty" in found[0]["message"]
    assert "filled only on row 5" in found[1]["message"]


def test_full_width_punctuation_in_parameters_is_named(tmp_path: Path) -> None:
    sheet = '<row r="1">' + text("A1", "query") + text("B1", "reference_response") + text("C1", "parameters") + "</row>"
    sheet += (
        '<row r="2">' + text("A2", "q") + text("B2", "a") + text("C2", "{“temperature”： 0.5，“top_p”: 1}") + "</row>"
    )
    message = codes(xlsx(tmp_path / "p.xlsx", sheet))["invalid_parameters"][0]["message"]
    assert '“ (write ")' in message and "， (write ,)" in message


def test_excel_reading_stops_at_the_platform_row_limit(tmp_path: Path) -> None:
    rows = "".join(f'<row r="{r}">' + text(f"A{r}", "q") + text(f"B{r}", "a") + "</row>" for r in range(2, 1100))
    bad = "".join(f'<row r="{r}">' + text(f"B{r}", "a") + "</row>" for r in range(1100, 1200))
    found = codes(xlsx(tmp_path / "rows.xlsx", HEADER + rows + bad))
    assert list(found) == ["too_many_rows"]
    assert found["too_many_rows"][0]["row"] == 1002


@pytest.mark.slow
def test_sigterm_during_convert_leaves_no_temporary_file(tmp_path: Path) -> None:
    import signal

    source = tmp_path / "big.jsonl"
    source.write_text("".join(f'{{"prompt": "问题{i}", "answer": "答案"}}\n' for i in range(300_000)), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    args = ["convert", "--profile", "none", str(source), "-o", str(out)]
    returncode, err = terminate_while_writing(args, tmp_path)
    assert returncode == 128 + signal.SIGTERM
    assert b"Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.jsonl"]
