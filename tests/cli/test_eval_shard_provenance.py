"""``eval --shard K/N`` merged back, and the run record (``run.json``) every eval writes: nothing secret in it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
from fakeserver import FakeOpenAI
from typer.testing import CliRunner, Result

import formatkit
from formatkit.cli import app

SEED = Path(__file__).parents[2] / "fixtures" / "seed"
SETS = [str(SEED / n) for n in ("seed_excel_single_turn.xlsx", "seed_excel_multi_turn.xlsx",
                                 "seed_jsonl_single_turn.jsonl", "seed_jsonl_multi_turn.jsonl")]  # fmt: skip
KEY = "sk-live-4b1f0c2e9d8a7766SECRETKEY"
HEADER_VALUE = "tenant-SECRETHEADER-31337"
JUDGE_KEY = "sk-judge-0a9b8c7d6e5fJUDGESECRET"


def _eval(server: FakeOpenAI, out: Path, *extra: str, env: dict[str, str] | None = None) -> Result:
    args = ["eval", *SETS, "--base-url", server.base_url, "--model", "seed-model", "-o", str(out), *extra]
    return CliRunner(env={"OPENAI_API_KEY": "", **(env or {})}).invoke(app, args)


def _records(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_bytes().splitlines():
        record = orjson.loads(line)
        for message in record["messages"]:
            for response in message.get("responses") or []:
                response.pop("latency_ms", None)
                response.pop("ttft_ms", None)
        out.append(record)
    return out


def test_eval_parts_merge_to_the_unsharded_eval(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    assert _eval(fake_openai, whole).exit_code == 0
    dirs = []
    for k in (1, 2):
        part = tmp_path / f"part{k}"
        result = _eval(fake_openai, part, "--shard", f"{k}/2")
        assert result.exit_code == 0, result.output
        dirs.append(part)
    every = _records(whole / "scored.jsonl")
    assert _records(dirs[0] / "scored.jsonl") == every[0::2]
    merged = tmp_path / "merged.jsonl"
    result = CliRunner().invoke(app, ["merge", *map(str, dirs), "-o", str(merged)])
    assert result.exit_code == 0, result.output
    assert _records(merged) == every
    # report reads both parts' scored files as one model, with the unsharded scores
    parts = CliRunner().invoke(app, ["report", *(str(d / "scored.jsonl") for d in dirs), "--format", "json"])
    one = json.loads((whole / "report.json").read_text(encoding="utf-8"))
    both = json.loads(parts.stdout)
    assert list(both["models"]) == ["seed-model"]
    assert both["models"]["seed-model"]["datasets"] == one["models"]["seed-model"]["datasets"]
    # one part missing: refused, naming it
    result = CliRunner().invoke(app, ["merge", str(dirs[0]), "-o", str(tmp_path / "m.jsonl")])
    assert result.exit_code == 1 and "2/2 missing" in result.stderr


def test_version_prints_the_installed_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"formatkit {formatkit.__version__}"


def test_run_json_records_what_produced_the_result_and_no_secret(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.api_key = KEY
    fake_openai.responder = lambda body: "2" if "judge" not in json.dumps(body) else '{"score": 2}'
    out = tmp_path / "eval"
    url = fake_openai.base_url + "?api-key=QUERYSECRET"
    result = CliRunner(env={"OPENAI_API_KEY": KEY, "JUDGE_KEY": JUDGE_KEY}).invoke(
        app,
        ["eval", *SETS, "--base-url", url, "--model", "seed-model", "-o", str(out),
         "--header", f"X-Tenant={HEADER_VALUE}", "--param", "temperature=0.2", "--param", "max_tokens=64"],
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert record["formatkit_version"] == formatkit.__version__
    stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$")
    assert stamp.match(record["started"]) and stamp.match(record["finished"])
    assert record["started"] <= record["finished"]
    assert record["command"].startswith("formatkit eval ") and "--model seed-model" in record["command"]
    assert "X-Tenant=***" in record["command"]
    assert record["base_url"].startswith(fake_openai.base_url) and "QUERYSECRET" not in record["base_url"]
    assert record["model"] == "seed-model"
    assert record["parameters"] == {"temperature": 0.2, "max_tokens": 64}
    assert record["endpoint"]["headers"] == ["X-Tenant"]
    assert record["judge"] is None
    written = b"".join(p.read_bytes() for p in out.iterdir() if p.is_file())
    for secret in (KEY, HEADER_VALUE, "QUERYSECRET", KEY[-12:]):
        assert secret.encode() not in written, secret
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    [run] = report["runs"]["seed-model"]
    assert run["model"] == "seed-model" and run["command"] == record["command"]


def test_reports_show_the_runs_and_each_models_speed(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    from openpyxl import load_workbook

    fake_openai.delay = 0.01
    out = tmp_path / "eval"
    assert _eval(fake_openai, out).exit_code == 0
    scored = [json.loads(line) for line in (out / "scored.jsonl").read_text(encoding="utf-8").splitlines()]
    responses = [r for record in scored for r in record["messages"][-1]["responses"]]
    assert all(r["latency_ms"] >= 10 and 0 < r["ttft_ms"] <= r["latency_ms"] for r in responses)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    speed = report["speed"]["seed-model"]
    assert speed["timed_responses"] == len(responses) and speed["untimed_responses"] == 0
    assert speed["latency_ms"]["p50"] >= 10 and speed["tokens_per_second"] > 0
    text = (out / "report.txt").read_text(encoding="utf-8")
    assert "speed (per model" in text and "output tokens/s" in text and "runs (what produced" in text
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="runs"' in html and "formatkit eval" in html
    book = tmp_path / "r.xlsx"
    result = CliRunner().invoke(app, ["report", str(out / "scored.jsonl"), "--format", "xlsx", "-o", str(book)])
    assert result.exit_code == 0, result.output
    workbook = load_workbook(book, read_only=True)
    assert {"Runs", "Speed"} <= set(workbook.sheetnames)
    runs = list(workbook["Runs"].iter_rows(values_only=True))
    assert runs[1][0] == "seed-model" and str(runs[1][9]).startswith("formatkit eval")
    speed_rows = list(workbook["Speed"].iter_rows(values_only=True))
    assert speed_rows[1][0] == "seed-model" and isinstance(speed_rows[1][2], (int, float))


def test_a_plain_request_records_latency_without_first_token(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = tmp_path / "set.jsonl"
    src.write_text('{"prompt": "1+1=？", "answer": "2"}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    args = ["run", str(src), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "m", "--no-stream"]
    assert CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, args).exit_code == 0
    [response] = orjson.loads(out.read_bytes())["messages"][-1]["responses"]
    assert response["latency_ms"] > 0 and "ttft_ms" not in response
    record = json.loads((tmp_path / "out.jsonl.run.json").read_text(encoding="utf-8"))
    assert record["endpoint"]["stream"] is False and "shard" not in record


def test_run_json_names_the_judge_and_keeps_its_key_out(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.api_key = KEY
    out = tmp_path / "eval"
    judge_url = fake_openai.base_url.replace("://", "://user:PASSWORDSECRET@")
    result = CliRunner(env={"OPENAI_API_KEY": KEY}).invoke(
        app,
        ["eval", *SETS, "--base-url", fake_openai.base_url, "--model", "seed-model", "-o", str(out),
         "--judge-base-url", judge_url, "--judge-model", "judge-model"],
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert record["judge"]["model"] == "judge-model"
    assert record["judge"]["template"].startswith("built-in absolute")
    assert record["judge"]["base_url"] == fake_openai.base_url and "--judge-model judge-model" in record["command"]
    written = b"".join(p.read_bytes() for p in out.iterdir() if p.is_file())
    for secret in (KEY, "PASSWORDSECRET"):
        assert secret.encode() not in written, secret


def test_eval_runs_a_set_over_the_upload_limit_whole_or_sharded(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    # #30 item 3, #39: the platform's 1,000-row upload limit says what may be uploaded; an eval runs the set,
    # whole or in parts, and uploads nothing. Both run it; --profile platform stops both before any request.
    big = tmp_path / "big.jsonl"
    big.write_text("".join(f'{{"prompt": "{i}+1", "answer": "{i + 1}"}}\n' for i in range(1200)), encoding="utf-8")
    args = ["eval", str(big), "--base-url", fake_openai.base_url, "--model", "m", "--limit", "2"]
    runner = CliRunner(env={"OPENAI_API_KEY": ""})
    whole = runner.invoke(app, [*args, "-o", str(tmp_path / "whole")])
    assert whole.exit_code == 0, whole.output
    assert "too_many_rows" not in whole.output
    assert len((tmp_path / "whole" / "canonical.jsonl").read_bytes().splitlines()) == 1200
    part = runner.invoke(app, [*args, "-o", str(tmp_path / "part"), "--shard", "1/2"])
    assert part.exit_code == 0, part.output
    assert len((tmp_path / "part" / "canonical.jsonl").read_bytes().splitlines()) == 1200
    fake_openai.reset()
    for extra in ([], ["--shard", "1/2"]):
        out = tmp_path / f"strict{len(extra)}"
        strict = runner.invoke(app, [*args, "-o", str(out), *extra, "--profile", "platform"])
        assert strict.exit_code == 1 and "too_many_rows" in strict.output, strict.output
    assert fake_openai.requests == 0
