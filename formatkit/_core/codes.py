"""Every issue code formatkit can report, with its severity and a one-line summary.

Codes are a public contract (scripts filter on them): add codes, never rename one. Each code here has
at least one fixture in ``fixtures/invalid`` and a test that finds it at its place
(``tests/test_rules.py`` checks that no code is left without one).
"""

from __future__ import annotations

from typing import Literal

from formatkit._core.formats import listed_suffixes

__all__ = ["CODES", "Code", "Severity", "describe"]

Severity = Literal["error", "warning"]

#: Every code as a type: ``IssueSink.add("no_such_code", ...)`` is a mypy error, not a KeyError at run time.
#: tests/formats/test_codes.py checks that it lists exactly the keys of :data:`CODES`.
Code = Literal[
    "unsupported_extension",
    "too_many_files",
    "too_many_rows",
    "empty_file",
    "no_records",
    "unreadable_file",
    "extra_sheet",
    "merged_cells",
    "formula_without_value",
    "missing_column",
    "header_not_first_row",
    "unknown_column",
    "duplicate_column",
    "missing_header",
    "header_not_normalized",
    "alias_column",
    "empty_row",
    "date_cell",
    "boolean_cell",
    "error_cell",
    "cell_too_long",
    "number_format",
    "long_number",
    "stale_formula_value",
    "hidden_rows",
    "hidden_columns",
    "totals_row",
    "csv_encoding",
    "formula_text",
    "not_utf8",
    "utf8_bom",
    "blank_line",
    "invalid_json",
    "line_not_object",
    "non_finite_number",
    "duplicate_key",
    "lone_surrogate",
    "number_too_large",
    "line_too_long",
    "nested_too_deep",
    "mixed_shapes",
    "unknown_key",
    "alias_key",
    "missing_field",
    "invalid_type",
    "empty_text",
    "empty_messages",
    "invalid_role",
    "misplaced_system",
    "last_message_not_user",
    "target_not_assistant",
    "invalid_session_id",
    "missing_session_id",
    "duplicate_session_id",
    "mixed_session_ids",
    "session_not_consecutive",
    "system_prompt_mismatch",
    "parameters_mismatch",
    "missing_reference",
    "unused_reference",
    "misplaced_reference",
    "unexpected_response",
    "missing_response",
    "invalid_parameters",
    "unknown_parameter",
    "engine_parameter",
    "invalid_parameter_type",
    "parameter_out_of_range",
    "shape_field_lost",
    "shape_record_unfit",
    "unknown_custom_id",
    "batch_other_model",
    "rows_missing",
    "invalid_row_key",
]

