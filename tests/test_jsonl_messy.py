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
