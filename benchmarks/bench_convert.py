"""``formatkit convert`` as a whole process against the no-validation floor, interleaved in one run.

    python benchmarks/bench_convert.py                      # 30,000-row xlsx and 100,000-line jsonl
    python benchmarks/bench_convert.py --xlsx-rows N --jsonl-rows N --runs 5

The floor (benchmarks/floor_convert.py) reads the file with python-calamine or orjson, builds the canonical
records, serialises them with orjson and writes them, checking nothing. Each run starts both as fresh
processes (start-up is part of the bill), one after the other in alternating order, and compares their
outputs byte for byte: the floor must write exactly what formatkit writes, meta included, or the run stops.

Printed per format: the median wall time and CPU time (user + system, from the child's own rusage: steadier
than wall time on a shared machine) of each side, the peak RSS, and formatkit's speed as a share of the
floor's (floor time / formatkit time). The target is ≥ 75 % for both formats. On the jsonl file formatkit
reads the later half in a second process where a core is free (its CPU time then exceeds its wall time);
a third side, "one process" (FORMATKIT_WORKERS=1), shows what one process alone does. A two-row file shows
the start-up cost on its own. Data is generated once into benchmarks/data/ (git-ignored) by bench_formats.py.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_formats import DATA, make_rows, write_jsonl, write_xlsx  # noqa: E402

FLOOR = HERE / "floor_convert.py"


def _formatkit_command() -> list[str]:
    script = Path(sys.executable).parent / "formatkit"
    return [str(script)] if script.exists() else [sys.executable, "-m", "formatkit.cli"]


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, the child's and those of any process it waited for, such
    as convert's second reader) and peak RSS (MiB, the largest of those processes) of one child process. The
    peak is the child's rusage, which on Linux starts at this process's size (~20 MiB): a peak near that is
    ours."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=None if env is None else {**os.environ, **env}
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}): {stderr[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


#: formatkit as one process: convert reads a large jsonl file with a second process where a core is free
#: (formatkit._api.jsonl_part); this side shows what one process alone does.
ONE_PROCESS = "one process"


def compare(source: Path, runs: int, folder: Path, *, one_process: bool = False) -> dict[str, float]:
    ours, floor = folder / "formatkit.jsonl", folder / "floor.jsonl"
    fk_cmd = [*_formatkit_command(), "convert", str(source), "-o", str(ours), "--profile", "none"]
    floor_cmd = [sys.executable, str(FLOOR), str(source), str(floor)]
    sides: list[tuple[str, list[str], dict[str, str] | None]] = [
        ("formatkit", fk_cmd, None),
        ("floor", floor_cmd, None),
    ]
    if one_process:
        sides.append((ONE_PROCESS, fk_cmd, {"FORMATKIT_WORKERS": "1"}))
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _, _ in sides}
    for run in range(runs):
        order = sides if run % 2 == 0 else sides[::-1]
        for name, command, env in order:
            samples[name].append(timed(command, env))
            if name != "floor" and not filecmp.cmp(ours, floor, shallow=False) and floor.exists():
                raise SystemExit(f"{source.name}: formatkit's output differs from the floor's: the floor is not honest")
        if not filecmp.cmp(ours, floor, shallow=False):
            raise SystemExit(f"{source.name}: the floor's output differs from formatkit's: the floor is not honest")
    result: dict[str, float] = {}
    for name, values in samples.items():
        result[f"{name}_wall"] = statistics.median(s[0] for s in values)
        result[f"{name}_cpu"] = statistics.median(s[1] for s in values)
        result[f"{name}_peak"] = max(s[2] for s in values)
    return result


PLAIN_READ = (
    "import sys\nfrom python_calamine import CalamineWorkbook\n"
    "rows = CalamineWorkbook.from_path(sys.argv[1]).get_sheet_by_index(0).to_python()\n"
)


def memory(source: Path, runs: int, folder: Path) -> tuple[float, float]:
    """Peak RSS (MiB) of calamine's own plain read of ``source`` and of ``formatkit convert``: the target is
    formatkit at most 1.2x calamine's peak."""
    plain = max(timed([sys.executable, "-c", PLAIN_READ, str(source)])[2] for _ in range(runs))
    ours = folder / "formatkit.jsonl"
    command = [*_formatkit_command(), "convert", str(source), "-o", str(ours), "--profile", "none"]
    return plain, max(timed(command)[2] for _ in range(runs))


