"""English: the catalogue every other language follows (see :mod:`formatkit._core.messages`).

``{name}`` fills a field; ``{{`` and ``}}`` are literal braces. Keep every key's fields in every language.
"""

from __future__ import annotations

from formatkit._core.codes import CODES
from formatkit._core.formats import listed_suffixes

_RESAVE = "Open it in Excel (or WPS) and save it again as .xlsx"
_READS = listed_suffixes(", ", " and ")  # the table of input formats: .xlsx, .xls, .jsonl and .csv

MESSAGES: dict[str, str] = {
    # --- files and uploads -------------------------------------------------------------------------
    "unsupported_extension": '"{name}" is a {suffix} file; formatkit reads ' + _READS + ". {fix}",
    "frag.extension_less": "extension-less",
    "frag.convert_format": "Convert it to one of those formats.",
    "too_many_files": "{count} files given; the platform accepts at most {limit} per upload. Upload them "
    "in batches, or use --profile none for local work.",
    "too_many_rows": "Row {row} is data row {index:,}; the platform accepts at most {limit:,} rows per "
    "file, so reading stopped here. The sheet holds {total:,} data rows: split it into {files:,} files of at "
    "most {limit:,} rows, or use --profile none for local work.",
    "too_many_rows.jsonl": "The file has more than {limit} lines, the platform's limit per file; reading "
    "stopped at this line. Split it into several files, or use --profile none for local work.",
    "empty_file.jsonl": "The file is empty. Add one JSON object per line.",
    "empty_file.workbook": "The file is empty (0 bytes). Save the workbook from Excel again.",
    "empty_file.no_worksheet": "The workbook has no worksheet. Put the table on a worksheet.",
    "empty_file.only_charts": "The workbook has no worksheet (only charts or macros). Put the table on a worksheet.",
    "empty_file.sheet": "The workbook holds no data: its first sheet is empty. Put the header in row 1 "
    "(session_id, system_prompt, query, reference_response, parameters, response) and one record per row.",
    "empty_file.named_sheet": 'The workbook holds no data on sheet "{sheet}". Put the header in row 1 '
    "(session_id, system_prompt, query, reference_response, parameters, response) and one record per row.",
    "no_records.header_only": 'Sheet "{sheet}" has a header row but no data rows. Add one row per record '
    "from row 2 on.",
    "no_records.first_sheet_empty": 'The first sheet "{sheet}" is empty and only the first sheet is read; the '
    'data on "{other}" is ignored. Move that sheet to the front (drag its tab to the left), or read it with '
    '--sheet "{other}".',
    "no_records.first_sheet_not_data": 'Row 1 of the first sheet "{sheet}" names no column of an evaluation set '
    '(session_id, query, reference_response, …), and only the first sheet is read; the data on "{other}" is '
    'ignored. If "{other}" holds the records, move it to the front (drag its tab to the left), or read it with '
    '--sheet "{other}".',
    "no_records.first_sheet_empty.no_sheet_option": 'The first sheet "{sheet}" is empty and only the first '
    'sheet is read; the data on "{other}" is ignored. Move that sheet to the front (drag its tab to the left).',
    "no_records.first_sheet_not_data.no_sheet_option": 'Row 1 of the first sheet "{sheet}" names no column of '
    "an evaluation set (session_id, query, reference_response, …), and only the first sheet is read; the data "
    'on "{other}" is ignored. If "{other}" holds the records, move it to the front (drag its tab to the left).',
    "no_records.blank_lines": "The file has no records: only blank lines.",
    "unreadable_file.too_large": "The workbook is too large or too deeply nested to read. Split the data.",
    "unreadable_file.damaged": "The workbook is damaged and could not be read ({error}). Open it in Excel "
    "and save it again.",
    "unreadable_file.duplicate_part": 'The workbook holds its part "{part}" twice (a damaged or tampered '
    "file): which copy Excel would read cannot be told, so neither is read. Open it in Excel and save it again.",
    "unreadable_file.repeated_row": 'Row {row} of sheet "{sheet}" is written twice (or out of order) in the file: '
    "the workbook is damaged, one copy's cells would overwrite the other's, and Excel would repair it. Its cells "
    "cannot be trusted: open it in Excel and save it again.",
    "unreadable_file.shared_string": 'Cell {cell} of sheet "{sheet}" points at shared text number {index}, which '
    "cannot exist: the workbook is damaged, and the cell would be read as another cell's text. Open it in Excel "
    "and save it again.",
    "unreadable_file.damaged_plain": "The workbook is damaged and could not be read. Open it in Excel and "
    "save it again.",
    "unreadable_file.cannot_open": "The file could not be opened: {reason}.",
    "unreadable_file.xlsx_named_xls": "The file is named .xls but is an .xlsx workbook inside (Excel 2007 or "
    "later). Rename it to .xlsx.",
    "unreadable_file.encrypted": "The workbook is password-protected (encrypted), so its cells cannot be read. "
    "Open it in Excel, remove the password (File → Info → Protect Workbook → Encrypt with Password, clear it) "
    "and save it again.",
    "unreadable_file.encrypted_short": "The workbook is password-protected; remove the password.",
    "unreadable_file.xls_encrypted": "The .xls workbook is password-protected (encrypted), so its cells cannot "
    "be read. Open it in Excel, remove the password and save it again.",
    "unreadable_file.xls_named_xlsx": "The file is named .xlsx but is an old .xls workbook inside (Excel "
    "97-2003). Rename it to .xls, or open it in Excel and save it again as .xlsx (Excel Workbook).",
    "unreadable_file.html": "The file is named {kind} but is a web page (HTML), as some systems export tables. "
    + _RESAVE
    + " (File → Save As → Excel Workbook).",
    "unreadable_file.xml": "The file is named {kind} but is an XML document (perhaps Excel 2003 XML). " + _RESAVE + ".",
    "unreadable_file.text": "The file is named {kind} but holds plain text (CSV or tab-separated?), not a "
    "workbook. If it is a CSV, name it .csv (formatkit reads it); else " + _RESAVE[0].lower() + _RESAVE[1:] + ".",
    "unreadable_file.other": "The file is named {kind} but is not an Excel workbook (its first bytes are "
    "{head}); it may be damaged or of another kind. " + _RESAVE + ".",
    "unreadable_file.xls_damaged_kind": "The .xls workbook is damaged or of an unsupported kind ({error}). "
    "Open it in Excel and save it again, preferably as .xlsx.",
    "unreadable_file.xls_damaged": "The .xls workbook is damaged ({error}). Open it in Excel and save it "
    "again, preferably as .xlsx.",
    "unreadable_file.zip_damaged": "The .xlsx file is damaged or truncated (it is not a complete zip archive), "
    "perhaps cut off while downloading or copying. Get the file again, or open it in Excel and save it again.",
    "unreadable_file.not_workbook_zip": "The file is named .xlsx but is {kind}, not an Excel workbook. Export "
    "the table from its program as an Excel workbook (.xlsx).",
    "frag.zip_docx": "a Word document (.docx)",
    "frag.zip_ods": "an OpenDocument file (.ods/.odt)",
    "frag.zip_other": "a zip archive",
    "unreadable_file.zip_bomb": 'The workbook part "{part}" would unpack to {size:,} bytes ({ratio:,.0f} times '
    "its packed size); formatkit refuses it as too large or a zip bomb. Split the data into smaller files.",
    "unreadable_file.sheet_too_large": 'Sheet "{sheet}" reaches row {rows:,} and column {column}: {cells:,} '
    "cells, {why}. Delete stray cells far from the table (Ctrl+End jumps to the last used cell), or split "
    "the data into smaller files.",
    "frag.sparse_sheet": "but only {cells:,} cells hold anything: stray cells far from the table",
    "frag.huge_sheet": "more than formatkit reads ({limit:,})",
    "unreadable_file.no_sheet": 'The workbook has no sheet named "{sheet}"; its sheets are {sheets}. '
    "Give --sheet one of those names.",
    # --- Excel: workbook and sheet -------------------------------------------------------------------
    "extra_sheet": 'Sheet "{sheet}" holds data, but only the first sheet ({first}) is read. Move the records '
    'onto the first sheet, save them as a file of their own, or read that sheet with --sheet "{sheet}".',
    "extra_sheet.no_sheet_option": 'Sheet "{sheet}" holds data, but only the first sheet ({first}) is read. '
    "Move the records onto the first sheet, or save them as a file of their own.",
    "extra_sheet.notes": 'Sheet "{sheet}" is not read: only the first sheet ({first}) is. Its name says it holds '
    "notes for people (formatkit fix moves the title rows above a header to such a sheet), which need no change; "
    "if it holds records, move them onto the first sheet.",
    "frag.first_sheet": '"{sheet}"',
    "frag.first_sheet_hidden": '"{sheet}", which is hidden: right-click a sheet tab → Unhide to see it',
    "merged_cells": "Cells {span} are merged, so only the first of them holds a value. Unmerge them (Home → "
    "Merge & Center → Unmerge Cells) and fill the value into every cell, {example}.",
    "frag.merged_example.session_id": "e.g. the session_id on each row of a session",
    "frag.merged_example.system_prompt": "e.g. the same system_prompt on each row of a session",
    "frag.merged_example.column": "so that each row of {column} holds its own value",
    "frag.merged_example.header": "each header in its own cell of row 1",
    "formula_without_value": "The cell holds a formula whose result was never saved (the file was written by "
    "a program, not Excel), so there is no value to read. Open the file in Excel and save it, or write the "
    "value instead of the formula.",
    "header_not_first_row": "Row {row} looks like the header ({names}), under {count} row(s) of title or notes; "
    "only row 1 is read as the header, so nothing in this sheet was read. Run `formatkit fix` (it moves row(s) "
    "{rows} to a sheet of their own), or delete row(s) {rows} so that the header is row 1.",
    "header_not_first_row.csv": "Row {row} looks like the header ({names}), under {count} row(s) of title or notes; "
    "only row 1 is read as the header, so nothing in this file was read. Run `formatkit fix` (a CSV has no other "
    "sheet: it removes row(s) {rows} from its copy and lists their text), or delete row(s) {rows} so that the "
    "header is row 1.",
    "missing_column": 'Row 1 has no "{name}" column, and {why}. Add a "{name}" column to row 1 (known columns '
    "found: {known}).{hint}",
    "frag.why.query": "every row needs the user's question",
    "frag.why.reference_response": "{mode} mode scores every record against a reference answer (use --mode "
    "infer-only to run inference without scoring)",
    "frag.why.response": "scored mode scores the responses already collected",
    "frag.none": "none",
    "frag.header_below": " Row {row} looks like the header ({names}): delete the rows above it so that it is row 1.",
    "unknown_column": 'Unknown column "{name}" in row 1.{hint} Rename it, or delete the column if it is not '
    "part of the evaluation set.",
    "duplicate_column": 'Column {letter} is "{name}" again; {first} already is. Keep one of them and delete or '
    "rename the other (only the first is read).",
    "missing_header": "Column {letter} holds data but row 1 gives it no header. Name it (one of {columns}) or "
    "delete the column.",
    "header_not_normalized": 'Header "{text}" is read as "{name}"; write it exactly "{name}" (lower case, '
    "half-width, no spaces).",
    "alias_column": 'Header "{text}" is accepted as an alias of "{name}"; rename it to "{name}".',
    "empty_row": "Row {first} is empty between data rows and skipped. Delete empty rows inside the table.",
    "empty_row.span": "Rows {first}-{last} are empty between data rows and skipped. Delete empty rows inside "
    "the table.",
    "date_cell": "The cell holds a date/time ({shown}), not text: Excel converted what was typed. Format the "
    "cell as Text and type the text again.",
    "date_cell.typed": "The cell holds the date {shown}, not text: Excel turns what is typed as {typed} into "
    "a date (and shows it as one). If {typed} was meant (a fraction, a ratio, a score), format the cell as Text "
    "and type {typed} again.",
    "date_cell.typed_time": "The cell holds the time {shown}, not text: Excel turns what is typed as {typed} "
    "into a time of day (and shows it as one). If {typed} was meant (a ratio, a score), format the cell as Text "
    "and type {typed} again.",
    "boolean_cell": "The cell holds the logical value {shown}, not text. Type the text you mean; to keep the "
    "word {shown}, format the cell as Text first (or type '{shown}).",
    "error_cell": "The cell shows the Excel error {error}, usually a broken formula or reference. Fix the "
    "formula or replace it with its value (Copy, then Paste Special → Values).",
    "cell_too_long": "The cell holds {length:,} characters, more than Excel's limit of {limit:,}; Excel would "
    "cut it. Shorten the text, or keep such records in a jsonl file.",
    "number_format": 'The cell shows "{shown}" (number format "{format}") but stores {stored}; the shown text '
    "is used, as Excel displays it, and {stored} is kept in meta.raw_values. If the stored value is meant, "
    "set the cell's format to General (or Text and type it).",
    "number_format.unrendered": 'The cell stores {stored} under the number format "{format}", which formatkit '
    "cannot render; it is read as {stored}. If Excel shows something else, type the text you mean (format "
    "the cell as Text first).",
    "long_number": "The cell holds the number {shown}, not text: Excel keeps only the first 15 digits of a "
    "number, so a longer one typed here (an ID, a phone or card number) lost the digits after them and is read "
    "as {shown}. Format the cell as Text, or type an apostrophe first ('123456789012345678), and type it again.",
    "stale_formula_value": 'The cell holds a formula whose saved value ("{shown}") the workbook itself marks '
    "as out of date (it asks Excel to recalculate everything on opening: pandas and xlsxwriter write a "
    "placeholder 0). Open the file in Excel and save it, or write the value instead of the formula. Text "
    'that starts with "=" must be typed with a leading apostrophe.',
    "hidden_rows": "Row {rows} is {what} in Excel but is read like every other row. Unhide them (select all → "
    "right-click a row number → Unhide; Data → Clear for a filter) and check them, or delete the rows you do "
    "not want evaluated.",
    "hidden_rows.many": "Rows {rows} are {what} in Excel but are read like every other row. Unhide them "
    "(select all → right-click a row number → Unhide; Data → Clear for a filter) and check them, or delete "
    "the rows you do not want evaluated.",
    "frag.hidden": "hidden",
    "frag.filtered": "filtered out by the AutoFilter or hidden",
    "frag.spans_more": "{spans}, … ({count:,} in all)",
    "hidden_columns": "Column {columns} is hidden in Excel but read. Unhide (select all → right-click a column "
    "letter → Unhide) and check them.",
    "hidden_columns.many": "Columns {columns} are hidden in Excel but read. Unhide (select all → right-click a "
    "column letter → Unhide) and check them.",
    "totals_row": "Row {rows} is the totals row of an Excel table and read as a record. Turn it off (Table "
    "Design → Total Row) or delete it.",
    "totals_row.many": "Rows {rows} are the totals row of an Excel table and read as a record. Turn it off "
    "(Table Design → Total Row) or delete it.",
    # --- CSV: text -------------------------------------------------------------------------------------
    "csv_encoding": 'The CSV file is not UTF-8: it was read as {encoding} (what Excel\'s plain "CSV" writes on a '
    "Chinese Windows), and its records are written as UTF-8. Other tools may read it garbled: save it as "
    '"CSV UTF-8 (Comma delimited)" to be read the same way everywhere.',
    "formula_text": "The cell starts with = ({text}): Excel would compute it as a formula when it opens this CSV "
    "and show its result (or #NAME?) instead of the text. The text is read as written; if a value was meant, "
    "write the value.",
    "unreadable_file.csv_quote": "Cell {column}{row} opens a quote that is never closed, so the rest of the file "
    "({lines} line(s)) is one cell, as Excel reads it too. Close the quote (a quote inside a quoted cell is "
    'written twice: "").',
    "unreadable_file.csv_encoding": "The CSV file is neither UTF-8 nor GBK text (Big5, Latin-1, or not text at "
    'all?), so it cannot be read without garbling it. Open it in Excel (or WPS) and save it as "CSV UTF-8 '
    '(Comma delimited)", or as .xlsx.',
    # --- jsonl: lines --------------------------------------------------------------------------------
    "not_utf8": "The file is not UTF-8; it looks like {encoding}{more}. Re-save it as UTF-8, e.g. "
    "`iconv -f {iconv} -t UTF-8 in.jsonl > out.jsonl`.",
    "frag.lines_in_all": " ({count} lines in all)",
    "utf8_bom": "The file starts with a UTF-8 byte-order mark (Windows Notepad adds one). It is skipped here, "
    "but some platforms reject it: save the file as UTF-8 without BOM.",
    "blank_line": "Blank line between records; delete it.",
    "invalid_json": "Line is not valid JSON: {detail}{where}.{hint}",
    "frag.json_error.value": "Expecting value",
    "frag.json_error.property_name": "Expecting property name enclosed in double quotes",
    "frag.json_error.comma": "Expecting ',' delimiter",
    "frag.json_error.colon": "Expecting ':' delimiter",
    "frag.json_error.extra_data": "Extra data",
    "frag.json_error.unterminated_string": "Unterminated string starting at",
    "frag.json_error.control_character": "Invalid control character at",
    "frag.json_error.escape": "Invalid \\escape",
    "frag.json_error.unicode_escape": "Invalid \\uXXXX escape",
    "frag.at_column": " at column {column}",
    "frag.json_one_object": " Each line must hold one whole JSON object; a record may not span lines.",
    "frag.json_trailing_comma_line": " A trailing comma after the object? Delete the comma at the end of the line.",
    "frag.json_trailing_comma": ' A trailing comma before "}}" or "]"? JSON allows none; delete it.',
    "frag.json_array": " This looks like a JSON array or pretty-printed JSON; jsonl needs one object per line.",
    "line_not_object": 'Line holds a JSON {type}, but each line must be one object ({{"prompt": ..., "answer": ...}}).',
    "non_finite_number": "{value} is not valid JSON. Write null, or the number as a string if you need to keep it.",
    "duplicate_key": 'Key "{key}" appears twice in one object; JSON readers keep only one of them. Remove one.',
    "duplicate_key.alias": 'Both "{key}" and "{name}" are given; they mean the same field. Keep "{name}".',
    "lone_surrogate": '"{field}" holds the escape {escape}, half of a UTF-16 surrogate pair with no other half: '
    "it is not a character, and no UTF-8 file can hold it. The text was probably cut in the middle of an "
    "emoji; remove the escape or complete the pair.",
    "lone_surrogate.string": "A string holds the escape {escape}, half of a UTF-16 surrogate pair with no "
    "other half: it is not a character, and no UTF-8 file can hold it. The text was probably cut in the "
    "middle of an emoji; remove the escape or complete the pair.",
    "line_too_long": "The line holds {size:,} bytes, more than the {limit} a record may take; it was skipped. "
    "A file with no line breaks, or a JSON array on one line? jsonl needs one object per line.",
    "nested_too_deep": "The line nests arrays and objects more than {limit} levels deep, deeper than a record "
    "may be written; it was skipped. Flatten the value, or store it as a string.",
    "number_too_large": '"{field}" is an integer of {digits} digits, beyond the 64-bit range (±9.2e18) that '
    "JSON readers keep exactly; it would silently become an approximate number. Use a smaller number, or "
    "write it as a string.",
    "number_too_large.number": '"The number" is an integer of {digits} digits, beyond the 64-bit range '
    "(±9.2e18) that JSON readers keep exactly; it would silently become an approximate number. Use a smaller "
    "number, or write it as a string.",
    "mixed_shapes": "Line is {shape} but the file started as {first}. Put each shape in a file of its own.",
    "frag.shape.jsonl-single-turn": 'single-turn ({{"prompt": ..., "answer": ...}})',
    "frag.shape.jsonl-multi-turn": 'multi-turn ({{"messages": [...], "answer": ...}})',
    "frag.shape.canonical": 'canonical ({{"session_id": ..., "messages": [..., {{"role": "assistant", ...}}]}})',
    "unknown_key": 'Unknown key "{key}" for a {shape} line.{hint}',
    "unknown_key.message": 'Unknown key "{key}" in a message; a message holds only "role" and "content".{hint}',
    "unknown_key.canonical": '"{field}" is not part of the canonical record; remove it or move it into "meta".',
    "alias_key": '"{key}" is accepted as an alias of "{name}"; rename it to "{name}".',
    "missing_field": 'The line has no "{name}"; it is required.',
    "missing_field.messages": 'The line has no "messages": give the conversation as a list of {{"role", "content"}}.',
    "missing_field.role": 'The message has no "role".',
    "missing_field.content": 'The message has no "content".',
    "missing_field.canonical": '"{field}" is missing; the canonical record requires it.',
    "invalid_type": '"{field}" must be {expected}, not a JSON {type}{hint}.',
    "frag.write_as_string": ' (write "{value}")',
    "invalid_type.canonical": '"{field}" must be {expected}, not {value}.',
    "invalid_type.pydantic": '"{field}": {error}.',
    "invalid_type.result": "{name} must be {expected}, not {value}. Fix the value or clear it.",
    # what a field must hold (invalid_type's {expected})
    "frag.expect.text": "text",
    "frag.expect.json_string": "text (a JSON string)",
    "frag.expect.labels": "an object of labels",
    "frag.expect.usage": 'a JSON object ({{"total_tokens": 12}})',
    "frag.expect.messages": "a list of messages",
    "frag.expect.message": 'an object {{"role": ..., "content": ...}}',
    "frag.expect.integer": "an integer",
    "frag.expect.whole_number": "a whole number",
    "frag.expect.number": "a number",
    "frag.expect.boolean": "true or false",
    "frag.expect.list": "a list",
    "frag.expect.object": "an object",
    "frag.expect.string_or_list": "a string or a list of strings",
    "frag.expect.string_list_4": "a list of at most 4 strings",
    "frag.expect.int64": "an integer within 64 bits (±9,223,372,036,854,775,807)",
    "frag.expect.at_least": "at least {minimum:g}",
    "frag.expect.between": "from {minimum:g} to {maximum:g}",
    "frag.expect.greater_than": "greater than {minimum:g}",
    "frag.expect.either": "{value} or {other}",
    "frag.expect.object_example": 'an object such as {{"enable_thinking": false}}',
    "frag.or": "{first} or {second}",
    # a value as found (invalid_type's {value} and {type})
    "frag.json.null": "null",
    "frag.json.boolean": "boolean",
    "frag.json.number": "number",
    "frag.json.string": "string",
    "frag.json.array": "array",
    "frag.json.object": "object",
    "frag.value.number": "the number {value}",
    "frag.value.string": "the string {value}",
    "frag.value.list": "a list",
    "frag.value.object": "an object",
    # --- conversations -------------------------------------------------------------------------------
    "empty_text": "query is empty; every row needs the user's question. Fill it in, or delete the row.",
    "empty_text.field": '"{name}" is empty; write the text of the turn.',
    "empty_text.message": "The {role} message's content is empty; write the text of the turn.",
    "empty_text.canonical": "The {role} message's content is empty.",
    "empty_messages": '"messages" is empty; it needs at least one {{"role": "user", "content": ...}}.',
    "empty_messages.canonical": '"messages" needs at least one user turn and the target assistant turn.',
    "invalid_role": 'Role "{role}" is not one of system, user, assistant.{hint}',
    "invalid_role.canonical": '"{field}" must be system, user or assistant.',
    "misplaced_system": "A system message may only be the first message; move it to the front or merge it "
    "into the first system message.",
    "misplaced_system.canonical": "A system message may only be the first message.",
    "last_message_not_user": 'The last message is "{role}", but the conversation must end with the user\'s '
    "turn that the model answers. {fix}",
    "frag.move_reply_to_answer": 'Move the final assistant reply to "answer".',
    "frag.add_question": "Add the user's question after it.",
    "target_not_assistant": "The last message of a canonical record must be the target assistant turn holding "
    '"reference_response" and "responses".',
    # --- session ids ---------------------------------------------------------------------------------
    "invalid_session_id": "session_id is {problem}; it must be a whole number (0, 1, 2, ...). Rows with the "
    "same number form one multi-turn conversation.",
    "frag.sid.boolean": "the logical value {value}",
    "frag.sid.too_large": "{value}, too large for an id",
    "frag.sid.fraction": "{value}, which has a fraction",
    "frag.sid.text": 'the text "{value}"',
    "frag.sid.date": "a date/time ({value})",
    "invalid_session_id.jsonl": "session_id must be an integer or a string, not a JSON {type}.",
    "missing_session_id": "Row {row} has no session_id, but this file is multi-turn: every row needs the id of "
    "its conversation. Write the id of the session it belongs to, or a new one.",
    "duplicate_session_id": "session_id {sid} is already used on row {first}, and both rows have their own "
    "reference_response. If they are separate records, give each its own session_id (or leave session_id "
    "empty); if they are one multi-turn conversation, keep the reference only on its last row and put the "
    "earlier answers in response.",
    "duplicate_session_id.jsonl": "session_id {sid!r} is already used on line {first}; each record needs its own.",
    "duplicate_session_id.dataset": 'session_id {sid!r} is already used in dataset "{dataset}" on line {first}; '
    "each record needs its own.",
    "duplicate_session_id.files": 'session_id {sid!r} of dataset "{dataset}" is already used by {first}. Both go '
    "into one dataset (a dataset is named after its file, or by meta.dataset), where each record needs its own "
    "id: if one file is a copy of the other, leave it out; else rename one file, give its records their own "
    "meta.dataset, or renumber its session_ids.",
    "duplicate_session_id.files_no_meta": "session_id {sid!r} is already used by {first}. Without meta "
    "(--no-meta) the output names no dataset, so each record needs an id of its own in the whole output: keep "
    "meta, or renumber the session_ids.",
    "frag.place.line": "{file} line {line}",
    "frag.place.row": "{file}, {sheet} row {row}",
    "mixed_session_ids": "session_id {sid} repeats (rows {rows}), so this is a multi-turn file, but {count} "
    "row(s) have no session_id (rows {without}). A file is either single-turn (session_id optional and "
    "unique) or multi-turn (session_id on every row).",
    "mixed_session_ids.jsonl": "session_id {sid} is given on line {given}, and a line without a session_id "
    "(line {without} or the run it starts) also becomes record {sid}, which takes its position as its id: two "
    "records would share it. Give every line a session_id, or none.",
    "session_not_consecutive": "session_id {sid} is on {count} rows that other rows separate: {rows}. A "
    "repeated id makes the file multi-turn and these rows one conversation, in sheet order: any session issue "
    "on these rows follows from that. If this is a single-turn set, ids must be unique (or leave session_id empty); if "
    "it is one conversation, keep its rows together so it reads top to bottom.",
    "system_prompt_mismatch": "system_prompt is filled only on row {first}, the session's first; row(s) "
    "{rows} leave it empty. A conversation has one system prompt: write the same text on every row of the "
    "session.",
    "system_prompt_mismatch.differs": "system_prompt on row(s) {rows} differs from row {first} of the same "
    "session ({found} vs {expected}). A conversation has one system prompt: write the same text on every row "
    "of the session.",
    "frag.empty": "empty",
    "parameters_mismatch": "parameters on row {row} differ from the session's last row (row {last}), which "
    "sets the parameters of the whole conversation. Leave earlier rows empty or make them equal to the last "
    "row's.",
    # --- references and responses by mode ------------------------------------------------------------
    "missing_reference": "The reference answer is empty; {mode} mode scores against it. Fill it in, or use "
    "--mode infer-only to run inference without scoring.",
    "missing_reference.canonical": "The target turn has no reference_response; {mode} mode scores against it.",
    "unused_reference": "A reference answer is given, but infer-only mode does not score, so it will not be "
    "used. Use --mode infer-eval to score against it, or leave it empty.",
    "misplaced_reference": "reference_response is filled on row {row}, but only the session's last row (row "
    "{last}) is scored. Move an earlier reply to the response column (it then becomes conversation history), "
    "or clear the cell.",
    "unexpected_response": "A response is already filled in, but {mode} mode generates it. Leave it empty, or "
    "use --mode scored to score the responses you collected.",
    "missing_response": "The response is empty; scored mode scores responses already collected. Fill in the "
    "model's answer, or use --mode infer-eval to have formatkit run the model.",
    "missing_response.canonical": "The target turn has no response with content; scored mode scores collected "
    "responses. Run `formatkit run` first, or fill responses[].content.",
    # --- parameters ----------------------------------------------------------------------------------
    "invalid_parameters": "parameters is not a dict: {text!r}.{hint} Write it as JSON "
    '({{"temperature": 0.7, "max_tokens": 1024}}) or as a Python dict ({{\'temperature\': 0.7}}).',
    "frag.full_width": " It holds full-width punctuation from a Chinese input method: {found}.",
    "frag.full_width_char": "{char} (write {plain})",
    "invalid_parameters.type": "parameters must be an object of inference parameters, not {type}.",
    "invalid_parameters.jsonl": '"parameters" must be a JSON object such as {{"temperature": 0.7}}, not a JSON {type}.',
    "unknown_parameter": 'parameters has an unknown key "{key}".{hint}',
    "invalid_parameter_type": 'parameters "{key}" must be {expected}, not {value}.',
    "parameter_out_of_range": 'parameters "{key}" is {value}, out of range: it must be {allowed}.',
    "engine_parameter": (
        "parameters {names}: not part of OpenAI's API. vLLM and SGLang accept such keys and formatkit sends "
        "them as written; OpenAI's own API refuses a request that carries them, so keep them only for an "
        "endpoint that serves them."
    ),
    "frag.list_sep": ", ",
    # --- suggestions -----------------------------------------------------------------------------------
    "frag.did_you_mean": ' Did you mean "{name}"?',
    "frag.nested_parameter": ' For vLLM and SGLang it goes inside "{parent}": {{"{parent}": {{"{key}": false}}}}.',
    "frag.known_names": " Known names: {names}.",
    # --- formatkit fix: its changes (fix.<change code>), its lines (fix.ui.*), its words (fix.word.*) ---
    "fix.sheet_moved": 'moved sheet "{sheet}" (the data) from position {position} to the front: only the first sheet is read',
    "fix.title_rows_moved": 'moved row(s) {rows} above the header (title or notes: {text}) to the new sheet "{notes}"; the header is now row 1',
    "fix.header_renamed": 'header "{before}" renamed to "{after}" ({how})',
    "fix.key_renamed": 'key "{before}" renamed to "{after}" ({how})',
    "fix.cells_unmerged": "unmerged {range} and wrote {value} into each of its {count} cells",
    "fix.parameters_rewritten": "parameters {before} rewritten as JSON: {after}",
    "fix.id_trimmed": "session_id {before} trimmed to {after}",
    "fix.formula_to_value": "formula {formula} replaced by its saved value {value} (a rewritten workbook cannot keep a formula's saved value)",
    "fix.bom_removed": "removed the byte-order mark at the start of the file",
    "fix.reencoded": "decoded the file from {encoding} and wrote it as UTF-8 (it reads: {sample})",
    "fix.xls_converted": "rewrote the .xls workbook as .xlsx: values, merged ranges, number formats, column widths and hidden rows and columns are kept; fonts, colours and borders are not",
    "fix.parts_lost": "the copy could not keep {parts} of the original (openpyxl cannot); the original is untouched",
    "fix.title_rows_removed": "removed row(s) {rows} above the header (title or notes: {text}) from the copy: a CSV holds one sheet, and the input keeps them; the header is now row 1",
    "fix.csv_kept": "the copy is a CSV written as the input is ({encoding}, separated by {separator}); rows no repair touched are copied as they were",
    "fix.ui.head": "{source} -> {output}: {count} change(s)",
    "fix.ui.head_dry": "{source}: {count} change(s) (dry run: nothing written to {output})",
    "fix.ui.none": "{source}: nothing to repair; {output} is a copy",
    "fix.ui.none_dry": "{source}: nothing to repair (dry run: nothing written)",
    "fix.ui.unread": "{source}: could not be read for repair; nothing written to {output}",
    "fix.ui.after": "The copy, validated:",
    "fix.ui.after_dry": "The copy would validate as:",
    "fix.ui.input": "The input, validated:",
    "fix.ui.left": "{errors} error(s) remain: no repair is certain for them. Fix them in {output} as the messages say.",
    "fix.word.normalized": "case, width or spaces",
    "fix.word.alias": "an alias",
    "fix.word.chinese": "a Chinese name",
    "fix.word.drawings": "drawings (shapes, images, charts)",
    "fix.word.media": "images",
    "fix.word.charts": "charts",
    "fix.word.vba": "macros",
    "fix.word.pivots": "pivot tables",
    "fix.word.slicers": "slicers",
    "fix.word.other": "other parts",
    "fix.word.list_sep": ", ",
    # --- the printed report ----------------------------------------------------------------------------
    "ui.place_row": "row {row}",
    "ui.place_line": "line {line}",
    "ui.error": "error  ",
    "ui.warning": "warning",
    "ui.more_all": "… and {count:,} more (--all lists every one)",
    "ui.more_kept": "… and {count:,} more (only the first are kept; --json has the counts)",
    "ui.file_head": "{path}: {status} ({format}, {records} records, {errors} errors, {warnings} warnings)",
    "ui.ok": "ok",
    "ui.invalid_file": "INVALID",
    "ui.unknown_format": "unknown format",
    "ui.verdict_valid": "{files} file(s) valid: {errors} error(s), {warnings} warning(s)",
    "ui.verdict_invalid": "{files} file(s) invalid: {errors} error(s), {warnings} warning(s)",
    "ui.wrote_records": "wrote {records} records to {output}",
    "ui.nothing_written": "nothing written to {output}: fix the errors above",
    # --- other tools' shapes (convert --to, --from) ----------------------------------------------------
    "shape_field_lost": "The {shape} shape cannot hold {field}: {count} record(s) lose it in {output} (kept in this file).",
    "shape_record_unfit.conversation": "The {shape} shape holds one question, and this record is a conversation ({turns} earlier turn(s)); write it as evalscope-qa or inspect, or as formatkit's jsonl.",
    "shape_record_unfit.pending_turn": "An earlier assistant turn of this record is still to be generated; the {shape} shape takes a conversation's history as given. Run it first (formatkit run), then write the results.",
    "shape_record_unfit.no_choices": "The {shape} shape is multiple choice, and this record has no options (meta.choices).",
    "shape_record_unfit.too_many_choices": "The record has {count} options; the {shape} shape names at most {most} (A to J).",
    "shape_record_unfit.not_a_choice": "The reference \"{reference}\" is neither an option's letter nor an option's text; the {shape} shape needs the letter of the right option.",
    "unknown_custom_id": 'custom_id "{custom_id}" names no pending turn of {set}: the reply belongs to another set or batch. Read it into the set the batch file was written from.',
    "unknown_custom_id.twice": 'custom_id "{custom_id}" was answered on an earlier line already; a batch file has one reply per request.',
    "batch_other_model": 'The reply names model "{model}", but the request asked for "{requested}": it is recorded under "{model}", the model that answered. Check the batch ran on the model you meant before comparing it.',
    "batch_other_model.batch": 'The reply names model "{model}", but the reply on line {line} named "{first}": it is recorded under "{model}", the model that answered, so this batch\'s replies count as two models\' answers. Check the batch ran on one model.',
    "ui.shapes.wrote": "wrote {records} records as {shape} to {output} ({lines} lines)",
    "ui.batch.read": "{replies} replies read into {records} records; {errors} came back as errors; {pending} turn(s) still pending",
    # --- an exported sheet people sorted, filtered or trimmed (its row_key column) ---------------------
    "rows_missing": "{count} record(s) that export wrote are not in the sheet (row_key record {records}): their rows were deleted, and they are not read. Export the results again, or put the rows back, to keep them.",
    "rows_missing.turns": "Record {record} lost {count} of its {turns} turns (row_key turn {lost}; rows {rows} are left): its conversation is read without them, so it is not the one that was scored. Put the rows back, or export the results again.",
    "invalid_row_key": 'Row {row}\'s row_key "{key}" is not one export writes (record.turn/turns, such as 0012.2/3): the sheet is read in its own order, as if it had no row_key column. Restore the key, or sort the sheet back yourself.',
    "invalid_row_key.repeated": "Row {row}'s row_key \"{key}\" repeats row {first}'s (a copied row?): the sheet is read in its own order, as if it had no row_key column. Delete the copy, or restore the key.",
}

