"""Receiving an upload: the multipart body read as it streams in, each file part written straight to a
private folder, the limits enforced on the bytes actually received (a Content-Length may lie or be absent).

Each file lands in a directory of its own with a random name, under the request's folder (mode 0700); the
file inside keeps the upload's filename, sanitised to one plain name (no directory part, no control
characters, never ``.`` or ``..``): validate reports a file by its name, takes its dataset from its stem and
its format from its extension, so the name is part of what is checked. The raw filename is never joined to
a path. The caller removes the request's folder after the response, whatever happened.
"""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from python_multipart import MultipartParser
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import parse_options_header
from starlette.requests import Request

__all__ = ["MEGABYTE", "Upload", "UploadRefused", "receive_files", "safe_name"]

#: The longest file name (bytes, UTF-8) a file system is sure to take.
_NAME_BYTES = 200
#: --max-upload-mb counts in these (as nginx's client_max_body_size does).
MEGABYTE = 1024 * 1024
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\]")


class UploadRefused(Exception):
    """The upload is not taken: ``reason`` is a ``ui.serve.<reason>`` message, ``status`` the HTTP status."""

    def __init__(self, status: int, reason: str, **params: object) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.params = params


@dataclass
class Upload:
    """One uploaded file: the name the reports give it (the upload's filename, sanitised) and where it is."""

    name: str
    path: Path


def safe_name(filename: str) -> str:
    """The upload's filename as one plain file name: its last component (``/`` or ``\\`` separated), control
    characters dropped, at most 200 bytes (the extension kept), never empty, ``.`` or ``..``."""
    last = re.split(r"[/\\]", filename)[-1]
    name = _UNSAFE.sub("", last).strip()
    if name in ("", ".", ".."):
        return "upload"
    if len(name.encode("utf-8")) > _NAME_BYTES:
        stem, dot, suffix = name.rpartition(".")
        suffix = dot + suffix if dot and len(suffix.encode("utf-8")) <= 16 else ""
        stem = name[: len(name) - len(suffix)] if suffix else name
        budget = _NAME_BYTES - len(suffix.encode("utf-8"))
        stem = stem.encode("utf-8")[:budget].decode("utf-8", "ignore")
        name = stem + suffix
    return name


@dataclass
class _Part:
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    field_name: str = ""
    handle: IO[bytes] | None = None


class _Receiver:
    """python-multipart's callbacks: file parts named ``file`` go to disk, other fields are skipped."""

    def __init__(self, folder: Path, max_files: int) -> None:
        self.folder = folder
        self.max_files = max_files
        self.uploads: list[Upload] = []
        self.other_parts = 0
        #: The closing boundary was read: a body cut short is malformed, not a shorter file.
        self.ended = False
        self._part = _Part()
        self._name = b""
        self._value = b""

    def on_part_begin(self) -> None:
        self._part = _Part()

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def on_header_end(self) -> None:
        self._part.headers.append((self._name.lower(), self._value))
        self._name, self._value = b"", b""

    def on_headers_finished(self) -> None:
        disposition = next((value for name, value in self._part.headers if name == b"content-disposition"), b"")
        _kind, options = parse_options_header(disposition)
        name = options.get(b"name", b"").decode("utf-8", "replace")
        filename = options.get(b"filename")
        if name != "file" or filename is None:
            self.other_parts += 1
            if self.other_parts > 20:  # a body of empty fields is no upload
                raise UploadRefused(400, "no_files")
            return
        if len(self.uploads) >= self.max_files:
            raise UploadRefused(413, "too_many_files", limit=self.max_files)
        shown = safe_name(filename.decode("utf-8", "replace"))
        place = self.folder / secrets.token_hex(8)
        place.mkdir(mode=0o700)
        path = place / shown
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        self._part.handle = os.fdopen(descriptor, "wb")
        self.uploads.append(Upload(shown, path))

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._part.handle is not None:
            self._part.handle.write(data[start:end])

    def on_part_end(self) -> None:
        self.close()

    def on_end(self) -> None:
        self.ended = True

    def close(self) -> None:
        if self._part.handle is not None:
            self._part.handle.close()
            self._part.handle = None


async def receive_files(
    request: Request,
    folder: Path,
    *,
    max_files: int,
    max_mb: float | None = None,
    max_bytes: int | None = None,
) -> list[Upload]:
    """Read the request's multipart body into ``folder``: the parts named ``file``, in order.

    UploadRefused: 413 when the body passes ``max_mb`` megabytes, or ``max_bytes`` (said by Content-Length, or
    counted as it arrives: reading stops there) or holds more than ``max_files`` files; 400 when it is not
    multipart, is malformed or holds no file. A client that goes away mid-upload ends it with starlette's
    ClientDisconnect.
    """
    if max_mb is None:
        if max_bytes is None:
            raise TypeError("receive_files: give max_mb or max_bytes")
        max_mb = max_bytes / MEGABYTE
    max_bytes = int(max_mb * MEGABYTE)
    kind, options = parse_options_header(request.headers.get("content-type", ""))
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise UploadRefused(400, "not_multipart")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise UploadRefused(413, "upload_too_large", limit=f"{max_mb:g}")
    receiver = _Receiver(folder, max_files)
    callbacks = {
        "on_part_begin": receiver.on_part_begin,
        "on_part_data": receiver.on_part_data,
        "on_part_end": receiver.on_part_end,
        "on_header_field": receiver.on_header_field,
        "on_header_value": receiver.on_header_value,
        "on_header_end": receiver.on_header_end,
        "on_headers_finished": receiver.on_headers_finished,
        "on_end": receiver.on_end,
    }
    parser = MultipartParser(boundary, callbacks)  # type: ignore[arg-type]
    received = 0
    try:
        async for chunk in request.stream():
            received += len(chunk)
            if received > max_bytes:
                raise UploadRefused(413, "upload_too_large", limit=f"{max_mb:g}")
            parser.write(chunk)
        parser.finalize()
    except FormParserError:
        raise UploadRefused(400, "malformed") from None
    finally:
        receiver.close()
    if not receiver.ended:
        raise UploadRefused(400, "malformed")
    if not receiver.uploads:
        raise UploadRefused(400, "no_files")
    return receiver.uploads
