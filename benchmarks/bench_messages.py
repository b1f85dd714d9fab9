"""What messages cost: validating a file where every line has issues, and printing its report in Chinese.

    python benchmarks/bench_messages.py            # 100,000 lines
    python benchmarks/bench_messages.py --lines N

A jsonl whose every line has a misspelt key (``unknown_key`` with a "did you mean") and every third line a
temperature out of range: 133,334 issues, of which the first 1,000 per code are kept. Messages are templates
(formatkit/_core/messages): a kept issue's English text is rendered once, a counted-only one never, and a
"did you mean" (difflib, ~40 µs) only for a kept issue. Baseline in the same run: parsing every line with
orjson. Figures are CPU seconds (the best of --repeat), so other work on the machine does not blur them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def write(path: Path, lines: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for n in range(lines):
            obj: dict[str, object] = {"prompt": f"问题 {n}", "answer": str(n), "temprature": 0.7}
            if n % 3 == 0:
                obj["parameters"] = {"temperature": 5}
            handle.write(json.dumps(obj, ensure_ascii=False) + "\n")


def best(repeat: int, work: object) -> float:
    assert callable(work)
    times = []
    for _ in range(repeat):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import orjson

    from formatkit import validate_files
    from formatkit.cli._printing import print_report

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "issues.jsonl"
        write(path, args.lines)

        def parse() -> None:
            with path.open("rb") as handle:
                for raw in handle:
                    orjson.loads(raw)

        report = validate_files([path], profile="none")
        baseline = best(args.repeat, parse)
        validate = best(args.repeat, lambda: validate_files([path], profile="none"))
        out = sys.stdout
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 — the printed report itself is not the figure
        try:
            english = best(args.repeat, lambda: print_report(report, lang="en", shown=None))
            chinese = best(args.repeat, lambda: print_report(report, lang="zh", shown=None))
        finally:
            sys.stdout.close()
            sys.stdout = out
    file = report.files[0]
    print(f"{args.lines:,} lines, {file.errors + file.warnings:,} issues, {len(file.issues):,} kept")
    print(f"  orjson parse (baseline)     {baseline:6.2f} s CPU")
    print(f"  validate                    {validate:6.2f} s CPU  ({validate / baseline:.1f}x the parse)")
    print(f"  print every kept issue, en  {english:6.2f} s CPU")
    print(f"  print every kept issue, zh  {chinese:6.2f} s CPU  ({chinese / max(english, 1e-9):.2f}x en)")


if __name__ == "__main__":
    main()