def _print(label: str, r: dict[str, float]) -> tuple[float, float]:
    wall = r["floor_wall"] / r["formatkit_wall"]
    cpu = r["floor_cpu"] / r["formatkit_cpu"]
    print(f"{label}")
    names = [n for n in ("floor", "formatkit", ONE_PROCESS) if f"{n}_wall" in r]
    for name in names:
        print(
            f"  {name:<11} wall {r[f'{name}_wall']:6.2f} s   cpu {r[f'{name}_cpu']:6.2f} s   "
            f"peak {r[f'{name}_peak']:6.0f} MiB"
        )
    peak = r["formatkit_peak"] / r["floor_peak"]
    print(f"  formatkit at {wall:.0%} of the floor (wall), {cpu:.0%} (cpu); peak {peak:.2f}x the floor's")
    if ONE_PROCESS in names:
        alone = r["floor_wall"] / r[f"{ONE_PROCESS}_wall"], r["floor_cpu"] / r[f"{ONE_PROCESS}_cpu"]
        print(f"  in one process at {alone[0]:.0%} of the floor (wall), {alone[1]:.0%} (cpu)")
    return wall, cpu


def ensure(path: Path, rows: int) -> Path:
    """Generate the data in a child process, so this one stays small: a child's peak RSS on Linux starts
    from its parent's size at the fork, and a parent holding 100,000 generated rows would inflate both."""
    if not path.exists():
        subprocess.run([sys.executable, __file__, "--generate", str(path), str(rows)], check=True)
    return path


def _generate(path: Path, rows: int) -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    (write_xlsx if path.suffix == ".xlsx" else write_jsonl)(path, make_rows(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--xlsx-rows", type=int, default=30_000)
    parser.add_argument("--jsonl-rows", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5, help="interleaved runs per side; medians are printed")
    parser.add_argument(
        "--memory-rows", type=int, default=100_000, help="xlsx rows for the peak-memory comparison (0: skip)"
    )
    parser.add_argument("--generate", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:
        _generate(Path(args.generate[0]), int(args.generate[1]))
        return
    xlsx = ensure(DATA / f"bench_{args.xlsx_rows}.xlsx", args.xlsx_rows)
    jsonl = ensure(DATA / f"bench_{args.jsonl_rows}.jsonl", args.jsonl_rows)
    small = ensure(DATA / "two_rows.xlsx", 2)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; medians of {args.runs} interleaved runs")
    verdicts = []
    # Inputs and outputs in memory (tmpfs) where there is one: the disk's fsync at the end (formatkit's
    # atomic write syncs its output; the floor does not) would otherwise dominate on a busy machine.
    tmpfs = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=tmpfs) as folder:
        xlsx, jsonl, small = (Path(shutil.copy(p, folder)) for p in (xlsx, jsonl, small))
        print(f"files in {tmpfs or tempfile.gettempdir()}")
        for label, path in (
            (f"xlsx, {args.xlsx_rows:,} rows", xlsx),
            (f"jsonl, {args.jsonl_rows:,} lines", jsonl),
            ("xlsx, 2 rows (start-up)", small),
        ):
            wall, cpu = _print(label, compare(path, args.runs, Path(folder), one_process=path.suffix == ".jsonl"))
            if "start-up" not in label:
                verdicts.append(f"{label.split(',')[0]} {wall:.0%} wall / {cpu:.0%} cpu")
        if args.memory_rows:
            big = Path(shutil.copy(ensure(DATA / f"bench_{args.memory_rows}.xlsx", args.memory_rows), folder))
            plain, ours = memory(big, 1, Path(folder))
            print(
                f"memory, xlsx {args.memory_rows:,} rows: calamine's plain read peaks at {plain:.0f} MiB, "
                f"formatkit convert at {ours:.0f} MiB ({ours / plain:.2f}x; target ≤ 1.2x)"
            )
    print("target ≥ 75 % of the floor: " + "; ".join(verdicts))


if __name__ == "__main__":
    main()