CODES: dict[Code, tuple[Severity, str]] = {
    # --- files and uploads -------------------------------------------------------------------------
    "unsupported_extension": ("error", f"Only {listed_suffixes(', ', ' and ')} files can be read."),
    "too_many_files": ("error", "The platform accepts at most 10 files per upload."),
    "too_many_rows": ("error", "The platform accepts at most 1,000 rows (Excel) or lines (jsonl) per file."),
    "empty_file": ("error", "The file holds nothing."),
    "no_records": ("error", "The file has no data rows or lines."),
    "unreadable_file": ("error", "The file could not be read at all (corrupt, truncated or another format)."),
    # --- Excel: workbook and sheet -------------------------------------------------------------------
    "extra_sheet": ("warning", "Only the first sheet is read; another sheet holds data."),
    "merged_cells": ("error", "Merged cells hide values from every cell but the first."),
    "formula_without_value": ("error", "A formula cell has no saved result to read."),
    "missing_column": ("error", "A required column is missing from the header row."),
    "header_not_first_row": ("error", "The header is below title or note rows instead of on row 1."),
    "unknown_column": ("error", "A header names no known column."),
    "duplicate_column": ("error", "Two header cells name the same column."),
    "missing_header": ("error", "A column holds data but has no header."),
    "header_not_normalized": ("warning", "A header matches a known column only after trimming or case-folding."),
    "alias_column": ("warning", "A header uses an alias of a known column."),
    "empty_row": ("warning", "An empty row stands between data rows."),
    "date_cell": ("error", "A date stands in a text column."),
    "boolean_cell": ("error", "TRUE/FALSE stands in a text column."),
    "error_cell": ("error", "An Excel error value (#N/A, #REF!, ...) stands in a cell."),
    "cell_too_long": ("error", "A cell holds more than Excel's 32,767 characters."),
    "number_format": ("warning", "A number cell shows other text than its stored value (its number format)."),
    "long_number": ("warning", "A number of more than 15 digits stands in a text column: Excel keeps only 15."),
    "stale_formula_value": ("error", "A formula's saved value is marked stale by the workbook (fullCalcOnLoad)."),
    "hidden_rows": ("warning", "Rows of the table are hidden or filtered out in Excel, yet read."),
    "hidden_columns": ("warning", "Columns of the table are hidden in Excel, yet read."),
    "totals_row": ("warning", "An Excel table's totals row stands among the data rows."),
    # --- CSV: text -----------------------------------------------------------------------------------
    "csv_encoding": ("warning", "A CSV file is not UTF-8 (it was read as GBK); its output is UTF-8."),
    "formula_text": ("warning", "A CSV cell starts with =: Excel would compute it as a formula; the text is read."),
    # --- jsonl: lines --------------------------------------------------------------------------------
    "not_utf8": ("error", "The file is not UTF-8 text."),
    "utf8_bom": ("warning", "The file starts with a byte-order mark."),
    "blank_line": ("warning", "A blank line stands in the file."),
    "invalid_json": ("error", "A line is not valid JSON."),
    "line_not_object": ("error", "A line is valid JSON but not an object."),
    "non_finite_number": ("error", "NaN or Infinity is not JSON."),
    "duplicate_key": ("error", "The same key appears twice in one object."),
    "lone_surrogate": ("error", "A string holds a lone UTF-16 surrogate (\\ud800), which is not text."),
    "number_too_large": ("error", "An integer is beyond the 64-bit range that JSON readers keep exactly."),
    "line_too_long": ("error", "A jsonl line is longer than a record may be (64 MiB); it was skipped."),
    "nested_too_deep": ("error", "A jsonl line nests arrays and objects deeper than a record may (254 levels)."),
    "mixed_shapes": ("error", "Lines of different shapes stand in one file."),
    "unknown_key": ("error", "An object holds a key that is not part of the format."),
    "alias_key": ("warning", "A key uses an accepted alias of the format's name."),
    "missing_field": ("error", "A required field is missing."),
    "invalid_type": ("error", "A field holds a value of the wrong type."),
    # --- conversations -------------------------------------------------------------------------------
    "empty_text": ("error", "A required text is empty or only whitespace."),
    "empty_messages": ("error", "A conversation has no messages."),
    "invalid_role": ("error", "A message role is not system, user or assistant."),
    "misplaced_system": ("error", "A system message stands after the first message."),
    "last_message_not_user": ("error", "The conversation does not end with the user's turn."),
    "target_not_assistant": ("error", "A canonical record does not end with the target assistant turn."),
    # --- session ids ---------------------------------------------------------------------------------
    "invalid_session_id": ("error", "A session_id is not an integer."),
    "missing_session_id": ("error", "A multi-turn row has no session_id."),
    "duplicate_session_id": ("error", "Two records share a session_id."),
    "mixed_session_ids": ("error", "Some rows have a session_id and some do not, while ids repeat."),
    "session_not_consecutive": ("warning", "A session's rows are interleaved with another session's."),
    "system_prompt_mismatch": ("error", "Rows of one session have different system prompts."),
    "parameters_mismatch": ("error", "An earlier row of a session has parameters that differ from the last row's."),
    # --- references and responses by mode ------------------------------------------------------------
    "missing_reference": ("error", "The target turn has no reference answer, which this mode needs."),
    "unused_reference": ("warning", "A reference answer is given in infer-only mode and will not be used."),
    "misplaced_reference": ("error", "A reference answer stands on a row that is not the session's last."),
    "unexpected_response": ("error", "The target turn already has a response, in a mode that infers it."),
    "missing_response": ("error", "The target turn has no response, which scored mode needs."),
    # --- parameters ----------------------------------------------------------------------------------
    "invalid_parameters": ("error", "parameters is not a dict (JSON object or Python dict literal)."),
    "unknown_parameter": ("error", "parameters holds an unknown key."),
    "engine_parameter": ("warning", "parameters holds a serving engine's key (vLLM, SGLang), not an OpenAI one."),
    "invalid_parameter_type": ("error", "A parameter has a value of the wrong type."),
    "parameter_out_of_range": ("error", "A parameter's value is outside its allowed range."),
    # --- other tools' shapes (convert --to, --from) ----------------------------------------------------
    "shape_field_lost": ("warning", "The other tool's shape cannot hold a field of the records: it is not written."),
    "shape_record_unfit": ("error", "A record cannot be written in the other tool's shape at all."),
    "unknown_custom_id": ("error", "A batch reply answers no pending turn of the set it is read into."),
    "batch_other_model": (
        "warning",
        "A batch reply names another model than the request or the batch's other replies.",
    ),
    # --- an exported sheet people sorted, filtered or trimmed (its row_key column) ---------------------
    "rows_missing": ("warning", "Rows export wrote (their row_key says so) are no longer in the sheet."),
    "invalid_row_key": ("warning", "A row_key is not one export writes, or repeats another's: sheet order is used."),
}


def describe(code: str) -> tuple[Severity, str]:
    """Severity and one-line summary of a code read back from a report, where it is a plain string."""
    for known, entry in CODES.items():
        if known == code:
            return entry
    raise KeyError(code)
