"""The readers' fast paths (records built without a Draft for rows that pass every rule cheaply) give the
same bytes and the same issues as the full path, for every fixture, mode and profile, valid or not."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openpyxl
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from formatkit._api.conversion import convert
from formatkit._api.validate import iter_dicts, validate_file
from formatkit._core.modes import Mode
from formatkit._rules import parameters

FIXTURES = Path(__file__).parents[2] / "fixtures"
INPUTS = sorted(
    p
    for folder in ("valid", "seed", "invalid/jsonl", "invalid/excel")
    for p in (FIXTURES / folder).iterdir()
    if p.suffix in (".jsonl", ".xlsx", ".xls") and not p.name.startswith("seed_output")
)
MODES = ("infer-eval", "infer-only", "scored")
PARAMS = '{"temperature": 0.7, "max_tokens": 512}'


def _cold_caches() -> None:
    """The fast paths lean on the parameter caches: start each comparison with them empty."""
    parameters._CLEAN.clear()
    parameters._CLEAN_TEXT.clear()
    parameters._PARSED.clear()


def _outcome(paths: list[Path], out: Path, mode: str, profile: str, *, fast: bool) -> dict[str, Any]:
    _cold_caches()
    if out.exists():
        out.unlink()
    report = convert(paths, out, mode=mode, profile=profile, fast=fast)  # type: ignore[arg-type]
    written = out.read_bytes() if out.exists() else None
    checked = [validate_file(p, mode=mode, profile=profile, fast=fast).model_dump() for p in paths]  # type: ignore[arg-type]
    streamed: list[Any] = []
    try:
        for record in iter_dicts(paths[0], mode=mode, profile=profile, fast=fast):  # type: ignore[arg-type]
            streamed.append(record)
    except Exception as exc:  # InvalidFileError: the same report either way
        streamed.append(repr(exc))
    return {"report": report.model_dump(), "written": written, "validated": checked, "streamed": streamed}


def _same_both_ways(paths: list[Path], tmp_path: Path, mode: str, profile: str) -> dict[str, Any]:
    slow = _outcome(paths, tmp_path / "slow.jsonl", mode, profile, fast=False)
    fast = _outcome(paths, tmp_path / "fast.jsonl", mode, profile, fast=True)
    # The output path differs only in its name, which no record or issue holds.
    assert fast["written"] == slow["written"]
    assert fast["report"] == slow["report"]
    assert fast["validated"] == slow["validated"]
    assert fast["streamed"] == slow["streamed"]
    # Warm caches (the second file of a batch sees what the first one filled in) change nothing either.
    warm = tmp_path / "warm.jsonl"
    warm.unlink(missing_ok=True)
    again = convert(paths, warm, mode=mode, profile=profile)  # type: ignore[arg-type]
    assert again.model_dump() == slow["report"]
    assert (warm.read_bytes() if warm.exists() else None) == slow["written"]
    return slow


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_converts_the_same_both_ways(path: Path, mode: str, tmp_path: Path) -> None:
    _same_both_ways([path], tmp_path, mode, "none")


@pytest.mark.parametrize("path", [p for p in INPUTS if "invalid" not in str(p)], ids=lambda p: p.name)
def test_fixture_converts_the_same_both_ways_under_the_platform_profile(path: Path, tmp_path: Path) -> None:
    _same_both_ways([path], tmp_path, "infer-eval", "platform")


def _jsonl_lines() -> Iterator[Any]:
    """Clean lines with lines each rule stops, interleaved, so positions and fallbacks mix."""
    clean = {"system": "你是老师", "prompt": "1+1=?", "answer": "2", "parameters": json.loads(PARAMS)}
    yield clean
    yield {**clean, "system": "   "}  # a blank system prompt is left out
    yield {"prompt": "no system", "answer": "a: b"}
    yield {**clean, "answer": ""}  # missing_reference
    yield {**clean, "response": "already"}  # unexpected_response / scored's response
    yield {**clean, "parameters": {"temperature": 5}}  # out of range
    yield {**clean, "parameters": {"n": 3, "top_p": 0.5}}  # three pending responses
    yield {**clean, "session_id": 41}
    yield {**clean, "meta": {"subject": "math"}}
    yield {**clean, "query": "alias"}
    yield {**clean, "prompt": "  "}
    yield {**clean, "extra": 1}
    yield clean
    yield [1, 2]
    yield {"messages": [{"role": "user", "content": "hi"}], "answer": "x"}  # mixed shapes
    yield {**clean, "prompt": "dup"}


def test_mixed_jsonl_converts_the_same_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    lines = [json.dumps(obj, ensure_ascii=False) for obj in _jsonl_lines()]
    lines.insert(3, "")  # a blank line between records
    lines.insert(5, '{"prompt": "a", "prompt": "b", "answer": "c"}')  # a duplicate key
    lines.insert(7, '{"prompt": "x\\u003a y", "answer": "c"}')  # an escaped colon
    lines.append('{"prompt": "broken"')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for mode in MODES:
        _same_both_ways([path], tmp_path, mode, "none")


def test_clean_jsonl_converts_the_same_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "clean.jsonl"
    clean = {"system": "sys", "prompt": "q", "answer": "a", "parameters": json.loads(PARAMS)}
    path.write_text("".join(json.dumps({**clean, "prompt": f"q{i}"}) + "\n" for i in range(50)), encoding="utf-8")
    for mode in MODES:
        slow = _same_both_ways([path], tmp_path, mode, "none")
        if mode == "infer-eval":
            assert slow["report"]["valid"] and slow["written"].count(b"\n") == 50


def _workbook(path: Path, rows: list[list[Any]]) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["session_id", "system_prompt", "query", "reference_response", "parameters", "response"])
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


def test_mixed_excel_converts_the_same_both_ways(tmp_path: Path) -> None:
    python_dict = "{'temperature': 0.7, 'max_tokens': 512}"
    rows: list[list[Any]] = [
        [None, "sys", "q1", "a1", PARAMS, None],
        [None, "  ", "q2", "a2", PARAMS, None],
        [None, None, "q3", "a3", None, None],
        [None, "sys", "q4", None, PARAMS, None],  # no reference
        [None, "sys", "q5", "a5", PARAMS, "given"],  # a response
        [None, "sys", "q6", "a6", '{"temperature": 9}', None],
        [None, "sys", "q7", "a7", python_dict, None],
        [None, "sys", "q8", "a8", '{"n": 2}', None],
        [12, "sys", "q9", "a9", PARAMS, None],
        [None, "sys", None, "a10", PARAMS, None],  # no query
        [None, "sys", 5, "a11", PARAMS, None],  # a number in a text column
        [None, "sys", "q12", "a12", "not a dict", None],
        [None, "sys", "q13", "a13", python_dict, None],
    ]
    path = _workbook(tmp_path / "mixed.xlsx", rows)
    for mode in MODES:
        _same_both_ways([path], tmp_path, mode, "none")


def test_multi_turn_excel_converts_the_same_both_ways(tmp_path: Path) -> None:
    rows: list[list[Any]] = [
        [1, "sys", "q1", None, None, "r1"],
        [1, "sys", "q2", "a2", PARAMS, None],
        [2, "sys", "solo", "a", PARAMS, None],
        [3, "sys", "q1", None, None, None],
        [3, "sys", "q2", "a", PARAMS, None],
    ]
    path = _workbook(tmp_path / "multi.xlsx", rows)
    for mode in MODES:
        _same_both_ways([path], tmp_path, mode, "none")


def test_several_files_convert_the_same_both_ways(tmp_path: Path) -> None:
    paths = [
        FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl",
        FIXTURES / "seed" / "seed_excel_single_turn.xlsx",
        FIXTURES / "valid" / "single_turn_minimal.jsonl",
    ]
    _same_both_ways(paths, tmp_path, "infer-eval", "none")


@pytest.mark.parametrize(
    "name", ["seed/seed_jsonl_single_turn.jsonl", "seed/seed_excel_single_turn.xlsx", "valid/excel_scored.xlsx"]
)
def test_the_fast_path_is_taken(name: str) -> None:
    """Otherwise the comparisons above would compare the full path with itself."""
    from formatkit._core.issues import IssueSink
    from formatkit._drivers import open_reader

    path = FIXTURES / name
    mode: Mode = "scored" if "scored" in name else "infer-eval"
    assert validate_file(path, mode=mode).valid  # fills the parameter caches
    reader = open_reader(path, mode=mode, sink=IssueSink(str(path)), max_rows=None)
    assert reader is not None
    items = list(reader.drafts())
    assert items and all(type(item) is dict for item in items[1:])


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.sampled_from('ab:"\\\n中 ')),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet="k:中", max_size=3), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(_json)
def test_colon_count_without_serialising_matches_orjson(value: Any) -> None:
    """The duplicate-key screen counts a line's colons as its compact re-serialisation would hold them."""
    from formatkit._reading.jsonl_lines import _big_number, _dumped_colons

    result = _dumped_colons(value)
    dumped = orjson.dumps(value)
    if result == -1:  # only a number that may lie beyond 64 bits sends the line to the exact parse
        assert _big_number(dumped)
    else:
        assert result == dumped.count(b":")


