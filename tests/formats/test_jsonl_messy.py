"""Messy jsonl as people really send it, written byte for byte in tmp_path: code, place and message."""

from __future__ import annotations

from pathlib import Path

import pytest

from formatkit import validate_file


@pytest.mark.parametrize(
    "data",
    [
        b'{"prompt": "a", "answer": "b"}\n{"prompt":"a"\n{"prompt": "c", "answer": "d"}\n',
        b'{"prompt": "a", "answer": "b"}\r\n{"prompt":"a"\r\n{"prompt": "c", "answer": "d"}\r\n',
        b'{"prompt": "a", "answer": "b"}\n{"prompt":"a"',
    ],
    ids=["lf", "crlf", "last-line"],
)
def test_cut_short_object_is_reported_where_it_stops(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_bytes(data)
    [issue] = validate_file(path).issues
    assert (issue.code, issue.line) == ("invalid_json", 2)
    assert "at column 14" in issue.message


@pytest.mark.parametrize("bom", ["utf-16-le", "utf-16-be"])
def test_utf16_file_is_one_encoding_error(tmp_path: Path, bom: str) -> None:
    path = tmp_path / "u16.jsonl"
    text = '{"prompt": "你好", "answer": "b"}\n{"prompt": "c", "answer": "d"}\n'
    mark = b"\xff\xfe" if bom == "utf-16-le" else b"\xfe\xff"
    path.write_bytes(mark + text.encode(bom))
    issues = validate_file(path).issues
    assert [(i.code, i.line) for i in issues] == [("not_utf8", 1)]
    assert "UTF-16" in issues[0].message


def test_a_file_of_only_a_byte_order_mark_is_reported_not_a_crash(tmp_path: Path) -> None:
    """Notepad saves an empty file as UTF-8 with BOM: three bytes and nothing else (the line reader got an
    empty line after the BOM and indexed it: IndexError)."""
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf")
    report = validate_file(path)
    assert sorted(i.code for i in report.issues) == ["no_records", "utf8_bom"]


@pytest.mark.parametrize(
    ("meta", "field"),
    [
        ({"source": "mine"}, "meta.source"),
        ({"dataset": 5}, "meta.dataset"),
        ({"choices": "ABCD"}, "meta.choices"),
    ],
)
def test_line_meta_must_fit_the_canonical_meta(tmp_path: Path, meta: dict[str, object], field: str) -> None:
    import json

    from typer.testing import CliRunner

    from formatkit.cli import app

    for line in (
        {"prompt": "q", "answer": "a", "meta": meta},
        {"messages": [{"role": "user", "content": "q"}], "answer": "a", "meta": meta},
    ):
        path = tmp_path / "with_meta.jsonl"
        path.write_text(json.dumps(line) + "\n", encoding="utf-8")
        assert [(i.code, i.line, i.field) for i in validate_file(path).issues] == [("invalid_type", 1, field)]
        out = tmp_path / "out.jsonl"
        result = CliRunner().invoke(app, ["convert", str(path), "-o", str(out)])
        assert result.exit_code == 1 and not out.exists()


def test_converted_line_meta_validates_as_canonical(tmp_path: Path) -> None:
    import json

    from formatkit import convert

    path = tmp_path / "labels.jsonl"
    meta = {"dataset": "mine", "subject": "地理", "choices": ["巴黎", "伦敦"], "extra": {"k": 1}}
    path.write_text(json.dumps({"prompt": "q", "answer": "A", "meta": meta}, ensure_ascii=False) + "\n", "utf-8")
    out = tmp_path / "out.jsonl"
    assert convert([path], out).valid
    report = validate_file(out)
    assert (report.format, report.valid, report.issues) == ("canonical", True, [])


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"role": "User", "content": "x"}, "invalid_role"),
        ({"role": "bot", "content": "x"}, "invalid_role"),
        ({"content": "x"}, "missing_field"),
    ],
)
def test_a_bad_last_role_is_one_issue_not_a_cascade(tmp_path: Path, message: dict[str, str], code: str) -> None:
    import json

    path = tmp_path / "roles.jsonl"
    path.write_text(json.dumps({"messages": [message], "answer": "a"}) + "\n", encoding="utf-8")
    assert [(i.code, i.field) for i in validate_file(path).issues] == [(code, "messages[0].role")]


def test_conversation_ending_on_system_gets_its_own_fix(tmp_path: Path) -> None:
    path = tmp_path / "system_last.jsonl"
    path.write_text('{"messages": [{"role": "system", "content": "s"}], "answer": "a"}\n', encoding="utf-8")
    [issue] = validate_file(path).issues
    assert (issue.code, issue.field) == ("last_message_not_user", "messages[0]")
    assert "Add the user's question" in issue.message and "assistant reply" not in issue.message
