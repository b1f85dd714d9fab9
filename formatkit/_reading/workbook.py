"""The first sheet of a workbook, whatever the file kind: :func:`read_sheet` sniffs the file's bytes (not
only its name) and hands it to the reader of its kind (:mod:`formatkit._reading.xlsx`,
:mod:`formatkit._reading.xls`)."""

from __future__ import annotations

from pathlib import Path

from formatkit._reading.cells import SheetData, Unreadable

__all__ = ["read_sheet"]

_ZIP = b"PK\x03\x04"
_ZIP_EMPTY = b"PK\x05\x06"
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED = "EncryptedPackage".encode("utf-16-le")
_RESAVE = "Open it in Excel (or WPS) and save it again as .xlsx"


def read_sheet(path: Path) -> SheetData:
    """Read the first worksheet of ``path``; :class:`Unreadable` when the file is not a usable workbook."""
    try:
        return _read_sheet(path)
    except Unreadable:
        raise
    except (RecursionError, MemoryError):
        raise Unreadable(
            "unreadable_file", "The workbook is too large or too deeply nested to read. Split the data."
        ) from None
    except Exception as exc:  # a damaged file can fail in ways no library documents: never a traceback
        raise Unreadable(
            "unreadable_file",
            f"The workbook is damaged and could not be read ({type(exc).__name__}: {str(exc)[:120]}). Open "
            "it in Excel and save it again.",
        ) from None


def _read_sheet(path: Path) -> SheetData:
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        raise Unreadable("unreadable_file", f"The file could not be opened: {exc.strerror or exc}.") from None
    if not head:
        raise Unreadable("empty_file", "The file is empty (0 bytes). Save the workbook from Excel again.")
    suffix = path.suffix.lower()
    if head.startswith((_ZIP, _ZIP_EMPTY)):
        if suffix == ".xls":
            raise Unreadable(
                "unreadable_file",
                "The file is named .xls but is an .xlsx workbook inside (Excel 2007 or later). Rename it to .xlsx.",
            )
        from formatkit._reading.xlsx import read_xlsx

        return read_xlsx(path)
    if head == _OLE:
        if _is_encrypted(path):
            raise Unreadable(
                "unreadable_file",
                "The workbook is password-protected (encrypted), so its cells cannot be read. Open it in "
                "Excel, remove the password (File → Info → Protect Workbook → Encrypt with Password, clear "
                "it) and save it again.",
            )
        if suffix == ".xlsx":
            raise Unreadable(
                "unreadable_file",
                "The file is named .xlsx but is an old .xls workbook inside (Excel 97-2003). Rename it to "
                ".xls, or open it in Excel and save it again as .xlsx (Excel Workbook).",
            )
        from formatkit._reading.xls import read_xls

        return read_xls(path)
    raise Unreadable("unreadable_file", _not_a_workbook(path, suffix))


def _is_encrypted(path: Path) -> bool:
    """An encrypted .xlsx is an OLE container holding an ``EncryptedPackage`` stream."""
    try:
        with path.open("rb") as handle:
            # The directory sits near the start for the small header; read a bounded amount.
            data = handle.read(1024 * 1024)
    except OSError:
        return False
    return _ENCRYPTED in data


def _not_a_workbook(path: Path, suffix: str) -> str:
    with path.open("rb") as handle:
        sample = handle.read(4096)
    text = sample.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    kind = suffix or "Excel"
    if text.startswith((b"<html", b"<!doctype html", b"<table", b"<meta")):
        return (
            f"The file is named {kind} but is a web page (HTML), as some systems export tables. "
            f"{_RESAVE} (File → Save As → Excel Workbook)."
        )
    if text.startswith(b"<?xml"):
        return f"The file is named {kind} but is an XML document (perhaps Excel 2003 XML). {_RESAVE}."
    if _looks_like_text(sample):
        return f"The file is named {kind} but holds plain text (CSV or tab-separated?), not a workbook. {_RESAVE}."
    return (
        f"The file is named {kind} but is not an Excel workbook (its first bytes are "
        f"{sample[:8].hex(' ')}); it may be damaged or of another kind. {_RESAVE}."
    )


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
