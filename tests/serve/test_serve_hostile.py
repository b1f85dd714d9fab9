"""Hostile uploads through the API: the reading layer's defences hold there too (a zip bomb is refused
unpacked, an XML entity is never fetched nor expanded into an answer), and the upload folder ends empty."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from serving import FIXTURES, call, served

SOURCE = FIXTURES / "fix" / "clean.xlsx"


def _rewritten(data: bytes, name: str, change: bytes, into: bytes) -> bytes:
    """The workbook ``data`` with one part's first ``change`` replaced by ``into``."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.namelist():
            body = src.read(item)
            if item == name:
                assert change in body
                body = body.replace(change, into, 1)
            dst.writestr(item, body)
    return out.getvalue()


def _answers(tmp_path: Path, name: str, data: bytes) -> dict[str, tuple[int, str]]:
    with served(tmp_path) as app:
        return {
            route: ((r := call(app, "POST", f"/v1/{route}", files=[("file", (name, data))])).status_code, r.text)
            for route in ("validate", "fix", "convert")
        }


def test_a_zip_bomb_is_refused_before_it_is_unpacked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from formatkit._reading import xlsx as excel_xlsx

    # The real bounds are 100 MiB packed better than 1000:1; scaled down as tests/formats does, to stay fast.
    monkeypatch.setattr(excel_xlsx, "BOMB_MIN_BYTES", 1024**2)
    monkeypatch.setattr(excel_xlsx, "MAX_RATIO", 500)
    bomb = _rewritten(
        SOURCE.read_bytes(), "xl/worksheets/sheet1.xml", b"<sheetData>", b"<sheetData>" + b" " * 4 * 1024**2
    )
    assert len(bomb) < 100_000
    answers = _answers(tmp_path, "bomb.xlsx", bomb)
    assert answers["validate"][0] == 200 and "zip bomb" in answers["validate"][1]
    assert answers["fix"][0] == 200 and '"copy": null' in answers["fix"][1] and "zip bomb" in answers["fix"][1]
    assert answers["convert"][0] == 422 and "zip bomb" in answers["convert"][1]


def test_an_external_entity_is_never_read_into_an_answer(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE", encoding="utf-8")
    doctype = f'<!DOCTYPE sst [<!ENTITY xxe SYSTEM "file://{secret}">]>'.encode()
    data = _rewritten(SOURCE.read_bytes(), "xl/sharedStrings.xml", b'<sst xmlns="', doctype + b'<sst xmlns="')
    data = _rewritten(data, "xl/sharedStrings.xml", b">query<", b">&xxe;<")
    answers = _answers(tmp_path, "xxe.xlsx", data)
    assert answers["validate"][0] == 200
    for _route, (status, text) in answers.items():
        assert status in (200, 422)
        assert "TOP-SECRET-VALUE" not in text


def test_an_entity_expansion_bomb_is_not_expanded(tmp_path: Path) -> None:
    entities = '<!ENTITY a0 "HAHAHAHAHA">' + "".join(
        f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 9)
    )  # a8 would be 10^8 copies: a gigabyte
    doctype = f"<!DOCTYPE sst [{entities}]>".encode()
    data = _rewritten(SOURCE.read_bytes(), "xl/sharedStrings.xml", b'<sst xmlns="', doctype + b'<sst xmlns="')
    data = _rewritten(data, "xl/sharedStrings.xml", b">query<", b">&a8;<")
    answers = _answers(tmp_path, "laughs.xlsx", data)
    for _route, (status, text) in answers.items():
        assert status in (200, 422)
        assert "HAHAHAHAHA" * 100 not in text
        assert len(text) < 5_000_000


def test_a_merge_bomb_is_refused_by_fix_and_said_in_the_language_asked(tmp_path: Path) -> None:
    """More merged ranges than fix rewrites (10,000): /v1/fix refuses it (422, the catalogue's reason), as
    the command line does, and validate still reports the file."""
    merges = "".join(f'<mergeCell ref="H{row}:I{row}"/>' for row in range(10, 10_012))
    data = _rewritten(
        SOURCE.read_bytes(),
        "xl/worksheets/sheet1.xml",
        b"</sheetData>",
        f'</sheetData><mergeCells count="10002">{merges}</mergeCells>'.encode(),
    )
    with served(tmp_path) as app:
        fixed = call(app, "POST", "/v1/fix", params={"lang": "zh"}, files=[("file", ("merges.xlsx", data))])
        checked = call(app, "POST", "/v1/validate", files=[("file", ("merges.xlsx", data))])
    assert fixed.status_code == 422, fixed.text
    assert fixed.json()["error"]["code"] == "fix_refused"
    assert "merges.xlsx" in fixed.json()["error"]["message"] and "10,002" in fixed.json()["error"]["message"]
    assert str(tmp_path) not in fixed.text
    assert checked.status_code == 200
