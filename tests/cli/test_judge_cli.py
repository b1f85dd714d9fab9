"""``formatkit score --metric judge|pairwise|math-judge`` and ``--metric math --judge-fallback`` from the
command line, with the tests' local server playing the judge."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fakeserver import FakeOpenAI, last_user
from typer.testing import CliRunner

from formatkit.cli import app


def rec(sid: int, question: str, reference: str, content: str) -> dict[str, Any]:
    return {
        "session_id": sid,
        "messages": [
            {"role": "user", "content": question},
            {
                "role": "assistant",
                "reference_response": reference,
                "responses": [{"parameters": {}, "content": content}],
            },
        ],
    }


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def score_of(record: dict[str, Any]) -> Any:
    return record["messages"][-1]["responses"][0]["score"]


def run(server: FakeOpenAI, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["score", *args, "--judge-base-url", server.base_url, "--judge-model", "judge-1"], catch_exceptions=False
    )


def section(prompt: str, name: str) -> str:
    match = re.search(f"⟪{name}⟫\n(.*?)\n⟪/{name}⟫", prompt, re.DOTALL)
    assert match is not None
    return match.group(1)


def test_score_metric_judge_and_rerun_resumes(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = lambda body: (
        '{"分析": "结论正确", "分数": 2}' if "7" in section(last_user(body), "对话") else "不好说"
    )
    source = write_jsonl(
        tmp_path / "in.jsonl", [rec(0, "三加四等于几？7", "7", "等于7"), rec(1, "二加二等于几？", "4", "5")]
    )
    out = tmp_path / "out.jsonl"
    result = run(fake_openai, str(source), "-o", str(out), "--metric", "judge", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["datasets"]["in"]["metric"] == "judge"
    assert summary["datasets"]["in"]["errors"] == 1
    records = read_jsonl(out)
    assert [score_of(r) for r in records] == [2.0, None]
    unparseable = records[1]["messages"][-1]["responses"][0]
    assert unparseable["judge"]["reply"] == "不好说" and "no verdict" in unparseable["analysis"]
    assert "结论正确" in out.read_text(encoding="utf-8")  # Chinese never escaped
    assert fake_openai.requests == 2

    fake_openai.reset()
    again = run(fake_openai, str(source), "-o", str(out), "--metric", "judge", "--json")
    assert again.exit_code == 0
    assert fake_openai.requests == 0  # every verdict came from OUT.journal
    assert read_jsonl(out) == records


def test_score_metric_pairwise_against(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    def judge(body: dict[str, Any]) -> str:
        model_is_a = "MINE" in section(last_user(body), "ANSWER A")
        return json.dumps({"analysis": "mine is better", "choice": "A++" if model_is_a else "B++"})

    fake_openai.responder = judge
    source = write_jsonl(tmp_path / "in.jsonl", [rec(0, "q0", "r", "MINE 0"), rec(1, "q1", "r", "MINE 1")])
    other = write_jsonl(tmp_path / "other.jsonl", [rec(1, "q1", "r", "THEIRS 1"), rec(0, "q0", "r", "THEIRS 0")])
    out = tmp_path / "out.jsonl"
    result = run(fake_openai, str(source), "-o", str(out), "--metric", "pairwise", "--against", str(other))
    assert result.exit_code == 0, result.output
    records = read_jsonl(out)
    assert [score_of(r) for r in records] == [1.0, 1.0]
    assert fake_openai.requests == 4
    assert all("THEIRS" in last_user(b) and "⟪REFERENCE⟫" not in last_user(b) for b in fake_openai.bodies)


def test_score_template_missing_placeholder_is_usage_error_before_any_request(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    template = tmp_path / "mine.txt"
    template.write_text("Judge {{question}} against {{reference}}.", encoding="utf-8")
    source = write_jsonl(tmp_path / "in.jsonl", [rec(0, "q", "r", "c")])
    out = tmp_path / "out.jsonl"
    result = run(fake_openai, str(source), "-o", str(out), "--metric", "judge", "--judge-template", str(template))
    assert result.exit_code == 2
    assert "missing {{response}}" in result.stderr
    assert fake_openai.requests == 0
    assert not out.exists()


def test_score_math_judge(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    def judge(body: dict[str, Any]) -> str:
        prompt = last_user(body)
        if "⟪SOLUTION⟫" in prompt:
            return "<answer>1/2</answer>"
        return "<score>1.0</score>"

    fake_openai.responder = judge
    source = write_jsonl(tmp_path / "in.jsonl", [rec(0, "2/4 = ?", "0.5", "half, i.e. 1/2")])
    out = tmp_path / "out.jsonl"
    result = run(fake_openai, str(source), "-o", str(out), "--metric", "math-judge", "--json")
    assert result.exit_code == 0, result.output
    assert score_of(read_jsonl(out)[0]) == 1.0
    assert fake_openai.requests == 2


def test_score_math_with_judge_fallback(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    def judge(body: dict[str, Any]) -> str:
        prompt = last_user(body)
        if "⟪SOLUTION⟫" in prompt:
            return "<answer>12</answer>"
        return "<score>1</score>"

    fake_openai.responder = judge
    records = [
        rec(0, "3 * 4 = ?", "12", "The answer is \\boxed{12}."),
        rec(1, "What is 3 * 4?", "12", "Three fours make a dozen"),
    ]
    source = write_jsonl(tmp_path / "in.jsonl", records)
    out = tmp_path / "out.jsonl"
    result = run(fake_openai, str(source), "-o", str(out), "--metric", "math", "--judge-fallback", "--json")
    assert result.exit_code == 0, result.output
    settled, fallback = read_jsonl(out)
    assert score_of(settled) == 1.0 and "judge" not in settled["messages"][-1]["responses"][0]
    assert score_of(fallback) == 1.0
    assert fallback["messages"][-1]["responses"][0]["judge"]["metric"] == "math-judge"
    assert fake_openai.requests == 2  # only the item the rules could not settle


def test_score_pairwise_text_report_shows_verdict_counts_and_disagreement(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    def judge(body: dict[str, Any]) -> str:
        answer_a = section(last_user(body), "ANSWER A")
        if "GOOD" in answer_a:
            return '{"analysis": "A is right", "choice": "A++"}'
        if "BIASED" in last_user(body):
            return '{"analysis": "A came first", "choice": "A+"}'  # position bias: A wins either way
        return '```json\n{"analysis": "B is right", "choice": "B+",}\n```'

    fake_openai.responder = judge
    source = write_jsonl(
        tmp_path / "in.jsonl",
        [
            rec(0, "q0", "ref", "GOOD answer"),
            rec(1, "q1", "ref", "BIASED answer"),
            rec(2, "q2", "GOOD ref", "weak"),
        ],
    )
    out = tmp_path / "out.jsonl"
    result = run(fake_openai, str(source), "-o", str(out), "--metric", "pairwise")
    assert result.exit_code == 0, result.output
    # GOOD: +1 and +0.5; BIASED: +0.5 and -0.5 (the orders disagree); weak: -0.5 and -1. Mean 0, not -0.
    assert (
        "Judge judge-1 (pairwise): 3 of 3 response(s) scored; mean ×100 0.00; win 1, tie 1, loss 1; "
        "the two orders disagreed on 1 of 3 pair(s) (33.3%)"
    ) in result.stdout
    assert "judge requests: 6 bought, 0 reused from the journal" in result.stdout
    assert "judge: 3/3 responses (100.0%)" in result.stderr  # progress, on stderr

    # `report` on the judged file shows the same verdict statistics, from what the judge wrote per response.
    report = CliRunner().invoke(app, ["report", str(out), "--format", "json"], catch_exceptions=False)
    assert report.exit_code == 0, report.output
    [dataset] = json.loads(report.stdout)["datasets"].values()
    assert dataset["pairwise"] == {
        "win": 1,
        "tie": 1,
        "loss": 1,
        "mean_x100": 0.0,
        "pairs_both_orders": 3,
        "disagreements": 1,
        "disagreement_rate": 0.3333,
    }
    assert dataset["strict"] is None  # A++ twice is not an accuracy
    text = CliRunner().invoke(app, ["report", str(out)], catch_exceptions=False)
    assert "win 1 / tie 1 / loss 1; the two orders disagreed on 1 of 3 pairs (33.3%" in text.stdout


def test_score_with_the_judge_down_stops_writes_nothing_and_resumes(tmp_path: Path) -> None:
    server = FakeOpenAI().start()
    port = server.port
    server.responder = lambda body: '{"analysis": "ok", "score": 2}'
    source = write_jsonl(tmp_path / "in.jsonl", [rec(i, f"q{i}", "r", f"answer {i}") for i in range(12)])
    out = tmp_path / "out.jsonl"
    args = [str(source), "-o", str(out), "--metric", "judge", "--concurrency", "1", "--max-retries", "0"]

    def down_after_five(body: dict[str, Any]) -> None:
        if server.requests > 5:
            server.go_down()
        return None

    server.rules.append(down_after_five)
    try:
        result = run(server, *args)
    finally:
        server.stop()
    assert result.exit_code == 1
    assert "formatkit score: stopped: judge endpoint" in result.stderr and "could not connect" in result.stderr
    assert "check that the server is running" in result.stderr
    assert f"verdict(s) bought in this run are kept in {out}.journal" in result.stderr
    assert (tmp_path / "out.jsonl.journal").exists()  # the message names a file that is there
    assert not out.exists()  # no report of a score made of "request failed"
    bought = int(re.search(r"(\d+) verdict\(s\) bought", result.stderr).group(1))  # type: ignore[union-attr]
    assert bought >= 5

    again = FakeOpenAI().start(port)
    again.responder = lambda body: '{"analysis": "ok", "score": 2}'
    try:
        result = run(again, *args)
    finally:
        again.stop()
    assert result.exit_code == 0, result.stderr
    assert again.requests == 12 - bought  # nothing bought twice
    assert [score_of(r) for r in read_jsonl(out)] == [2.0] * 12


def test_score_with_a_rejected_judge_key_stops_and_never_shows_it(
    fake_openai: FakeOpenAI, tmp_path: Path, monkeypatch: Any
) -> None:
    key = "sk-judge-5f4e3d2c1b0a99887766SECRET"
    fake_openai.api_key = "sk-judge-the-right-one-0000000000"
    monkeypatch.setenv("FK_JUDGE_KEY", key)
    source = write_jsonl(tmp_path / "in.jsonl", [rec(i, f"q{i}", "r", f"a{i}") for i in range(20)])
    out = tmp_path / "out.jsonl"
    result = run(
        fake_openai,
        str(source),
        "-o",
        str(out),
        "--metric",
        "judge",
        "--judge-api-key-env",
        "FK_JUDGE_KEY",
        "--concurrency",
        "1",
    )
    assert result.exit_code == 1
    assert fake_openai.requests == 3
    assert "refused with HTTP 401" in result.stderr and "check the API key in $FK_JUDGE_KEY." in result.stderr
    journal = Path(f"{out}.journal")
    for text in (result.stdout, result.stderr, journal.read_text("utf-8") if journal.exists() else ""):
        assert key not in text and key[:8] not in text and key[-4:] not in text


def test_score_interrupted_keeps_the_verdicts_and_resumes(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from sigterm import stderr_until

    fake_openai.hold_after(8)  # 8 verdicts, then the requests in flight wait until the score has heard Ctrl-C
    fake_openai.responder = lambda body: '{"analysis": "ok", "score": 2}'
    source = write_jsonl(tmp_path / "in.jsonl", [rec(i, f"q{i}", "r", f"a{i}") for i in range(60)])
    out = tmp_path / "out.jsonl"
    journal = Path(f"{out}.journal")
    command = [
        sys.executable,
        "-c",
        "from formatkit.cli import main; main()",
        "score",
        str(source),
        "-o",
        str(out),
        "--metric",
        "judge",
        "--judge-base-url",
        fake_openai.base_url,
        "--judge-model",
        "judge-1",
    ]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OPENAI_API_KEY": ""},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while not (journal.exists() and journal.read_bytes().count(b"\n") >= 8) and time.monotonic() < deadline:
        time.sleep(0.005)
    process.send_signal(signal.SIGINT)
    stderr = stderr_until(process, "request(s) in flight")
    fake_openai.release()
    stderr += process.communicate(timeout=60)[1]
    assert process.returncode == 130, stderr
    assert f"interrupted; the verdicts bought so far are kept in {journal}" in stderr
    assert "Traceback" not in stderr and not out.exists()
    bought = journal.read_bytes().count(b"\n")

    fake_openai.reset()
    result = run(fake_openai, str(source), "-o", str(out), "--metric", "judge")
    assert result.exit_code == 0, result.stderr
    assert fake_openai.requests == 60 - bought
    assert [score_of(r) for r in read_jsonl(out)] == [2.0] * 60
