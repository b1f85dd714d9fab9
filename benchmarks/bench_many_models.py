"""``report`` of many models: time and peak memory (issue 40 item 5: 400 models × 300 questions in under
30 s and 1 GB).

Run: python benchmarks/bench_many_models.py [--models 400] [--questions 300] [--baseline REV --baseline-models 100]

Writes ``--models`` results files of ``--questions`` rule-scored records each (one dataset; each model's
chance of a right answer drawn between 0.3 and 0.9, two models with identical results among them), then runs
``formatkit report … --format json`` in a child process and prints its wall time and peak resident memory
(the child's ``ru_maxrss``). ``--baseline REV`` runs the same report with the code of a git revision (a
``git worktree`` of it in a scratch directory) on ``--baseline-models`` models: the figure to compare with,
measured in the same run on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_models(directory: Path, models: int, questions: int, seed: int = 40) -> list[Path]:
    rng = random.Random(seed)
    paths = []
    shared: list[float] | None = None
    for m in range(models):
        name = f"model-{m:03d}"
        skill = rng.uniform(0.3, 0.9)
        scores = [1.0 if rng.random() < skill else 0.0 for _ in range(questions)]
        if m == 1 and shared is not None:
            scores = shared  # model-001 answers exactly as model-000
        shared = shared or scores
        lines = []
        for q, score in enumerate(scores):
            answer = {"parameters": {}, "content": f"a{q}", "model": name, "score": score, "analysis": "rule"}
            record = {
                "session_id": q,
                "messages": [
                    {"role": "user", "content": f"question {q}"},
                    {"role": "assistant", "reference_response": "r", "responses": [answer]},
                ],
                "meta": {"dataset": "set"},
            }
            lines.append(json.dumps(record, ensure_ascii=False))
        path = directory / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def run_report(paths: list[Path], source: Path) -> tuple[float, float]:
    """Seconds and peak MiB of one ``report`` in a child process running the code in ``source``."""
    code = (
        # the source first, and no editable install's finder (it would import this tree's code instead)
        f"import sys; sys.path.insert(0, {str(source)!r})\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in type(f).__module__]\n"
        "import resource, formatkit; assert formatkit.__file__.startswith(sys.path[0]), formatkit.__file__\n"
        "from typer.testing import CliRunner; from formatkit.cli import app\n"
        "r = CliRunner().invoke(app, ['report', *sys.argv[1:], '--format', 'json', '-o', sys.argv[1] + '.json'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    env = dict(os.environ)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, *map(str, paths)], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(out.stderr[-2000:])
    return seconds, int(out.stdout.split()[-1]) / 1024


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=400)
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--baseline", help="a git revision to measure on --baseline-models models")
    parser.add_argument("--baseline-models", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        if args.baseline:
            old = base / "old"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(old), args.baseline])
            try:
                (base / "b").mkdir()
                paths = write_models(base / "b", args.baseline_models, args.questions)
                seconds, mib = run_report(paths, old)
                print(f"baseline {args.baseline}: {args.baseline_models} models × {args.questions} questions: ", end="")
                print(f"{seconds:.1f} s, peak {mib:.0f} MiB")
                seconds, mib = run_report(paths, ROOT)
                print(f"this tree: {args.baseline_models} models × {args.questions} questions: ", end="")
                print(f"{seconds:.1f} s, peak {mib:.0f} MiB")
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)])
        (base / "n").mkdir()
        paths = write_models(base / "n", args.models, args.questions)
        seconds, mib = run_report(paths, ROOT)
        print(f"this tree: {args.models} models × {args.questions} questions: {seconds:.1f} s, peak {mib:.0f} MiB")
        print(f"bound (issue 40): 30 s and 1024 MiB -> {'met' if seconds < 30 and mib < 1024 else 'NOT met'}")
    _ = resource
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
