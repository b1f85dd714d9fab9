"""``formatkit fix`` on a messy multi-turn sheet, against the floor of any repair: openpyxl loading and saving
the same workbook untouched (fix needs both, plus the reader's validation before and after).

    python benchmarks/bench_fix.py             # 1,000 and 10,000 rows
    python benchmarks/bench_fix.py --rows N

The sheet has Chinese headers, session_id and system_prompt merged down each two-row session, and
parameters typed with a Chinese input method on each session's last row: every kind of Excel repair but
the sheet order. Also timed: unmerging through openpyxl's own ``unmerge_cells``, which scans every merged
range per call (quadratic; fix removes each range directly).
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from pathlib import Path
from typing import Any

import openpyxl

from formatkit import fix_file, validate_file


def make(rows: int, path: Path) -> None:
    book = openpyxl.Workbook()
    ws: Any = book.active
    ws.append(["会话ID", "系统提示", "问题", "参考答案", "参数", "回复"])
    for i in range(rows):
        last = i % 2 == 1
        params = "｛“temperature”：0.7，“max_tokens”：1024｝" if last else None
        ws.append([i // 2, "你是一名助手", f"问题{i}", "答案" if last else None, params, None if last else "上文"])
    for s in range(rows // 2):
        for column in (1, 2):
            ws.merge_cells(start_row=2 + 2 * s, end_row=3 + 2 * s, start_column=column, end_column=column)
    book.save(path)


def timed(action: Any) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def openpyxl_roundtrip(path: Path) -> None:
    openpyxl.load_workbook(path).save(io.BytesIO())


def openpyxl_unmerge(path: Path) -> None:
    ws: Any = openpyxl.load_workbook(path).active
    for merged in list(ws.merged_cells.ranges):
        ws.unmerge_cells(merged.coord)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[1000, 10000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for rows in args.rows:
            src = Path(tmp) / f"messy_{rows}.xlsx"
            make(rows, src)
            floor = timed(lambda: openpyxl_roundtrip(src))  # noqa: B023
            check = timed(lambda: validate_file(src, profile="none"))  # noqa: B023
            result: list[Any] = []
            fix = timed(lambda: result.append(fix_file(src, Path(tmp) / "fixed.xlsx", profile="none")))  # noqa: B023
            unmerge = timed(lambda: openpyxl_unmerge(src)) if rows <= 10000 else float("nan")  # noqa: B023
            done = result[0]
            print(
                f"{rows:>7,} rows: fix {fix:6.2f} s ({len(done.changes):,} changes, errors {done.errors_before:,} -> "
                f"{done.report.errors}) | openpyxl load+save {floor:6.2f} s (fix / floor {fix / floor:4.1f}x) | "
                f"validate {check:5.2f} s | load + unmerge_cells {unmerge:6.2f} s"
            )


if __name__ == "__main__":
    main()
