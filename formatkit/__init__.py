"""formatkit: validate, convert, run and score LLM evaluation sets kept in Excel and jsonl.

The public API::

    from formatkit import validate_file, validate_files, iter_records, iter_dicts, convert
    report = validate_file("set.xlsx", mode="infer-eval", profile="platform")
    for issue in report.issues: print(issue.code, issue.place, issue.message)

Names are loaded on first use, so ``import formatkit`` stays cheap for the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from formatkit.lazy import lazy_getattr

__version__ = "0.1.0"

_EXPORTS = {
    "validate_file": "formatkit.validate",
    "validate_files": "formatkit.validate",
    "iter_records": "formatkit.validate",
    "iter_dicts": "formatkit.validate",
    "convert": "formatkit.conversion",
    "export_excel": "formatkit.export",
    "Issue": "formatkit.issues",
    "FileReport": "formatkit.issues",
    "Report": "formatkit.issues",
    "CODES": "formatkit.codes",
    "Record": "formatkit.models",
    "Message": "formatkit.models",
    "Response": "formatkit.models",
    "Usage": "formatkit.models",
    "Meta": "formatkit.models",
    "SourceLocation": "formatkit.models",
    "record_to_dict": "formatkit.models",
    "FormatkitError": "formatkit.errors",
    "InvalidFileError": "formatkit.errors",
    "UnreadablePathError": "formatkit.errors",
    "OutputError": "formatkit.errors",
    "Mode": "formatkit.modes",
    "Profile": "formatkit.modes",
}

__all__ = [
    "CODES",
    "FileReport",
    "FormatkitError",
    "InvalidFileError",
    "Issue",
    "Message",
    "Meta",
    "Mode",
    "OutputError",
    "Profile",
    "Record",
    "Report",
    "Response",
    "SourceLocation",
    "UnreadablePathError",
    "Usage",
    "__version__",
    "convert",
    "export_excel",
    "iter_dicts",
    "iter_records",
    "record_to_dict",
    "validate_file",
    "validate_files",
]


__getattr__ = lazy_getattr(globals(), _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from formatkit.codes import CODES
    from formatkit.conversion import convert
    from formatkit.errors import FormatkitError, InvalidFileError, OutputError, UnreadablePathError
    from formatkit.export import export_excel
    from formatkit.issues import FileReport, Issue, Report
    from formatkit.models import Message, Meta, Record, Response, SourceLocation, Usage, record_to_dict
    from formatkit.modes import Mode, Profile
    from formatkit.validate import iter_dicts, iter_records, validate_file, validate_files
