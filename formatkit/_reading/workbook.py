"""The first sheet of a workbook, whatever the file kind: :func:`read_sheet` sniffs the file's bytes (not
only its name) and hands it to the reader of its kind, by the signatures of the table of input formats
(:data:`formatkit._core.formats.INPUT_FORMATS`: :mod:`formatkit._reading.xlsx`, :mod:`formatkit._reading.xls`)."""

from __future__ import annotations

from pathlib import Path

from formatkit._core.formats import INPUT_FORMATS, load
from formatkit._core.messages import Msg
from formatkit._reading.cells import SheetData, Unreadable

__all__ = ["read_sheet"]

_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED = "EncryptedPackage".encode("utf-16-le")


def read_sheet(path: Path, sheet: str | None = None) -> SheetData:
    """Read the first worksheet of ``path`` (or the one named ``sheet``); :class:`Unreadable` when the file
    is not a usable workbook or has no such sheet."""
    try:
        return _read_sheet(path, sheet)
    except Unreadable:
        raise
    except (RecursionError, MemoryError):
        raise Unreadable("unreadable_file", Msg("unreadable_file.too_large")) from None
    except Exception as exc:  # a damaged file can fail in ways no library documents: never a traceback
        raise Unreadable(
            "unreadable_file",
            Msg("unreadable_file.damaged", error=f"{type(exc).__name__}: {str(exc)[:120]}"),
        ) from None


def _read_sheet(path: Path, sheet: str | None) -> SheetData:
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        raise Unreadable("unreadable_file", Msg("unreadable_file.cannot_open", reason=exc.strerror or exc)) from None
    if not head:
        raise Unreadable("empty_file", Msg("empty_file.workbook"))
    suffix = path.suffix.lower()
    named = INPUT_FORMATS.get(suffix)
    kind = _sniffed(head)
    if kind is None:
        if named is not None and named.sheet is not None and not named.signatures:
            found: SheetData = load(named.sheet)(path, sheet)  # a table format known by its name only
            return found
        raise Unreadable("unreadable_file", _not_a_workbook(path, suffix))
    if head == _OLE and _is_encrypted(path):
        raise Unreadable("unreadable_file", Msg("unreadable_file.encrypted"))
    if named is not None and named.signatures and named is not INPUT_FORMATS[kind]:
        # the other workbook kind's name: unreadable_file.xlsx_named_xls, unreadable_file.xls_named_xlsx
        raise Unreadable("unreadable_file", Msg(f"unreadable_file.{kind[1:]}_named_{suffix[1:]}"))
    reader = INPUT_FORMATS[kind].sheet
    assert reader is not None
    result: SheetData = load(reader)(path, sheet)
    return result


def _sniffed(head: bytes) -> str | None:
    """The extension of the format whose signature ``head`` starts with (:data:`INPUT_FORMATS`), if any."""
    for suffix, known in INPUT_FORMATS.items():
        if known.signatures and known.sheet is not None and head.startswith(known.signatures):
            return suffix
    return None


def _is_encrypted(path: Path) -> bool:
    """An encrypted .xlsx is an OLE container holding an ``EncryptedPackage`` stream."""
    try:
        with path.open("rb") as handle:
            # The directory sits near the start for the small header; read a bounded amount.
            data = handle.read(1024 * 1024)
    except OSError:
        return False
    return _ENCRYPTED in data


def _not_a_workbook(path: Path, suffix: str) -> Msg:
    with path.open("rb") as handle:
        sample = handle.read(4096)
    text = sample.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    kind = suffix or "Excel"
    if text.startswith((b"<html", b"<!doctype html", b"<table", b"<meta")):
        return Msg("unreadable_file.html", kind=kind)
    if text.startswith(b"<?xml"):
        return Msg("unreadable_file.xml", kind=kind)
    if _looks_like_text(sample):
        return Msg("unreadable_file.text", kind=kind)
    return Msg("unreadable_file.other", kind=kind, head=sample[:8].hex(" "))


def _looks_like_text(sample: bytes) -> bool:
    if b"\x00" in sample:
        return False
    for encoding in ("utf-8", "gb18030"):
        for cut in range(4):  # the sample may end inside a multi-byte character
            try:
                sample[: len(sample) - cut].decode(encoding)
            except UnicodeDecodeError:
                continue
            return True
    return False