MESSAGES.update({f"summary.{code}": summary for code, (_severity, summary) in CODES.items()})

# --- what the commands print when they stop (formatkit/cli/_failures.py) ------------------------------
MESSAGES.update(
    {
        "ui.failed": "formatkit: error: {error}",
        "ui.failed_nothing_written": "formatkit: error: {error}; nothing was written",
        "ui.proxy_unsupported": "formatkit: error: {variable}={proxy} names a SOCKS proxy, but httpx's SOCKS support is not installed: install it (pip install 'httpx[socks]'), or unset {variable}; nothing was sent",
        "ui.judge_hint": "check the judge endpoint",
        "ui.run.locked": "formatkit run: {error}; nothing was sent.",
        "ui.run.stopped": "formatkit run: stopped: {error}\n  {hint}.\n  {kept}; {output} was not written. Rerun the same command to resume: finished records are not sent again.",
        "ui.run.io_error": "formatkit run: stopped by an I/O error: {error}; finished records are kept in {journal}; rerun to resume.",
        "ui.run.terminated": "formatkit run: terminated (SIGTERM). {kept}; rerun to resume.",
        "ui.run.interrupted": "formatkit run: interrupted. {kept}; rerun to resume.",
        "ui.run.kept_nothing": "nothing was journaled in {journal}",
        "ui.run.kept": "{done} record(s) finished in this run are kept in {journal}",
        "ui.run.kept_errors": " ({errors} more ended in error and will be retried)",
        "ui.run.kept_attempts": ", after {attempts} HTTP attempt(s)",
        "ui.eval.other_model": "formatkit eval: {directory} holds the results of model {held}; evaluating {model} there would replace them. Give {model} its own -o folder (formatkit report then puts the two side by side), or --restart to replace them; nothing was sent.",
        "ui.eval.answered": "formatkit eval: these sets already hold replies that {model} did not make: {names}. eval answers sets; a results file among them would show up as another model beside {model}. Leave results files out of eval (put them beside it with formatkit report, or score them with formatkit score); nothing was sent.",
        "ui.eval.locked": "formatkit eval: {error}; nothing was sent.",
        "ui.eval.invalid": "formatkit eval: the flow stopped: {error}\n  the issues above say what to fix.\n  Rerun the same command to resume: nothing finished is sent again.",
        "ui.eval.judge_stopped": "formatkit eval: judging stopped: {error}\n  {judge_hint}.\n  Rerun the same command to resume: nothing finished is sent again.",
        "ui.eval.run_stopped": "formatkit eval: the run stopped: {error}\n  {hint}.\n  Rerun the same command to resume: nothing finished is sent again.",
        "ui.eval.terminated": "formatkit eval: terminated (SIGTERM). Rerun the same command to resume: nothing finished is sent again.",
        "ui.eval.interrupted": "formatkit eval: interrupted. Rerun the same command to resume: nothing finished is sent again.",
        "ui.score.judge_stopped": "formatkit score: stopped: {error}\n  {hint}.\n  {verdicts}; the output was not written. Rerun the same command to resume: no verdict is bought twice.",
        "ui.score.verdicts_kept": "{bought} verdict(s) bought in this run are kept in {journal} ({reused} reused from it)",
        "ui.score.no_verdicts": "no verdict was bought",
        "ui.score.worker_failed": "formatkit score: {error}\nnothing was written.",
        "ui.score.terminated": "formatkit score: terminated (SIGTERM); {kept}rerun the same command to resume.",
        "ui.score.interrupted": "formatkit score: interrupted; {kept}rerun the same command to resume.",
        "ui.score.kept": "the verdicts bought so far are kept in {journal}; ",
        "ui.export.read_back": "formatkit export: the sheet for {output} would be refused when read back in {mode} mode (the issues above), so nothing was written. Records with neither a reply nor an error have not run yet: finish the run first (rerun the same `formatkit run` or `eval` to resume).",
        "ui.export.not_written": "formatkit export: {error}; nothing was written",
        "ui.merge.refused": "formatkit merge: cannot merge {count} part(s); nothing was written:{problems}",
        "ui.merge.problem.no_data": "{part}: no records file ({data} does not exist)",
        "ui.merge.problem.no_run_record": "{part}: no run record ({record}); merge needs the run record each `--shard K/N` run writes beside its output: copy it along with the part",
        "ui.merge.problem.not_a_shard": "{part}: its run record {record} is not one of a `--shard K/N` run (no shard entry)",
        "ui.merge.problem.damaged_shard": "{part}: the shard entry of {record} is damaged: run the part again",
        "ui.merge.problem.not_json": "{part}: record {number} is not JSON: the part is damaged, run it again",
        "ui.merge.problem.not_canonical": "{part}: record {number} is not a canonical record (no messages list)",
        "ui.merge.frag.place_here": "record {where}",
        "ui.merge.frag.place_other": "record {where} of {other}",
        "ui.merge.frag.lacks": "; input record {position}, whose place it takes, is missing",
        "ui.merge.problem.doubled": "{part} (part {label}): record {number} (session_id {session}) is {place} again: that record would be doubled{lacks}; run the part again",
        "ui.merge.problem.more_doubled": "{part}: {more} more record(s) there twice",
        "ui.merge.problem.other_split": "{part} is part {label} but {first} is part {first_label}: parts of one split have the same N",
        "ui.merge.problem.other_input": "{part} ({records} input records) and {first} ({first_records}) were run on different inputs (the input changed between the runs?): rerun the parts on one input",
        "ui.merge.problem.given_twice": "part {index}/{count} is given {times} times ({names}): its records would be doubled",
        "ui.merge.problem.missing_parts": "part(s) {missing} missing: their records would be missing (give every part 1/{count} to {count}/{count})",
        "ui.merge.frag.missing": "missing",
        "ui.merge.frag.doubled": "doubled",
        "ui.merge.problem.wrong_count": "{part} (part {label}) holds {actual} records but its share of the {records} input records is {expected}: {difference} record(s) {how}; run the part again",
        "ui.merge.problem.no_parts": "no parts given",
        "ui.merge.problem.output_is_part": "{part}: the output must not be one of the parts",
        "ui.merge.not_written": "formatkit merge: {error}",
        "ui.merge.problem.out_of_order": "{part} (part {label}): record {number} (line {line} of {file}) comes after record {earlier} (line {earlier_line}): the part's records are not in input order, and merge places a part's records by their order in it, so they would be written out of order; run the part again (or put its records back in the order of the input)",
        "ui.convert.not_written": "formatkit convert: {error}; nothing was written",
        "ui.wrote": "wrote {output}",
        "ui.run.summary.head": "run: {records} records written to {output}: {finished} finished, {with_errors} with errors",
        "ui.run.summary.requests": "  this run: {requests} requests for {sent_records} records{with_retries}; {resumed} taken from the journal; {nothing_to_do} had nothing to send",
        "ui.run.summary.attempts": " ({attempts} HTTP attempts with the retries)",
        "ui.run.summary.errors": "  errors by kind: {kinds}",
        "ui.run.summary.replies": "  replies: {empty_replies} empty (no content: nothing to score), {cut_off} cut off at the token limit (finish_reason: length)",
        "ui.run.summary.retry_empty": "  rerun with --retry-empty N to ask the empty ones again (a reasoning model may need a larger max_tokens)",
        "ui.run.summary.tokens": "  tokens: prompt {prompt}, completion {completion}, total {total}",
        "ui.run.summary.stale": "  note: {stale_journal_entries} journal entries did not match the input or settings (changed since) and were ignored",
        "ui.run.summary.note": "  note: {note}",
        "ui.run.summary.retry_errors": "  rerun the same command to retry the records that ended in error",
        "ui.run.dry_run": "dry run: would send {requests} request(s) for {records_with_work} record(s) ({already_finished} of {records} already finished in the journal); nothing was sent",
        "ui.dataset_metric_unknown": "formatkit: warning: --dataset-metric {dataset}=…: no dataset of that name in the input (its datasets: {known}); it was scored with auto",
        "ui.estimate.requests": "estimate: {requests} request(s) for {records_with_work} record(s) ({already_finished} of {records} already finished in the journal); nothing was sent",
        "ui.estimate.by_tokenize": "counted by the endpoint's tokenize route: exact",
        "ui.estimate.by_tokenizer": "counted with the tokenizer {tokenizer}, plus {overhead} per message for the chat template",
        "ui.estimate.by_ratio": "approximated at {cjk} Chinese characters or {latin} other characters a token, plus {overhead} per message (the endpoint has no tokenize route: give --tokenizer FILE for a count)",
        "ui.estimate.by_ratio_tokenizer_failed": "approximated at {cjk} Chinese characters or {latin} other characters a token, plus {overhead} per message (the tokenizer could not be used: see the note)",
        "ui.estimate.prompt": "prompt tokens: {tokens}, {method}",
        "ui.estimate.output": "output tokens, worst case: {tokens} (each request's max_tokens)",
        "ui.estimate.unbounded": "{count} request(s) set no max_tokens: they have no worst case (give --param max_tokens=N to bound them)",
        "ui.estimate.judge": "judge requests: {count} for the references no rule can score (and one for each reply whose answer the rules cannot read or settle, known only after the run); not in the token counts: their prompts hold replies not written yet",
        "ui.estimate.cost": "cost, worst case: {cost} {currency} (prompt tokens and the output's worst case, at the --prices file's rates)",
        "ui.estimate.history": "prompt tokens of earlier replies sent back as history, worst case: {tokens} more (later turns of a conversation resend the replies the run writes first; their max_tokens)",
        "ui.estimate.cost_partial": "cost: {cost} {currency}, not a worst case: {count} request(s) have no max_tokens (on themselves or on an earlier turn) and count only their prompt",
        "ui.estimate.note": "note: {note}",
        "ui.estimate.no_tokenizers": "tokenizer {tokenizer}: the tokenizers package is not installed (pip install tokenizers)",
        "ui.estimate.bad_tokenizer": "tokenizer {tokenizer}: cannot read it ({error})",
        "ui.estimate.no_tokenize_route": "the endpoint has no tokenize route ({reason}): counted by {method}",
        "ui.auto.free_text": "references are free text or missing ({kinds}): rules cannot score them — use --metric judge",
        "ui.progress.line": "{label}: {done}/{total} {unit}{share}, {rate}/s, {errors} with errors, eta {eta}",
        "ui.progress.records": "records",
        "ui.progress.responses": "responses",
        "ui.eval.judge_needed": "formatkit eval: {dataset}: a judge is needed — {reason}; left unscored (give --judge-base-url and --judge-model to judge them)",
        "ui.score.judge_needed": "formatkit score: {dataset}: a judge is needed — {reason}; left unscored",
        "ui.score.nothing_scored": "formatkit score: no response could be scored",
        "ui.report.unscored": "formatkit report: {dataset}: no response has been scored; run `formatkit score` on it first and report the file it writes",
        "ui.export.note": "formatkit export: {note}",
        "ui.export.wrote": "wrote {rows} rows to {output} (input read in {mode} mode{why})",
        "ui.export.why_infer_eval": " (not every target turn has a reply: some inference failed or has not run)",
        "ui.export.why_infer_only": " (some target turns have no reference)",
        "ui.merge.merged": "merged {parts} parts into {output}: {records} records in input order",
        "ui.merge.merged_unchecked": "merged {parts} parts into {output}: {records} records, each part's records placed in the order the part holds them ({unchecked} of them carry no source line or row, so their input order was not checked)",
        "ui.merge.merged_unordered": "merged {parts} parts into {output}: {records} records, each part's records placed in the order the part holds them (the records' source lines do not follow the input's own order in any part, so that order could not be checked)",
        "ui.api_key_cleaned": "formatkit {command}: warning: ${env}: {warning}",
        "ui.api_key_unset": "formatkit {command}: warning: --api-key-env {env}: that variable is not set (or empty); requests are sent without an API key",
        "ui.judge_panel.twice": "{file}: judge {again} is judge {first} again ({model} at {url}): a judge counts once in a panel (--judge-repeats asks each judge more than once); remove the second entry",
        "ui.judge_model.twice": "--judge-model {model} is given twice (judge {first} and judge {again}, both at {url}): a judge counts once in a panel (--judge-repeats asks each judge more than once)",
        "ui.judge_panel.key_unset": "formatkit {command}: warning: {file}: judge {number} ({model}): api_key_env {env} is not set (or empty); its requests are sent without an API key",
        "ui.report.format_mismatch": "--format {format} does not write what {output} names ({named}): drop --format to write {named}, or name the output for {format}",
        "ui.report.dimensions_misspelled": "--dimensions {file}: {pairs}: each key names no dataset of the results and is close to one the file leaves out, which would count as a dimension of its own and move the overall; correct the name in the file",
        "ui.report.dimensions_unused": "formatkit report: note: --dimensions {file} names datasets these results do not hold: {names}",
        "ui.report.dimensions_alone": "formatkit report: note: --dimensions {file} does not name {names}: each counts as a dimension of its own (add it to the file to group it)",
        "ui.report.same_file": "formatkit report: {path} is {first} again (the same file): read once, its records counted once",
        "ui.report.same_content": "formatkit report: {path} holds exactly what {first} holds (a copy): read once, its records counted once",
        "ui.fix.refused": "formatkit fix: {source}: {why}; nothing was written to {output} (validate reads it)",
        "frag.fix_refused.styles": "{count:,} cell styles, more than fix rewrites ({limit:,}, Excel's own limit): open it in Excel or LibreOffice, clear the unused formats, save it again and fix the saved copy",
        "frag.fix_refused.merges": 'sheet "{sheet}" holds {count:,} merged ranges, more than fix rewrites ({limit:,}): unmerge the cells (select all, Merge & Center off), save it and fix the saved copy',
        "frag.fix_refused.merge_size": 'sheet "{sheet}": the merged range {range} covers {cells:,} cells, more than fix rewrites ({limit:,}): unmerge it, or merge only the rows that hold data, save it and fix the saved copy',
        "ui.fix.cannot_repair": "formatkit fix: {source}: could not be opened for repair ({error}), though validate reads it; nothing was written to {output}: open it in Excel or LibreOffice, save it again and fix the saved copy",
        "ui.judge_check.nothing": "formatkit judge-check: no label met a judge's verdict ({labels} label(s), {unmatched} matching no record): check the session ids and datasets, and that SCORED was scored by a judge",
        "ui.score.review": "formatkit score: a reviewed sheet: {changed} score(s) changed, every other score kept as it was (no judge asked for them)",
        "ui.score.review_human": "  {dataset}, session {session_id}{sample}: scored by a person: {human} (was {before})",
        "ui.score.review_edited": "  {dataset}, session {session_id}{sample}: edited, scored again (was {before})",
        "ui.score.review_refused": "  {dataset}, session {session_id}{sample}: human_score {human} is outside the score's scale: ignored, the score stays {before}",
        "ui.score.sheet_warning": "formatkit score: warning {place}: {message} [{code}]",
        "ui.lang_partial": "formatkit: --lang {lang}: {translated} of {total} messages translated ({percent}); the others are said in English",
    }
)