def test_a_repeated_nested_value_is_screened_on_every_line(tmp_path: Path) -> None:
    """The screen remembers a nested value's colon count by its compact JSON; a later line whose parameters
    read back the same (a duplicate key merged away, an escaped colon) still goes to the exact parse."""
    path = tmp_path / "repeat.jsonl"
    clean = '{"prompt": "q", "answer": "a", "parameters": {"top_p": 0.5, "stop": ["a:b"]}}'
    lines = [clean, clean]
    lines.append('{"prompt": "q", "answer": "a", "parameters": {"top_p": 0.5, "top_p": 0.5, "stop": ["a:b"]}}')
    lines.append(clean)
    # a duplicate key and an escaped colon: the colon counts agree, the escape sends the line on
    lines.append('{"prompt": "q", "prompt": "q", "answer": "a", "parameters": {"top_p": 0.5, "stop": ["a\\u003ab"]}}')
    lines.append(
        '{"prompt": "q", "answer": "a", "parameters": {"top_p": 0.5, "stop": ["a:b"], "seed": 9223372036854775808}}'
    )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = validate_file(path, profile="none")
    found = [(i.code, i.line) for i in report.issues]
    assert ("duplicate_key", 3) in found
    assert ("duplicate_key", 5) in found
    assert ("number_too_large", 6) in found
    for mode in MODES:
        _same_both_ways([path], tmp_path, mode, "none")
