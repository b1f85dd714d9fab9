# ruff: noqa: E501  (request and reply lines are test data, kept one per line)
"""A small fake of a provider's batch endpoint (OpenAI's ``/v1/files`` and ``/v1/batches``), on 127.0.0.1.

    server = FakeBatch(answer=lambda body: "2").start()
    server.base_url                  # "http://127.0.0.1:PORT/v1"
    POST /v1/files                   # multipart upload (purpose=batch): {"id": "file-1", ...}
    POST /v1/batches                 # {"input_file_id", "endpoint", "completion_window"}: {"id": "batch-1", "status": "validating"}
    GET  /v1/batches/{id}            # in_progress on the first poll, completed (with output_file_id) after
    GET  /v1/files/{id}/content      # the output file: one result line per request line
    server.polls, server.requests    # how many status polls, and every request line answered

``answer(body)`` gives a request's reply content; a body whose last user message is ``"FAIL"`` is answered
with an error line, as the provider writes a request that failed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeBatch:
    def __init__(self, answer: Callable[[dict[str, Any]], str]) -> None:
        self.answer = answer
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.polls = 0
        self.requests: list[dict[str, Any]] = []
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeBatch:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: Any, raw: bytes | None = None) -> None:
                body = raw if raw is not None else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path == "/v1/files":
                    boundary = self.headers["Content-Type"].split("boundary=")[1].encode()
                    for part in data.split(b"--" + boundary):
                        if b'name="file"' in part:
                            content = part.split(b"\r\n\r\n", 1)[1].rsplit(b"\r\n", 1)[0]
                            file_id = f"file-{len(fake.files) + 1}"
                            fake.files[file_id] = content
                            self._send(200, {"id": file_id, "object": "file", "purpose": "batch"})
                            return
                    self._send(400, {"error": {"message": "no file part"}})
                elif self.path == "/v1/batches":
                    asked = json.loads(data)
                    if asked.get("input_file_id") not in fake.files or asked.get("endpoint") != "/v1/chat/completions":
                        self._send(400, {"error": {"message": "bad batch"}})
                        return
                    batch_id = f"batch-{len(fake.batches) + 1}"
                    fake.batches[batch_id] = {"id": batch_id, "status": "validating", **asked}
                    self._send(200, fake.batches[batch_id])
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_GET(self) -> None:
                parts = self.path.strip("/").split("/")
                if parts[:2] == ["v1", "batches"] and parts[2] in fake.batches:
                    fake.polls += 1
                    batch = fake.batches[parts[2]]
                    if batch["status"] == "validating":
                        batch["status"] = "in_progress"
                    elif batch["status"] == "in_progress":
                        batch["output_file_id"] = fake._run(batch["input_file_id"])
                        batch["status"] = "completed"
                    self._send(200, batch)
                elif parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[2] in fake.files:
                    self._send(200, None, fake.files[parts[2]])
                else:
                    self._send(404, {"error": {"message": "not found"}})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def _run(self, input_file_id: str) -> str:
        lines = []
        for number, text in enumerate(self.files[input_file_id].decode().splitlines()):
            request = json.loads(text)
            self.requests.append(request)
            body = request["body"]
            last = body["messages"][-1]["content"]
            if last == "FAIL":
                lines.append({"id": f"r{number}", "custom_id": request["custom_id"], "response": None,
                              "error": {"code": "server_error", "message": "the model failed"}})  # fmt: skip
                continue
            content = self.answer(body)
            completion = {
                "id": f"chatcmpl-{number}", "object": "chat.completion", "model": body["model"] + "-2026",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": len(last), "completion_tokens": len(content),
                          "total_tokens": len(last) + len(content)},
            }  # fmt: skip
            lines.append({"id": f"r{number}", "custom_id": request["custom_id"],
                          "response": {"status_code": 200, "request_id": f"q{number}", "body": completion}, "error": None})  # fmt: skip
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode()
        return file_id

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
