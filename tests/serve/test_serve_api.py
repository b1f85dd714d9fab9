"""The API of ``formatkit serve`` through httpx's ASGI transport: its answers, languages, token, refusals and
limits, each test ending with the upload folder empty (tests/serving.py)."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import FIXTURES, assert_empty, call, served, upload
from typer.testing import CliRunner

import formatkit
import formatkit._cli_support
from formatkit import CODES, validate_file
from formatkit.cli import app as cli
from formatkit.messages import Msg

INVALID = FIXTURES / "invalid" / "excel" / "missing_column.xlsx"
VALID = FIXTURES / "fix" / "clean.xlsx"
BROKEN = FIXTURES / "fix" / "everything.xlsx"


def test_health_openapi_and_the_page(tmp_path: Path) -> None:
    with served(tmp_path) as app:
        assert call(app, "GET", "/healthz").status_code == 200
        spec = call(app, "GET", "/openapi.json").json()
        assert {"/healthz", "/v1/validate", "/v1/fix", "/v1/convert", "/v1/rules"} <= set(spec["paths"])
        body = spec["paths"]["/v1/validate"]["post"]["requestBody"]["content"]
        assert "file" in body["multipart/form-data"]["schema"]["properties"]
        page = call(app, "GET", "/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        # no Swagger UI: it loads its scripts from a CDN
        assert call(app, "GET", "/docs").status_code == 404


def test_several_files_are_one_upload_named_by_their_filenames(tmp_path: Path) -> None:
    with served(tmp_path) as app:
        answer = call(app, "POST", "/v1/validate", files=upload(VALID, INVALID))
    assert answer.status_code == 200
    document = answer.json()
    assert [f["path"] for f in document["files"]] == ["clean.xlsx", "missing_column.xlsx"]
    assert document["valid"] is False
    assert str(tmp_path) not in answer.text


def test_the_language_follows_the_query_then_accept_language_then_the_server(tmp_path: Path) -> None:
    english = Msg("summary.missing_column").render("en")[:12]

    def message(app: Any, **kwargs: Any) -> str:
        answer = call(app, "POST", "/v1/validate", files=upload(INVALID), **kwargs)
        return str(answer.json()["files"][0]["issues"][0]["message"])

    with served(tmp_path) as app:
        assert "第 1 行" not in message(app)
        assert "第 1 行" in message(app, headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
        assert "第 1 行" not in message(app, headers={"Accept-Language": "fr-FR, en;q=0.5, zh;q=0.1"})
        assert "第 1 行" not in message(app, params={"lang": "en"}, headers={"Accept-Language": "zh"})
    with served(tmp_path, lang="zh") as app:
        assert "第 1 行" in message(app)
        assert "第 1 行" in message(app, headers={"Accept-Language": "de"})
        refused = call(app, "POST", "/v1/validate", content=b"x", params={"lang": "en"})
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "not_multipart"
        assert "multipart" in refused.json()["error"]["message"] and english


def test_fix_answers_fix_json_with_the_copy_that_validates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "cli"
    work.mkdir()
    (work / BROKEN.name).write_bytes(BROKEN.read_bytes())
    monkeypatch.chdir(work)
    printed = CliRunner().invoke(cli, ["fix", BROKEN.name, "-o", "everything.fixed.xlsx", "--json", "--lang", "zh"])
    expected = json.loads(printed.stdout)
    with served(tmp_path) as app:
        answer = call(app, "POST", "/v1/fix", params={"lang": "zh"}, files=upload(BROKEN))
    assert answer.status_code == 200
    document = answer.json()
    copy = document.pop("copy")
    assert document == expected
    assert expected["changes"] and expected["source"] == "everything.xlsx"
    assert copy["filename"] == "everything.fixed.xlsx"
    data = base64.b64decode(copy["base64"])
    assert len(data) == copy["size"]
    repaired = tmp_path / copy["filename"]
    repaired.write_bytes(data)
    assert validate_file(repaired).valid is expected["valid"]
    assert validate_file(BROKEN).valid is False


def test_fix_of_a_file_no_repair_reads_has_no_copy(tmp_path: Path) -> None:
    with served(tmp_path) as app:
        answer = call(app, "POST", "/v1/fix", files=[("file", ("notes.txt", b"hello"))])
        two = call(app, "POST", "/v1/fix", files=upload(VALID, INVALID))
    assert answer.status_code == 200
    document = answer.json()
    assert document["copy"] is None and document["readable"] is False and document["written"] is False
    assert document["report"]["issues"][0]["code"] == "unsupported_extension"
    assert two.status_code == 413 and two.json()["error"]["code"] == "too_many_files"


def test_convert_answers_the_jsonl_convert_writes_or_422_with_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(VALID.parent)
    written = tmp_path / "out.jsonl"
    assert CliRunner().invoke(cli, ["convert", VALID.name, "-o", str(written)]).exit_code == 0
    monkeypatch.chdir(INVALID.parent)
    printed = CliRunner().invoke(cli, ["validate", INVALID.name, "--json"])
    with served(tmp_path) as app:
        converted = call(app, "POST", "/v1/convert", files=upload(VALID))
        refused = call(app, "POST", "/v1/convert", files=upload(VALID, INVALID))
    assert converted.status_code == 200
    assert converted.headers["content-type"] == "application/x-ndjson"
    assert converted.content == written.read_bytes()
    assert json.loads(converted.content.splitlines()[0])["meta"]["source"]["file"] == "clean.xlsx"
    assert refused.status_code == 422
    document = refused.json()
    assert document["files"][1] == json.loads(printed.stdout)["files"][0]
    assert b"session_id" not in refused.content.split(b'"files"')[0]  # the report, no records before it


def test_rules_are_the_code_table_with_each_summary_in_every_language(tmp_path: Path) -> None:
    with served(tmp_path) as app:
        rules = call(app, "GET", "/v1/rules").json()["rules"]
    assert [r["code"] for r in rules] == list(CODES)
    for rule in rules:
        assert rule["severity"] == CODES[rule["code"]][0]
        assert rule["summary"] == {lang: Msg(f"summary.{rule['code']}").render(lang) for lang in ("en", "zh")}


def test_a_token_guards_every_v1_route_and_nothing_else(tmp_path: Path) -> None:
    with served(tmp_path, token="s3cret-token") as app:
        statuses = [
            call(app, "GET", "/v1/rules").status_code,
            call(app, "GET", "/v1/rules", headers={"Authorization": "Bearer wrong"}).status_code,
            call(app, "GET", "/v1/rules", headers={"Authorization": "Basic s3cret-token"}).status_code,
            call(app, "POST", "/v1/validate", files=upload(VALID)).status_code,
            call(app, "POST", "/v1/fix", files=upload(VALID)).status_code,
            call(app, "POST", "/v1/convert", files=upload(VALID)).status_code,
            call(app, "GET", "/v1/rules", headers={"Authorization": "Bearer s3cret-token"}).status_code,
            call(app, "GET", "/healthz").status_code,
        ]
        denied = call(app, "GET", "/v1/rules", params={"lang": "zh"})
    assert statuses == [401, 401, 401, 401, 401, 401, 200, 200]
    assert denied.headers["www-authenticate"] == "Bearer"
    assert denied.json()["error"]["code"] == "unauthorized" and "令牌" in denied.json()["error"]["message"]


def test_refusals_are_catalogue_messages_in_both_languages(tmp_path: Path) -> None:
    with served(tmp_path, max_files=2) as app:
        cases = {
            "not_multipart": call(app, "POST", "/v1/validate", json={"file": "x"}),
            "no_files": call(app, "POST", "/v1/validate", data={"other": "x"}, files=[("note", ("n.txt", b"x"))]),
            "too_many_files": call(app, "POST", "/v1/validate", files=upload(VALID, VALID, VALID)),
            "bad_query": call(app, "POST", "/v1/validate", params={"mode": "guess"}, files=upload(VALID)),
        }
        chinese = call(app, "POST", "/v1/validate", params={"lang": "zh"}, files=upload(VALID, VALID, VALID))
    assert {code: (r.status_code, r.json()["error"]["code"]) for code, r in cases.items()} == {
        "not_multipart": (400, "not_multipart"),
        "no_files": (400, "no_files"),
        "too_many_files": (413, "too_many_files"),
        "bad_query": (400, "bad_query"),
    }
    assert chinese.json()["error"]["message"] == Msg("ui.serve.too_many_files", limit=2).render("zh")


def _multipart(name: str, data: bytes, boundary: str = "fkboundary") -> bytes:
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n\r\n'
    return head.encode() + data + f"\r\n--{boundary}--\r\n".encode()


async def _chunks(data: bytes, size: int = 4096) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def test_an_upload_over_the_limit_is_refused_whatever_content_length_says(tmp_path: Path) -> None:
    body = _multipart("big.jsonl", b'{"x": 1}\n' * 20_000)  # ~180 kB against a 0.1 MB limit
    headers = {"Content-Type": "multipart/form-data; boundary=fkboundary"}
    with served(tmp_path, max_upload_mb=0.1) as app:
        honest = call(app, "POST", "/v1/validate", content=body, headers=headers)
        lying = call(app, "POST", "/v1/validate", content=_chunks(body), headers={**headers, "Content-Length": "500"})
        unsaid = call(app, "POST", "/v1/validate", content=_chunks(body), headers=headers)
        small = call(app, "POST", "/v1/validate", content=_multipart("small.jsonl", b"{}\n"), headers=headers)
    assert [r.status_code for r in (honest, lying, unsaid)] == [413, 413, 413]
    assert lying.json()["error"] == {
        "code": "upload_too_large",
        "message": Msg("ui.serve.upload_too_large", limit="0.1").render("en"),
    }
    assert small.status_code == 200


def test_a_cut_short_body_is_malformed_and_leaves_nothing(tmp_path: Path) -> None:
    body = _multipart("cut.jsonl", b'{"x": 1}\n' * 100)[:-40]
    headers = {"Content-Type": "multipart/form-data; boundary=fkboundary"}
    with served(tmp_path) as app:
        answer = call(app, "POST", "/v1/validate", content=body, headers=headers)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "malformed"


def test_a_client_gone_mid_upload_leaves_the_folder_empty(tmp_path: Path) -> None:
    """Half the body, then the client disconnects: the part written so far is removed."""
    body = _multipart("half.jsonl", b'{"x": 1}\n' * 5_000)
    seen: list[int] = []
    with served(tmp_path) as app:
        folder = tmp_path / "uploads"
        messages = [{"type": "http.request", "body": body[: len(body) // 2], "more_body": True}]

        async def receive() -> dict[str, Any]:
            if messages:
                return messages.pop(0)
            seen.append(sum(1 for p in folder.rglob("*") if p.is_file()))  # the half is on disk now
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            pass

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/v1/validate",
            "raw_path": b"/v1/validate",
            "query_string": b"",
            "root_path": "",
            "headers": [(b"content-type", b"multipart/form-data; boundary=fkboundary"), (b"host", b"t")],
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 80),
        }
        asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    assert seen == [1]


def test_filenames_are_never_paths(tmp_path: Path) -> None:
    hostile = [
        "../../x.jsonl",
        "..\\..\\y.jsonl",
        "/etc/passwd.jsonl",
        "..",
        "a\x00b\x1b[31m.jsonl",
        "名单 (1).jsonl",
        "z" * 400 + ".jsonl",
    ]
    data = (FIXTURES / "fix" / "clean.jsonl").read_bytes()
    with served(tmp_path) as app:
        answer = call(
            app, "POST", "/v1/validate", params={"profile": "none"}, files=[("file", (n, data)) for n in hostile]
        )
    assert answer.status_code == 200
    names = [f["path"] for f in answer.json()["files"]]
    assert names[:4] == ["x.jsonl", "y.jsonl", "passwd.jsonl", "upload"]
    assert names[4].endswith("b[31m.jsonl") and not any(ord(c) < 32 for c in names[4])  # httpx sends NUL as %00
    assert names[5] == "名单 (1).jsonl"
    assert names[6].endswith(".jsonl") and len(names[6].encode()) <= 200
    assert not (tmp_path / "x.jsonl").exists() and not (tmp_path.parent / "x.jsonl").exists()
    assert str(tmp_path) not in answer.text


def test_checks_beyond_the_slots_get_503_with_retry_after(tmp_path: Path) -> None:
    with served(tmp_path, checks=1, queue_wait=0.05, retry_after=7) as app:

        async def go() -> list[httpx.Response]:
            semaphore = app.state.gate.semaphore()
            await semaphore.acquire()  # the one slot, held
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                held = [await client.post("/v1/validate", files=upload(VALID)) for _ in range(3)]
                semaphore.release()
                return [*held, await client.post("/v1/validate", files=upload(VALID))]

        answers = asyncio.run(go())
    assert [a.status_code for a in answers] == [503, 503, 503, 200]
    assert answers[0].headers["retry-after"] == "7"
    assert answers[0].json()["error"]["code"] == "busy"


def test_a_check_past_the_time_limit_is_abandoned_and_keeps_its_slot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    finished: list[str] = []
    real = formatkit._cli_support.check_files

    def slow(*args: Any, **kwargs: Any) -> Any:
        release.wait(30)  # held until the test lets it go (30 s only stops a hung test)
        finished.append("checked")
        return real(*args, **kwargs)

    monkeypatch.setattr(formatkit._cli_support, "check_files", slow)
    with served(tmp_path, checks=1, queue_wait=0, time_limit=0.05) as app:

        async def go() -> list[httpx.Response]:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
                abandoned = await client.post("/v1/validate", files=upload(VALID))
                busy = await client.post("/v1/validate", files=upload(VALID))  # the abandoned check has the slot
                release.set()
                for _ in range(3000):  # the slot back once the thread ends (the bound only stops a hung test)
                    if finished and not app.state.gate.semaphore().locked():
                        break
                    await asyncio.sleep(0.01)
                return [abandoned, busy, await client.post("/v1/validate", files=upload(VALID))]

        answers = asyncio.run(go())
    assert [(a.status_code, a.json().get("error", {}).get("code")) for a in answers] == [
        (503, "time_limit"),
        (503, "busy"),
        (200, None),
    ]


def test_cors_is_off_unless_an_origin_is_given(tmp_path: Path) -> None:
    preflight = {"Origin": "https://annotate.example", "Access-Control-Request-Method": "POST"}
    with served(tmp_path) as app:
        off = call(app, "OPTIONS", "/v1/validate", headers=preflight)
        plain = call(app, "GET", "/v1/rules", headers={"Origin": "https://annotate.example"})
    with served(tmp_path, cors_origins=("https://annotate.example",)) as app:
        on = call(app, "OPTIONS", "/v1/validate", headers=preflight)
    assert "access-control-allow-origin" not in off.headers and "access-control-allow-origin" not in plain.headers
    assert on.headers["access-control-allow-origin"] == "https://annotate.example"


def test_the_upload_folder_is_private(tmp_path: Path) -> None:
    with served(tmp_path) as app:
        assert (Path(app.state.upload_dir).stat().st_mode & 0o777) == 0o700
    assert_empty(tmp_path / "uploads")


def test_the_garbage_collector_is_on_once_no_check_runs(tmp_path: Path) -> None:
    """A reader pauses the collector while it reads and restores what it found: two checks in two threads can
    leave it paused (the second found it paused by the first), so the service turns it on when none runs."""
    import gc

    try:
        with served(tmp_path) as app:
            gc.disable()  # as a reader in another thread would leave it
            assert call(app, "POST", "/v1/validate", files=upload(VALID)).status_code == 200
            assert gc.isenabled()
    finally:
        gc.enable()


def test_a_defect_is_a_500_that_quotes_nothing_of_the_upload(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("cell B7 holds SECRET-CELL-TEXT")

    monkeypatch.setattr(formatkit._cli_support, "check_files", broken)
    with served(tmp_path) as app:
        answer = call(app, "POST", "/v1/validate", files=upload(VALID))
    assert answer.status_code == 500 and answer.json()["error"]["code"] == "internal"
    assert "SECRET-CELL-TEXT" not in answer.text and "SECRET-CELL-TEXT" not in caplog.text
    assert "ValueError" in caplog.text


def test_a_folder_of_its_own_goes_with_the_server() -> None:
    """Without --upload-dir the application makes a private temporary folder and removes it when it stops
    (a uvicorn worker process ends without running atexit)."""
    from formatkit.serve import Settings, create_app

    app = create_app(Settings())
    folder = Path(app.state.upload_dir)

    async def go() -> int:
        async with app.router.lifespan_context(app):  # started and stopped as uvicorn does
            assert folder.is_dir() and (folder.stat().st_mode & 0o777) == 0o700
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                return (await client.post("/v1/validate", files=upload(VALID))).status_code

    assert asyncio.run(go()) == 200
    assert not folder.exists()
