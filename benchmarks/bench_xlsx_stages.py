"""Where ``formatkit convert`` of an .xlsx spends its time, stage by stage, in µs of CPU per row.

    python benchmarks/bench_xlsx_stages.py                 # the 30,000-row sheet bench_convert.py uses
    python benchmarks/bench_xlsx_stages.py --rows 100000 --runs 5

In one process, ``runs`` times over the same file: the pre-scan thread (scan_sheet, beside calamine's
open), the reading on the main thread (calamine's open, sheet and grid, the XML details), the header
rules, read_rows (every cell rule), group_rows (format and sessions) and the records (the fast path or
build_record, as ``_Run`` hands them out; serialising them is bench_convert.py's business). Beside them,
measured in the same run: calamine's plain read of the file and the floor's record building
(benchmarks/floor_convert.py without its writes, less that plain read). Each stage is the thread CPU time
(``time.thread_time``) of the thread that runs it, median of the runs: steadier than wall time on a
shared machine, and the scan's cost shows even where a second core hides it from the wall clock.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_convert import ensure  # noqa: E402
from bench_formats import DATA  # noqa: E402

_STAGES = {
    "read_sheet": "reading, main thread",
    "_fill_merged": "header and sheet rules",
    "last_data_row": "header and sheet rules",
    "_headerless_data": "header and sheet rules",
    "read_header": "header and sheet rules",
    "check_hidden": "header and sheet rules",
    "read_rows": "read_rows (cell rules)",
    "group_rows": "group_rows (format, sessions)",
}
_ORDER = [
    "pre-scan thread (scan_sheet)",
    "reading, main thread",
    "header and sheet rules",
    "read_rows (cell rules)",
    "group_rows (format, sessions)",
    "rest of the driver's read",
    "records (fast path, _Run)",
]


def _instrument(spent: dict[str, float]) -> None:
    """Wrap the driver's stage functions and the pre-scan so each adds its thread CPU time to ``spent``."""
    from formatkit._drivers import excel
    from formatkit._reading import xlsx

    def timed(function: Callable[..., Any], label: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.thread_time() - started

        return wrapper

    for name, label in _STAGES.items():
        setattr(excel, name, timed(getattr(excel, name), label))
    xlsx._Prescan._run = timed(xlsx._Prescan._run, "pre-scan thread (scan_sheet)")  # type: ignore[method-assign]
    excel.ExcelReader._read = timed(excel.ExcelReader._read, "driver's read")  # type: ignore[method-assign]


def _convert_once(path: Path, spent: dict[str, float]) -> None:
    from formatkit._api.validate import _Run

    spent.clear()
    gc.collect()
    started = time.thread_time()
    for _ in _Run(path, "infer-eval", "none"):
        pass
    total = time.thread_time() - started
    read = spent.pop("driver's read")
    inner = sum(v for k, v in spent.items() if k != "pre-scan thread (scan_sheet)")
    spent["rest of the driver's read"] = read - inner
    spent["records (fast path, _Run)"] = total - read


def _plain_read(path: Path) -> float:
    from python_calamine import CalamineWorkbook

    gc.collect()
    started = time.thread_time()
    book = CalamineWorkbook.from_path(str(path))
    sheet = book.get_sheet_by_index(0)
    del book
    sheet.to_python(skip_empty_area=False)
    return time.thread_time() - started


def _floor_records(path: Path) -> float:
    from floor_convert import _records_xlsx

    gc.collect()
    started = time.thread_time()
    for _ in _records_xlsx(str(path)):
        pass
    return time.thread_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    path = ensure(DATA / f"bench_{args.rows}.xlsx", args.rows)
    spent: dict[str, float] = {}
    _instrument(spent)
    samples: dict[str, list[float]] = {}
    for _ in range(args.runs):
        samples.setdefault("calamine plain read", []).append(_plain_read(path))
        samples.setdefault("floor: read + records", []).append(_floor_records(path))
        _convert_once(path, spent)
        for label, seconds in spent.items():
            samples.setdefault(label, []).append(seconds)
    median = {label: statistics.median(values) for label, values in samples.items()}
    rows = args.rows

    def line(label: str, seconds: float) -> None:
        print(f"  {label:<34} {seconds * 1000:8.1f} ms {seconds / rows * 1e6:7.2f} µs/row")

    print(f"{path.name}: CPU by stage, median of {args.runs} runs (thread CPU time)")
    print("formatkit")
    for label in _ORDER:
        line(label, median.get(label, 0.0))
    ours = sum(median.get(label, 0.0) for label in _ORDER)
    line("total (all threads)", ours)
    print("baseline, same run")
    line("calamine plain read", median["calamine plain read"])
    floor_records = median["floor: read + records"] - median["calamine plain read"]
    line("floor: records, no checks", floor_records)
    line("floor total", median["floor: read + records"])
    print(f"formatkit's excess over the floor: {(ours - median['floor: read + records']) / rows * 1e6:.2f} µs/row")


if __name__ == "__main__":
    main()
