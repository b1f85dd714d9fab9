"""CSV against xlsx: `formatkit convert` of the same 30,000-row set saved as .xlsx, as a UTF-8 CSV (Excel's "CSV
UTF-8", with its byte-order mark) and as a GBK CSV; whole processes, start-up included, medians of interleaved
runs (the ratios are the figures to trust on a shared machine).

    python benchmarks/bench_csv.py [ROWS] [RUNS]
"""

from __future__ import annotations

import csv
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openpyxl


def _rows(count: int) -> list[list[object]]:
    header: list[object] = ["session_id", "system_prompt", "query", "reference_response", "parameters"]
    rows = [header]
    for i in range(count):
        query = f"第 {i} 题：{i} + {i} 等于几？请写出过程。"
        rows.append([i, "你是一名数学老师", query, str(2 * i), '{"temperature": 0.7}'])
    return rows


def _write(folder: Path, rows: list[list[object]]) -> dict[str, Path]:
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("Sheet1")
    for row in rows:
        sheet.append(row)
    files = {"xlsx": folder / "set.xlsx", "csv utf-8": folder / "set.csv", "csv gbk": folder / "gbk" / "set.csv"}
    book.save(files["xlsx"])
    text = io.StringIO(newline="")
    csv.writer(text, lineterminator="\r\n").writerows(rows)
    files["csv utf-8"].write_bytes(text.getvalue().encode("utf-8-sig"))
    files["csv gbk"].parent.mkdir()
    files["csv gbk"].write_bytes(text.getvalue().encode("gbk"))
    return files


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 30_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    formatkit = Path(sys.executable).with_name("formatkit")
    with tempfile.TemporaryDirectory() as folder:
        files = _write(Path(folder), _rows(count))
        times: dict[str, list[float]] = {name: [] for name in files}
        for _ in range(runs):
            for name, path in files.items():
                out = path.with_suffix(".jsonl")
                start = time.perf_counter()
                subprocess.run(
                    [str(formatkit), "convert", "--profile", "none", str(path), "-o", str(out)],
                    check=True,
                    capture_output=True,
                )
                times[name].append(time.perf_counter() - start)
        outputs = {name: path.with_suffix(".jsonl").read_bytes().count(b"\n") for name, path in files.items()}
    base = statistics.median(times["xlsx"])
    print(f"convert, {count:,} rows, median of {runs} interleaved runs")
    for name, taken in times.items():
        median = statistics.median(taken)
        print(f"  {name:10} {median:6.2f} s  ({base / median:5.0%} of xlsx's speed)  {outputs[name]:,} records")


if __name__ == "__main__":
    main()
