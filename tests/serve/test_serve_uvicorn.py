"""``formatkit serve`` as users start it: a real uvicorn process on a loopback port, spoken to over sockets.
The token, the size limit against a Content-Length that lies (or is absent: chunked), a client that goes away
mid-upload, the bind rule of the command line, and logs that hold no upload content."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from serving import FIXTURES, assert_empty, upload
from typer.testing import CliRunner

from formatkit.cli import app as cli

TOKEN = "tok-3f9a1c"
MARKER = "UPLOAD-CONTENT-MARKER-7d1e"


@dataclass
class Server:
    base: str
    port: int
    uploads: Path
    process: subprocess.Popen[str]
    logs: str = ""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def running(tmp_path: Path, *options: str) -> Iterator[Server]:
    """``formatkit serve`` on a free loopback port with the token in FK_TEST_TOKEN; stopped after the block,
    its logs kept in ``Server.logs``; its upload folder must be empty then."""
    port = _free_port()
    uploads = tmp_path / "uploads"
    command = [sys.executable, "-m", "formatkit.cli", "serve", "--port", str(port), "--upload-dir", str(uploads)]
    env = {**os.environ, "FK_TEST_TOKEN": TOKEN}
    process = subprocess.Popen(
        [*command, *options], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    server = Server(f"http://127.0.0.1:{port}", port, uploads, process)
    try:
        for _ in range(600):  # until it answers (the bound only stops a server that never starts)
            assert process.poll() is None, process.communicate()[0]
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(server.base + "/healthz", timeout=2).status_code == 200:
                    break
            time.sleep(0.05)
        yield server
    finally:
        process.terminate()
        server.logs = process.communicate(timeout=30)[0]
    assert_empty(uploads)


def _raw(port: int, head: str, body: bytes = b"") -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    connection.sendall(head.encode("latin-1") + b"\r\n" + body)
    return connection


def _status(connection: socket.socket) -> int:
    reply = b""
    while b"\r\n" not in reply:
        chunk = connection.recv(4096)
        if not chunk:
            break
        reply += chunk
    return int(reply.split(b" ", 2)[1])


def _multipart(name: str, data: bytes) -> bytes:
    head = f'--bnd\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n\r\n'
    return head.encode() + data + b"\r\n--bnd--\r\n"


def _files_in(folder: Path) -> int:
    return sum(1 for p in folder.rglob("*") if p.is_file())


def test_the_token_and_the_document_over_a_real_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = FIXTURES / "invalid" / "jsonl" / "missing_field.jsonl"
    line = json.dumps({"session_id": 1, "messages": [{"role": "user", "content": MARKER}]})
    marked = tmp_path / "marked.jsonl"
    marked.write_text(line + "\n", encoding="utf-8")
    monkeypatch.chdir(source.parent)
    expected = json.loads(CliRunner().invoke(cli, ["validate", source.name, "--json"]).stdout)
    with running(tmp_path, "--token-env", "FK_TEST_TOKEN") as server:
        bare = httpx.post(server.base + "/v1/validate", files=upload(source))
        auth = {"Authorization": f"Bearer {TOKEN}"}
        answer = httpx.post(server.base + "/v1/validate", files=upload(source), headers=auth)
        named = httpx.post(server.base + "/v1/validate", files=upload(marked, name="../../evil.jsonl"), headers=auth)
        health = httpx.get(server.base + "/healthz")
    assert [bare.status_code, answer.status_code, named.status_code, health.status_code] == [401, 200, 200, 200]
    assert answer.json() == expected
    assert named.json()["files"][0]["path"] == "evil.jsonl"
    assert "POST /v1/validate" in server.logs  # the access log is there, and holds no content of an upload
    assert MARKER not in server.logs and TOKEN not in server.logs


def test_uploads_over_the_limit_get_413_whatever_their_length_says(tmp_path: Path) -> None:
    with running(tmp_path, "--max-upload-mb", "0.05") as server:
        start = "POST /v1/validate HTTP/1.1\r\nHost: t\r\nContent-Type: multipart/form-data; boundary=bnd\r\n"
        # said too large: refused before a byte of the body is sent
        said = _raw(server.port, start + "Content-Length: 1000000000\r\n")
        # no length (chunked): counted as it arrives; the client stops once the answer comes
        chunked = _raw(server.port, start + "Transfer-Encoding: chunked\r\n")
        body = _multipart("big.jsonl", b'{"x": 1}\n' * 20_000)
        sent = 0
        chunked.settimeout(0.05)
        while sent < len(body):
            piece = body[sent : sent + 8192]
            chunked.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            sent += len(piece)
            with contextlib.suppress(TimeoutError, socket.timeout):
                if chunked.recv(1, socket.MSG_PEEK):
                    break
        chunked.settimeout(30)
        # said too small: the server reads only what it was told, a cut-short body
        small = _raw(server.port, start + "Content-Length: 100\r\n", body[:5000])
        statuses = [_status(said), _status(chunked), _status(small)]
        for connection in (said, chunked, small):
            connection.close()
    assert statuses == [413, 413, 400]
    assert sent < len(body)  # the answer came before the whole body was sent


def test_a_client_gone_mid_upload_leaves_nothing(tmp_path: Path) -> None:
    with running(tmp_path) as server:
        body = _multipart("half.jsonl", b'{"x": 1}\n' * 50_000)
        head = (
            "POST /v1/validate HTTP/1.1\r\nHost: t\r\nContent-Type: multipart/form-data; boundary=bnd\r\n"
            f"Content-Length: {len(body)}\r\n"
        )
        connection = _raw(server.port, head, body[: len(body) // 2])
        for _ in range(600):  # until the half is on disk (the bound only stops a hung test)
            if _files_in(server.uploads):
                break
            time.sleep(0.02)
        assert _files_in(server.uploads) == 1
        connection.close()
        for _ in range(600):  # until the server has seen the client go
            if not any(server.uploads.iterdir()):
                break
            time.sleep(0.02)
        assert list(server.uploads.iterdir()) == []
        assert httpx.get(server.base + "/healthz").status_code == 200


def test_the_command_line_refuses_an_open_address_without_a_token() -> None:
    command = [sys.executable, "-m", "formatkit.cli", "serve", "--host", "0.0.0.0"]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert len(refused.stderr.strip().splitlines()) == 1 and "--token-env" in refused.stderr
    assert refused.stdout == ""
    runner = CliRunner()
    unset = runner.invoke(cli, ["serve", "--host", "0.0.0.0", "--token-env", "FK_NOT_SET_ANYWHERE"])
    chinese = runner.invoke(cli, ["serve", "--host", "10.1.2.3", "--lang", "zh"])
    named = runner.invoke(cli, ["serve", "--host", "example.org"])
    assert [unset.exit_code, chinese.exit_code, named.exit_code] == [2, 2, 2]
    assert "FK_NOT_SET_ANYWHERE" in unset.output and "令牌" in chinese.output


@pytest.mark.slow
def test_two_workers_answer_alike(tmp_path: Path) -> None:
    source = FIXTURES / "valid" / "excel_single_turn.xlsx"
    with running(tmp_path, "--workers", "2") as server:
        answers = [httpx.post(server.base + "/v1/validate", files=upload(source), timeout=60) for _ in range(6)]
    assert [a.status_code for a in answers] == [200] * 6
    assert len({a.text for a in answers}) == 1


def test_the_command_line_hands_its_settings_to_each_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """``formatkit serve`` starts uvicorn on the importable application, its settings in FORMATKIT_SERVE_*
    (the token by its variable's name, never its value); an open address runs with a token or --no-auth."""
    import uvicorn

    from formatkit.serve import Settings

    for name in Settings().to_env(None):
        monkeypatch.setenv(name, "")  # restored (removed) after the test
    monkeypatch.setenv("FK_TEST_TOKEN", TOKEN)
    started: list[tuple[str, dict[str, object]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda target, **options: started.append((target, options)))
    runner = CliRunner()
    options = ["--max-files", "3", "--max-upload-mb", "2.5", "--lang", "zh", "--checks", "4", "--time-limit", "9"]
    first = runner.invoke(
        cli, ["serve", "--host", "0.0.0.0", "--port", "8123", "--token-env", "FK_TEST_TOKEN", *options]
    )
    settings = Settings.from_env()
    assert first.exit_code == 0, first.output
    assert TOKEN not in " ".join(f"{k}={v}" for k, v in os.environ.items() if k.startswith("FORMATKIT_SERVE_"))
    open_run = runner.invoke(cli, ["serve", "--host", "0.0.0.0", "--no-auth", "--workers", "2"])
    assert open_run.exit_code == 0, open_run.output
    assert [target for target, _ in started] == ["formatkit.serve:app", "formatkit.serve:app"]
    assert {k: started[0][1][k] for k in ("host", "port", "workers")} == {"host": "0.0.0.0", "port": 8123, "workers": 1}
    assert (settings.token, settings.max_files, settings.max_upload_mb, settings.lang) == (TOKEN, 3, 2.5, "zh")
    assert (settings.checks, settings.time_limit) == (4, 9.0)
    assert Settings.from_env().token is None and started[1][1]["workers"] == 2


@pytest.mark.slow
def test_a_full_size_zip_bomb_is_refused_by_a_real_server(tmp_path: Path) -> None:
    """At the reader's real bounds (a part over 100 MiB packed better than 1000:1): ~110 kB uploaded, refused
    unpacked, on every route."""
    import io
    import zipfile

    source = FIXTURES / "fix" / "clean.xlsx"
    packed = io.BytesIO()
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as dst:
        for item in src.namelist():
            body = src.read(item)
            if item == "xl/worksheets/sheet1.xml":
                body = body.replace(b"<sheetData>", b"<sheetData>" + b" " * 110 * 1024**2, 1)
            dst.writestr(item, body)
    bomb = packed.getvalue()
    assert len(bomb) < 1024**2
    with running(tmp_path, "--max-upload-mb", "1") as server:
        answers = {
            route: httpx.post(f"{server.base}/v1/{route}", files=[("file", ("bomb.xlsx", bomb))], timeout=120)
            for route in ("validate", "fix", "convert")
        }
    assert {route: a.status_code for route, a in answers.items()} == {"validate": 200, "fix": 200, "convert": 422}
    assert all("zip bomb" in a.text for a in answers.values())
