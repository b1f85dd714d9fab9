"""The library used as a newcomer uses it: a script in a fresh folder, with no ``if __name__ == "__main__":``
guard, run as its own process against the loopback server (issue 18 item 2, issue 20 item 6).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from fakeserver import FakeOpenAI, last_user


def run_script(folder: Path, source: str, server: FakeOpenAI, **env: str) -> subprocess.CompletedProcess[str]:
    """``python script.py`` in ``folder`` (its own folder, as a user runs it), ``$URL`` naming the server."""
    script = folder / "script.py"
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "PYTHONPATH")}
    environment.update(URL=server.base_url, **env)
    return subprocess.run(
        [sys.executable, "script.py"], cwd=folder, env=environment, capture_output=True, text=True, timeout=120
    )


def test_scoring_math_never_runs_the_callers_script_again(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """The math metric's sympy worker was a multiprocessing spawn, which re-imports ``__main__``: this script
    ran 11 times and bought 110 requests for 10 records (24 s); now once, 10 requests."""
    with (tmp_path / "set.jsonl").open("w", encoding="utf-8") as handle:
        for i in range(10):  # binomial(...) is beyond the fast paths: sympy decides it
            handle.write(json.dumps({"prompt": f"binomial({i + 5},2)", "answer": str(math.comb(i + 5, 2))}) + "\n")
    fake_openai.responder = lambda body: "\\boxed{" + last_user(body) + "}"
    result = run_script(
        tmp_path,
        """
        import os, time
        from scoring import EndpointOptions, run_file, score_file

        with open("runs.log", "a") as log:
            log.write("ran\\n")
        out = f"out-{time.time_ns()}.jsonl"  # a name per run, as people write them
        summary = run_file("set.jsonl", out, EndpointOptions(os.environ["URL"], "my-model"), limit=10)
        done = score_file(out, "scored.jsonl", metric="math")
        print(summary.to_dict()["records"], done.scored_responses)
        """,
        fake_openai,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "runs.log").read_text() == "ran\n"
    assert fake_openai.requests == 10
    assert result.stdout.split() == ["10", "10"] and "Traceback" not in result.stderr
    scored = [json.loads(line) for line in (tmp_path / "scored.jsonl").read_text(encoding="utf-8").splitlines()]
    responses = [r["messages"][-1]["responses"][0] for r in scored]
    assert all(r["score"] == 1.0 and "sympy" in r["analysis"] for r in responses)
