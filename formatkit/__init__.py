"""formatkit: validate, convert, run and score LLM evaluation sets kept in Excel and jsonl.

The public API::

    from formatkit import validate_file, validate_files, iter_records, iter_dicts, convert
    report = validate_file("set.xlsx", mode="infer-eval", profile="platform")
    for issue in report.issues: print(issue.code, issue.place, issue.message)

One name per file operation: ``validate_file(s)``, ``convert``, ``fix_file``, ``export_excel``, ``write_shape``
(another tool's shape), ``read_batch`` (a batch API's replies into their set).

Public submodules, each a face of its own: :mod:`formatkit.errors` (every error), :mod:`formatkit.messages`
(the catalogues, ``--lang``), :mod:`formatkit.codes` (issue codes), :mod:`formatkit.files` (a CSV file's
rows as formatkit reads them), :mod:`formatkit.parameters` (the parameter table), :mod:`formatkit.schema`
(JSON Schemas). Every other module is private (the command line's own helpers are in ``formatkit._cli_support``).

Names are loaded on first use, so ``import formatkit`` stays cheap for the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from formatkit._lazy import lazy_getattr

__version__ = "0.1.0"

_EXPORTS = {
    "CODES": "formatkit._core.codes",
    "validate_file": "formatkit._api.validate",
    "validate_files": "formatkit._api.validate",
    "iter_records": "formatkit._api.validate",
    "iter_dicts": "formatkit._api.validate",
    "convert": "formatkit._api.conversion",
    "fix_file": "formatkit._api.fix",
    "FixResult": "formatkit._api.fix",
    "export_excel": "formatkit._api.export",
    "SHAPES": "formatkit._rules.shapes",
    "write_shape": "formatkit._api.shapes",
    "ShapeWritten": "formatkit._api.shapes",
    "read_batch": "formatkit._api.batch",
    "BatchRead": "formatkit._api.batch",
    "Issue": "formatkit._core.issues",
    "FileReport": "formatkit._core.issues",
    "Report": "formatkit._core.issues",
    "Record": "formatkit._core.models",
    "Message": "formatkit._core.models",
    "Response": "formatkit._core.models",
    "Usage": "formatkit._core.models",
    "Meta": "formatkit._core.models",
    "SourceLocation": "formatkit._core.models",
    "record_to_dict": "formatkit._core.models",
    "MessageDict": "formatkit._core.record",
    "MetaDict": "formatkit._core.record",
    "RecordDict": "formatkit._core.record",
    "ResponseDict": "formatkit._core.record",
    "SourceDict": "formatkit._core.record",
    "UsageDict": "formatkit._core.record",
    "pending_turns": "formatkit._core.record",
    "reference_of": "formatkit._core.record",
    "response_of": "formatkit._core.record",
    "score_entries": "formatkit._core.record",
    "target_responses": "formatkit._core.record",
    "target_turn": "formatkit._core.record",
    "Mode": "formatkit._core.modes",
    "Profile": "formatkit._core.modes",
}

__all__ = [
    "CODES",
    "SHAPES",
    "BatchRead",
    "FileReport",
    "FixResult",
    "Issue",
    "Message",
    "MessageDict",
    "Meta",
    "MetaDict",
    "Mode",
    "Profile",
    "Record",
    "RecordDict",
    "Report",
    "Response",
    "ResponseDict",
    "ShapeWritten",
    "SourceDict",
    "SourceLocation",
    "Usage",
    "UsageDict",
    "__version__",
    "convert",
    "export_excel",
    "fix_file",
    "iter_dicts",
    "iter_records",
    "pending_turns",
    "read_batch",
    "record_to_dict",
    "reference_of",
    "response_of",
    "score_entries",
    "target_responses",
    "target_turn",
    "validate_file",
    "validate_files",
    "write_shape",
]


__getattr__ = lazy_getattr(globals(), _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from formatkit._api.batch import BatchRead, read_batch
    from formatkit._api.conversion import convert
    from formatkit._api.export import export_excel
    from formatkit._api.fix import FixResult, fix_file
    from formatkit._api.shapes import SHAPES, ShapeWritten, write_shape
    from formatkit._api.validate import iter_dicts, iter_records, validate_file, validate_files
    from formatkit._core.codes import CODES
    from formatkit._core.issues import FileReport, Issue, Report
    from formatkit._core.models import Message, Meta, Record, Response, SourceLocation, Usage, record_to_dict
    from formatkit._core.modes import Mode, Profile
    from formatkit._core.record import (
        MessageDict,
        MetaDict,
        RecordDict,
        ResponseDict,
        SourceDict,
        UsageDict,
        pending_turns,
        reference_of,
        response_of,
        score_entries,
        target_responses,
        target_turn,
    )
