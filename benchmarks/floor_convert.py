"""The floor of ``formatkit convert``: what any converter must do, with no validation at all.

    python benchmarks/floor_convert.py IN.xlsx|IN.jsonl OUT.jsonl

Reads the file with python-calamine (xlsx) or orjson (jsonl), builds each canonical record, serialises it
with orjson and writes it: nothing is checked. Its output is byte-identical to ``formatkit convert
--profile none`` on the benchmark's data (meta included; bench_convert.py compares the two files on every
run), so the floor does the same work formatkit must do minus validation, not less.

It handles the benchmark's single-turn layout only (session_id, system_prompt, query, reference_response,
parameters, response; or system/prompt/answer/parameters lines). A parameters cell is parsed once per
distinct text (the benchmark's rows share one): a fair floor, since any converter would do the same.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any


def _records_xlsx(path: str) -> Any:
    from python_calamine import CalamineWorkbook

    book = CalamineWorkbook.from_path(path)
    sheet_name = book.sheet_names[0]
    sheet = book.get_sheet_by_index(0)
    del book  # as formatkit does: the shared strings need not outlive the sheet's own copy
    rows: list[list[Any]] = sheet.to_python(skip_empty_area=False)
    del sheet
    header = [str(h) for h in rows[0]]
    index = {name: header.index(name) for name in header}
    dataset = Path(path).stem
    parsed: dict[str, Any] = {}
    for number, row in enumerate(rows[1:], start=2):
        sid = row[index["session_id"]]
        params_text = row[index["parameters"]]
        params = parsed.get(params_text)
        if params is None:
            params = parsed[params_text] = ast.literal_eval(params_text)
        yield {
            "session_id": int(sid),
            "messages": [
                {"role": "system", "content": row[index["system_prompt"]]},
                {"role": "user", "content": row[index["query"]]},
                {
                    "role": "assistant",
                    "reference_response": row[index["reference_response"]],
                    "responses": [{"parameters": params}],
                },
            ],
            "meta": {
                "dataset": dataset,
                "source": {"file": path, "format": "excel-single-turn", "sheet": sheet_name, "rows": [number]},
            },
        }


def _records_jsonl(path: str) -> Any:
    import orjson

    dataset = Path(path).stem
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            line = orjson.loads(raw)
            yield {
                "session_id": number - 1,
                "messages": [
                    {"role": "system", "content": line["system"]},
                    {"role": "user", "content": line["prompt"]},
                    {
                        "role": "assistant",
                        "reference_response": line["answer"],
                        "responses": [{"parameters": line["parameters"]}],
                    },
                ],
                "meta": {"dataset": dataset, "source": {"file": path, "format": "jsonl-single-turn", "line": number}},
            }


def main(argv: list[str]) -> int:
    import orjson

    source, target = argv
    records = _records_xlsx(source) if source.endswith(".xlsx") else _records_jsonl(source)
    dumps, newline = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    # Written as formatkit writes (its atomic_writer's 1 MiB buffer, orjson's own newline): the floor's I/O is
    # as good as formatkit's, so the gap between them is validation, not how bytes reach the disk.
    with open(target, "wb", buffering=1 << 20) as out:
        write = out.write
        for record in records:
            write(dumps(record, option=newline))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