# --- the words of the text and Markdown reports (scoring/_report/words.py: report.<key>) ---------------
MESSAGES.update(
    {
        "report.title.leaderboard": "Leaderboard (0–100, 95 % interval)",
        "report.title.details": "Details per model and dataset",
        "report.title.paired": "Paired differences (a − b, on the records both answered)",
        "report.title.ranking": "Ranking (Bradley–Terry rating, logit scale; verdicts on {scope})",
        "report.title.pairs": "Pairs on {scope} (a − b, Bonferroni-corrected over {n} pair(s))",
        "report.title.power": "What each dataset can tell (80 % power, α 0.05)",
        "report.title.scores": "Scores by dataset (0–100)",
        "report.title.dimensions": "Capability dimensions",
        "report.head.dimension": "dimension",
        "report.head.dataset": "dataset",
        "report.head.datasets": "datasets",
        "report.head.metric": "metric",
        "report.head.model": "model",
        "report.head.score": "score",
        "report.head.strict": "strict",
        "report.head.records": "records",
        "report.head.scored_records": "scored records",
        "report.head.responses": "responses",
        "report.head.unscorable": "unscorable responses",
        "report.head.void": "void verdicts",
        "report.head.majority": "majority",
        "report.head.tokens": "tokens",
        "report.head.interval": "interval",
        "report.head.pairwise": "pairwise",
        "report.head.scope": "scope",
        "report.head.paired_records": "paired records",
        "report.head.difference": "difference",
        "report.head.verdict": "verdict",
        "report.head.rank": "rank",
        "report.head.rating": "rating [95 % interval]",
        "report.head.overall": "overall",
        "report.head.ahead": "ahead of",
        "report.head.behind": "behind",
        "report.head.apart": "not told apart",
        "report.head.corrected": "difference [corrected interval]",
        "report.head.p_adjusted": "p adjusted",
        "report.head.detectable": "detectable",
        "report.head.paired_sd": "paired sd",
        "report.head.detectable_difference": "detectable difference",
        "report.head.largest_gap": "largest gap",
        "report.head.pairs_too_small": "pairs too small to tell",
        "report.metric.pairwise": "pairwise",
        "report.cell.dimension_row": "(dimension)",
        "report.cell.overall": "overall",
        "report.cell.each_dataset": "each dataset",
        "report.cell.reference": "(reference answer)",
        "report.cell.small": "(n={n}, small)",
        "report.cell.win_rate": "{score} win rate",
        "report.cell.as_zero": "{n} (as 0)",
        "report.cell.pairwise": "mean×100 {score}; win/tie/loss {win}/{tie}/{loss}",
        "report.cell.of": "{k} of {n}",
        "report.cell.significant": "significant",
        "report.cell.noise": "within noise (interval holds 0)",
        "report.cell.distinguishable": "distinguishable",
        "report.cell.not_distinguishable": "not distinguishable",
        "report.cell.too_small": "set too small to tell",
        "report.cell.then": "{cell}; {more}",
        "report.cell.parts_sep": ", ",
        "report.coverage.scored": "{k} of {n} records scored",
        "report.coverage.scored.one": "{k} of {n} record scored",
        "report.coverage.void": "{n} void verdicts",
        "report.coverage.void.one": "{n} void verdict",
        "report.coverage.void_as_zero": "{n} void verdicts counted as 0",
        "report.coverage.void_as_zero.one": "{n} void verdict counted as 0",
        "report.coverage.other": "{n} other responses unscorable",
        "report.coverage.other.one": "{n} other response unscorable",
        "report.void.left_out": "{n} void verdicts (left out of the scores; --void-as-zero counts them as 0)",
        "report.void.left_out.one": "{n} void verdict (left out of the scores; --void-as-zero counts them as 0)",
        "report.void.as_zero": "{n} void verdicts (counted as 0)",
        "report.void.as_zero.one": "{n} void verdict (counted as 0)",
        "report.note.legend": "cells: score on 0–100 with its 95 % interval in brackets; a pairwise dataset shows its win rate (what enters the dimension) here and its mean ×100 (−100..100) and win/tie/loss in the details; — = no scored record; (n=…, small): fewer than {small_n} scored records, one record moves the score by 100/n points; 'k of n records scored, v void verdicts': not every response has a score (a void verdict is a judge reply with no readable verdict, left out of the mean unless --void-as-zero)",
        "report.note.intervals": "intervals: {level} confidence; Wilson score interval when every record of a dataset scored 0 or 1, else a smoothed Bayesian bootstrap over records ({resamples} resamples, seed {seed}; half a pseudo-record at each end of the scale, so a small or all-right dataset keeps an honest width; stratified by dataset for dimensions and overall); a paired difference resamples the records both models answered",
        "report.note.pairwise": "pairwise datasets show their own scale (mean ×100 on −100..100, win/tie/loss) and enter a dimension as a 0–100 win rate: win 1, tie ½, loss 0, averaged per record",
        "report.note.tokens": "{model}: tokens {prompt} prompt + {completion} completion = {total} total",
        "report.note.judge_tokens": "{model}: judge tokens {prompt} prompt + {completion} completion = {total} total",
        "report.note.model_void": "{model}: {void}",
        "report.note.metric": "{name}: {metric} — {note}",
        "report.note.pairwise_dataset": "{name}: pairwise mean ×100 = {mean} (−100..100); win {win} / tie {tie} / loss {loss}",
        "report.note.position_bias": "{note}; the two orders disagreed on {disagreements} of {pairs} pairs ({rate}%, the judge's position bias)",
        "report.note.people": "{name}: {n} score(s) given by a person (human_score): {before} with the machine's scores, {after} with theirs",
        "report.note.ranking": "ranking: models tier by tier, by Bradley–Terry rating within a tier (logit scale, 95 % bootstrap interval); rank: 1 + the number of models a corrected test on {scope} puts ahead of the model, so models no test separates from the same rivals share a rank (ranks count models shown ahead, not places: 1, 1, 3); #: the row's position; 'ahead of' / 'behind': the positions of the models it is distinguishable from on {scope}; 'not told apart': the positions it cannot be distinguished from (the pairs table says whether the set is too small for the gap)",
        "report.note.ratings": "ratings: Bradley–Terry on the logit scale (P(i beats j) = 1/(1 + e^(r_j − r_i)); a lead of 1.0 wins about 73 % of questions), models centred on 0; one battle per question and pair of models (rule-scored: right beats wrong, a tie is half a win each; pairwise judge: the model's combined verdict against what it was compared with, win 1, tie ½, loss 0); interval: the central 95 % of {resamples} bootstrap refits over questions; one prior tie per pair keeps an unbeaten model's rating finite",
        "report.note.pairs": "pairs: a paired t-test per pair of models on the records both answered (standard deviation smoothed by half a pseudo-record at −1 and +1); one procedure for the interval and the verdict: Bonferroni within each scope's family of m pairs, the interval at level 1 − {alpha}/m (its ends rounded outward), distinguishable exactly when that interval leaves out 0 (the adjusted p, m·p, is then below {alpha}), so all of a scope's intervals hold together 95 % of the time; 'set too small to tell': not distinguishable and the difference is below what the set detects at 80 % power (α 0.05)",
        "report.note.detectable": "detectable difference: the smallest true gap (points) a paired test on the dataset finds 80 % of the time at α 0.05, from its paired records and their paired standard deviation; a smaller gap is one the set is too small to tell from noise: read it as no ranking; 'more than the scale': no gap a 0–100 score can show would be found",
        "report.summary.legend": "score: mean score, 0–100 (math's loose accuracy), with its 95 % interval; strict: share of responses scoring 1.0 (math's strict accuracy); records and scored records count records, responses and unscorable responses count responses (a record holds one per sample); void verdicts: judge replies with no readable verdict, among the unscorable (left out of the mean unless --void-as-zero); small: under {small_n} scored records",
        "report.summary.overall": "Overall: {overall}",
        "report.summary.overall_cell": "{score} (mean of {n} dimension(s), 0–100{more})",
        "report.summary.without": "; {n} dimension(s) without a score",
        "report.summary.void": "; {void}",
        "report.summary.tokens": "Tokens: {prompt} prompt + {completion} completion = {total} total",
        "report.summary.judge_tokens": "Judge tokens: {prompt} prompt + {completion} completion = {total} total",
        "report.runs.speed": "speed (per model, from the runner's timings):",
        "report.runs.speed_line": "  {model}: latency p50 {p50}, p95 {p95}; first token p50 {ttft}; {tps} output tokens/s ({timed} timed responses{untimed})",
        "report.runs.untimed": ", {n} without timings",
        "report.runs.ms": "{ms} ms",
        "report.runs.runs": "runs (what produced these results; run.json):",
        "report.runs.run_line": "  {model}{part}: {started} → {finished}, formatkit {version}, {base_url}, parameters {parameters}{judge}",
        "report.runs.part": " part {part}",
        "report.runs.judge": "; judge {model} ({template})",
        "report.runs.panel": "; judge panel {model} ({template})",
        "report.panel.head": "judge panel of {judges} ({aggregate}): agreement {method} = {alpha} over {items} item(s) with two verdicts or more",
        "report.panel.named": "{name}: {line}",
        "report.panel.sep": ", ",
        "report.panel.valid": "{valid} of {asked} verdict(s) valid",
        "report.panel.void_rate": "void rate {rate}",
        "report.panel.failed": "{n} request(s) failed",
        "report.panel.self_consistency": "self-consistency {rate}",
        "report.panel.flips": "position flips {rate}",
        "report.panel.judge": "  {judge}: {figures}",
        "report.panel.escalated": "  escalated: {n} response(s){why}; {avoided} request(s) avoided",
        "report.panel.why": " ({why})",
        "report.judge_check.head": "{labels} human label(s), {unmatched} matching no record",
        "report.judge_check.skipped": ", {count} bad label(s) skipped",
        "report.judge_check.stale": ", {count} with a stale verdict (given on another text: left out)",
        "report.judge_check.judge": "{judge} (Cohen's κ {weights}, 95% bootstrap interval)",
        "report.judge_check.unweighted": "unweighted",
        "report.judge_check.quadratic": "quadratic-weighted",
        "report.judge_check.overall": "  overall: {line}",
        "report.judge_check.dataset": "  {dataset}: {line}",
        "report.judge_check.agreement": "agreement {agreement}",
        "report.judge_check.void": "void {n}",
        "report.judge_check.swap": "swap consistency {rate}",
        "report.judge_check.self": "self-consistency {rate}",
        "report.judge_check.length": "r(judge − human, length) {r}",
        "report.judge_check.corner": "judge \\ human",
        "report.judge_check.position": "position bias: {flipped} of {pairs} flipped with the order ({rate}{rate_ci}), {first} toward the first position, {second} toward the second (lean {lean}{lean_ci})",
        "report.head.position": "#",
        "report.head.models_count": "models",
        "report.head.models": "in this tier",
        "report.head.closest_pair": "closest pair to the next tier",
        "report.head.more_questions": "questions to separate it",
        "report.title.tiers": "Tiers (models sharing a rank; to the next tier: its closest pair and about how many more questions would separate it)",
        "report.cell.never_separated": "none: identical results",
        "report.cell.more_questions": "about {n} more",
        "report.cell.pair": "{a} – {b}",
        "report.cell.beyond_scale": "more than the scale",
        "report.cell.separated": "already separated",
        "report.note.tiers": "tiers: the models sharing a rank; 'questions to separate it': about how many more paired questions the closest pair of two adjacent tiers needs for the same corrected test to find its observed gap 80 % of the time (0: already separated; none: their results are identical)",
        "report.note.order": "order: {above} rates above {below} (Bradley–Terry), but {below}'s overall is higher by {gap} points",
        "report.note.order_more": "order: {n} more neighbours in the ranking whose overall scores order them the other way (the JSON's order_disagreements lists them all)",
        "report.note.order_why": "why the leaderboard and the ranking can differ: the overall is the mean of the dimensions (each dimension weighs the same, whatever its number of questions); the rating counts every question of every set as one battle, so a large set weighs more; neither is wrong, they weigh the sets differently",
        "report.note.judge_calibrated": "judge {judge}: Cohen's κ with people {kappa}{ci} on {n} labelled response(s): calibrated (κ ≥ {min_kappa})",
        "report.note.judge_uncalibrated": "judge {judge}: Cohen's κ with people {kappa}{ci} on {n} labelled response(s): UNCALIBRATED (κ below {min_kappa}, or not defined): its datasets are left out of the ranking",
        "report.note.judge_unchecked": "judge {judge}: Cohen's κ with people {kappa}{ci} on {n} labelled response(s): NOT CHECKED (no label met its verdicts): uncalibrated, its datasets are left out of the ranking",
        "report.note.dataset_kappa": "{dataset}: judged by {judge}, κ {kappa}{ci} on {n} label(s){ranked}",
        "report.note.left_out": "; left out of the ranking",
        "report.note.ranking_without": "the ranking (ratings, tiers, pairs) leaves out the datasets of uncalibrated judges: {datasets}",
        "report.note.first_only": "paired differences: with {n} models, each model against the first ({first}) only; the pairs table holds every pair",
    }
)

# --- replicas of one model (scoring._client.pool) and the bounds on what a run reads --------------------
MESSAGES.update(
    {
        "invalid_type.not_a_choice": '"{field}" must name one of the {count} options (a letter {letters}, or an option\'s text), not "{value}": no reply could match it.',
        "frag.fix_refused.sheets": "the workbook lists {count:,} sheets, more than fix rewrites ({limit:,}): keep the sheet with the data (the first one is read) in a workbook of its own and fix that",
        "ui.pool.dropped": "endpoint {endpoint} was dropped: {reason}; its requests go to the {left} endpoint(s) left",
        "ui.pool.benched": "endpoint {endpoint} is set aside: {failures} request(s) in a row failed there ({cause}) while the other endpoints answered; its requests go to the {left} endpoint(s) left, and one request tries it again in {seconds} s",
        "ui.pool.dropped_probe": "endpoint {endpoint} was dropped: {reason}; its requests go to the {left} endpoint(s) left, and one request tries it again in {seconds} s",
        "ui.pool.back": "endpoint {endpoint} answers again: it takes requests again",
    }
)

# --- formatkit serve: its refusals (formatkit/serve/, formatkit/cli/serve.py) -------------------------
MESSAGES.update(
    {
        "ui.serve.bind_refused": "formatkit serve: refusing to listen on {host} without a token: anyone who reaches it could use it. Give --token-env VAR (VAR holding the token), listen on 127.0.0.1, or say --no-auth",
        "ui.serve.token_unset": "formatkit serve: --token-env {env}: that variable is not set (or empty); set it to the token the clients will send",
        "ui.serve.unauthorized": "This server asks for a token: send the header Authorization: Bearer <token>.",
        "ui.serve.not_multipart": 'Send the files as multipart/form-data, each in a part named "file".',
        "ui.serve.malformed": "The multipart body could not be read to its end (cut short or malformed); send the files again.",
        "ui.serve.no_files": 'The upload holds no file: send each file in a part named "file", with its filename.',
        "ui.serve.upload_too_large": "The upload is larger than {limit} MB, this server's limit: nothing of it was checked. Send fewer or smaller files.",
        "ui.serve.too_many_files": "The upload holds more than {limit} file(s), this request's limit: send at most {limit} at once.",
        "ui.serve.busy": "Every check slot ({slots}) is taken: try again in {retry} s.",
        "ui.serve.time_limit": "The check took longer than {seconds} s, this server's limit: check the file with the command line (formatkit validate).",
        "ui.serve.bad_query": 'The query parameter "{name}" has a value this API does not take (see /openapi.json).',
        "ui.serve.fix_refused": "{source}: {why}; no repaired copy was made (validate reads it).",
        "ui.serve.cannot_repair": "{source}: could not be opened for repair ({error}), though validate reads it: open it in Excel or LibreOffice, save it again and repair the saved copy.",
        "ui.serve.internal": "The check failed on a defect of formatkit, not of the file; please report it with the file (the server's log does not hold it).",
        "ui.labels.refused": "formatkit {command}: {count} label(s) cannot be used; nothing was computed or written:{problems}\n  Correct them, or give --skip-bad-labels to leave them out.",
        "ui.labels.skipped": "formatkit {command}: {count} label(s) left out (--skip-bad-labels):{problems}",
        "ui.labels.empty": "formatkit judge-check: {path} holds no label: nothing to check",
        "frag.label.out_of_scale": "{where}: the label {value} is outside the judge's scale {scale}",
        "frag.label.not_a_number": "{where}: the label {value} is not a number on the judge's scale",
        "frag.label.not_finite": "{where}: the label {value} is not a finite number",
        "frag.label.not_pairwise": "{where}: a pairwise label is A, B or tie (or win, loss, tie), not {value}",
        "frag.label.duplicate": "{where}: a second label for dataset {dataset}, session {session} (the first is at {first})",
        "frag.label.no_record": "{where}: no record of the scored file has dataset {dataset}, session {session}",
        "ui.judge_check.stale": "formatkit judge-check: {count} labelled response(s) carry a verdict given on another text (the response or its reference edited after judging): left out of the pairs",
        "ui.export.stale": "formatkit export: {count} judge verdict(s) given on another text (the response edited after judging) left out of judge_verdict and judge_rationale (kept as stale_verdict in the extra column)",
        "ui.score.review_stale": "  {dataset}, session {session_id}{sample}: the judge's verdict was given on another text: moved to stale_verdict, scored again (was {before})",
        "ui.usage.error": "formatkit: error: {message}",
        "ui.path.missing": "{path}: no such file",
        "ui.path.directory": "{path}: is a directory; name the files in it",
        "ui.path.denied": "{path}: permission denied",
        "ui.usage.line": "Usage: {usage}",
        "ui.usage.hint": "Try '{command} {option}' for help.",
        "ui.usage.said": "Error: {message}",
        "ui.usage.no_such_option": "No such option: {name}",
        "ui.usage.no_such_option_like": "No such option: {name}. Did you mean {matches}?",
        "ui.usage.missing_argument": "Missing argument {name}.",
        "ui.usage.missing_option": "Missing option {name}.",
        "ui.usage.invalid_value": "Invalid value for {name}: {detail}",
        "ui.usage.not_a_choice": "'{value}' is not one of {choices}.",
        "ui.usage.out_of_range": "{value} is not in the range {range}.",
        "ui.usage.not_an_integer": "'{value}' is not a valid integer.",
        "ui.usage.not_a_number": "'{value}' is not a valid number.",
        "ui.usage.needs_value": "Option '{name}' requires an argument.",
        "ui.usage.extra_arguments": "Got unexpected extra argument(s) ({args}).",
        "ui.usage.no_such_command": "No such command '{name}'.",
        "ui.usage.no_such_command_like": "No such command '{name}'. Did you mean {matches}?",
    }
)
