"""``run --estimate`` (#30 item 4): the bill before paying, with no completion requested; exact through the
endpoint's tokenize route, an approximation by characters per token without one; the worst case of the
output never below what the run then uses; money from a price file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner, Result

from formatkit.cli import app
from scoring._runner.estimate import CHARS_PER_TOKEN, MESSAGE_OVERHEAD, REQUEST_OVERHEAD, ratio_tokens, tokenize_url

SEED = Path(__file__).parents[2] / "fixtures" / "seed"
SETS = ["seed_jsonl_single_turn.jsonl", "seed_jsonl_multi_turn.jsonl", "seed_excel_single_turn.xlsx"]


def invoke(*args: str) -> Result:
    return CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, list(args))


def estimate(server: FakeOpenAI, source: Path, out: Path, *extra: str) -> dict[str, Any]:
    result = invoke("run", str(source), "-o", str(out), "--base-url", server.base_url, "--model", "m",
                    "--estimate", "--json", *extra)  # fmt: skip
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.parametrize("name", SETS)
def test_tokenize_route_gives_the_prompt_tokens_the_run_then_reports(
    fake_openai: FakeOpenAI, tmp_path: Path, name: str
) -> None:
    fake_openai.tokenize = True
    out = tmp_path / "out.jsonl"
    counted = estimate(fake_openai, SEED / name, out)
    assert fake_openai.requests == 0  # not one completion bought
    assert counted["prompt_tokens_method"] == "tokenize"
    assert fake_openai.tokenize_requests == counted["requests"] > 0
    ran = invoke("run", str(SEED / name), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "m")
    assert ran.exit_code == 0, ran.output
    assert fake_openai.requests == counted["requests"]
    summary = json.loads(Path(f"{out}.run.json").read_text(encoding="utf-8"))["summary"]
    assert counted["prompt_tokens"] == summary["tokens"]["prompt_tokens"]  # exact: the server's own count
    assert counted["max_output_tokens"] >= summary["tokens"]["completion_tokens"]  # never below the actual
    # the journal holds every answer now: a rerun would send nothing, and the estimate says so
    again = estimate(fake_openai, SEED / name, out)
    assert (again["requests"], again["already_finished"]) == (0, again["records"])


def test_without_a_tokenize_route_the_ratio_is_used_and_said(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    counted = estimate(fake_openai, SEED / SETS[0], tmp_path / "o.jsonl")
    assert fake_openai.requests == 0
    assert counted["prompt_tokens_method"] == "ratio"
    assert any("no tokenize route" in note for note in counted["notes"])
    assert counted["prompt_tokens"] > 0


def test_the_ratio_counts_chinese_and_latin_apart() -> None:
    messages = [{"role": "system", "content": "你是助手"}, {"role": "user", "content": "abcdefgh 你好"}]
    cjk, latin = 4 + 2, 8 + 1
    expected = round(cjk / CHARS_PER_TOKEN["cjk"] + latin / CHARS_PER_TOKEN["latin"])
    assert ratio_tokens(messages) == expected + 2 * MESSAGE_OVERHEAD + REQUEST_OVERHEAD


@pytest.mark.parametrize(
    ("base_url", "route"),
    [
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/tokenize"),
        ("http://h:8000/v1/", "http://h:8000/tokenize"),
        ("https://gw.example/openai/v1?key=1", "https://gw.example/openai/tokenize?key=1"),
    ],
)
def test_the_tokenize_route_is_beside_v1(base_url: str, route: str) -> None:
    assert tokenize_url(base_url) == route


def test_requests_without_max_tokens_have_no_worst_case(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    source = tmp_path / "set.jsonl"
    source.write_text('{"prompt": "1+1等于几？", "answer": "2"}\n{"prompt": "2+2?", "answer": "4"}\n', "utf-8")
    counted = estimate(fake_openai, source, tmp_path / "o.jsonl")
    assert (counted["requests"], counted["unbounded_requests"], counted["max_output_tokens"]) == (2, 2, 0)
    bounded = estimate(fake_openai, source, tmp_path / "o.jsonl", "--param", "max_tokens=100")
    assert (bounded["unbounded_requests"], bounded["max_output_tokens"]) == (0, 200)


def test_prices_give_the_cost_of_the_worst_case(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.tokenize = True
    source = tmp_path / "set.jsonl"
    source.write_text('{"prompt": "一二三四五六七八九十", "answer": "x"}\n', encoding="utf-8")
    prices = tmp_path / "prices.json"
    prices.write_text('{"m": {"prompt": 2.0, "output": 8.0, "currency": "CNY"}}', encoding="utf-8")
    counted = estimate(fake_openai, source, tmp_path / "o.jsonl", "--param", "max_tokens=1000", "--prices", str(prices))
    assert counted["prompt_tokens"] == 10
    assert counted["cost"] == pytest.approx((10 * 2.0 + 1000 * 8.0) / 1_000_000)
    assert counted["currency"] == "CNY"


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--prices", "PRICES"], "cannot read it as JSON"),
        (["--prices", "OTHER"], "under the model's name 'm'"),
    ],
)
def test_a_bad_price_file_is_bad_usage(fake_openai: FakeOpenAI, tmp_path: Path, extra: list[str], said: str) -> None:
    (tmp_path / "PRICES").write_text("{not json", encoding="utf-8")
    (tmp_path / "OTHER").write_text('{"gpt-4o": {"prompt": 1, "output": 2}}', encoding="utf-8")
    args = [str(tmp_path / e) if e in ("PRICES", "OTHER") else e for e in extra]
    result = invoke("run", str(SEED / SETS[0]), "-o", str(tmp_path / "o.jsonl"), "--base-url", fake_openai.base_url,
                    "--model", "m", "--estimate", *args)  # fmt: skip
    assert result.exit_code == 2 and said in result.output, result.output
    assert fake_openai.requests == 0


def test_estimate_options_without_estimate_are_bad_usage(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    result = invoke("run", str(SEED / SETS[0]), "-o", str(tmp_path / "o.jsonl"), "--base-url", fake_openai.base_url,
                    "--model", "m", "--json")  # fmt: skip
    assert result.exit_code == 2 and "--json goes with --estimate" in result.output
    assert fake_openai.requests == 0


@pytest.mark.parametrize(("lang", "said"), [("en", "nothing was sent"), ("zh", "没有发送任何请求")])
def test_the_estimate_in_words(fake_openai: FakeOpenAI, tmp_path: Path, lang: str, said: str) -> None:
    result = invoke("run", str(SEED / SETS[0]), "-o", str(tmp_path / "o.jsonl"), "--base-url", fake_openai.base_url,
                    "--model", "m", "--estimate", "--lang", lang)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert said in result.stderr and ("prompt tokens" in result.stderr or "输入 token" in result.stderr)
    assert fake_openai.requests == 0


def _eval_estimate(server: FakeOpenAI, out: Path, *extra: str) -> Result:
    sets = [str(SEED / name) for name in SETS]
    return invoke("eval", *sets, "-o", str(out), "--base-url", server.base_url, "--model", "m", "--estimate", *extra)


def test_eval_estimate_counts_the_model_and_the_judge_and_buys_nothing(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.tokenize = True
    judge = ["--judge-base-url", fake_openai.base_url, "--judge-model", "j"]
    result = _eval_estimate(fake_openai, tmp_path / "eval", "--json", *judge)
    assert result.exit_code == 0, result.output
    counted = json.loads(result.stdout)
    assert fake_openai.requests == 0 and counted["prompt_tokens_method"] == "tokenize"
    # only the checked canonical set is written, as eval's first step (the rerun reads it again)
    assert sorted(p.name for p in (tmp_path / "eval").iterdir()) == ["canonical.jsonl"]
    ran = invoke("eval", *(str(SEED / n) for n in SETS), "-o", str(tmp_path / "eval"),
                 "--base-url", fake_openai.base_url, "--model", "m", *judge)  # fmt: skip
    assert ran.exit_code in (0, 1), ran.output
    # what was bought: the model's requests as counted, and no more judge requests than the estimate's bound
    judged = [b for b in fake_openai.bodies if b.get("model") == "j"]
    assert fake_openai.requests - len(judged) == counted["requests"]
    assert len(judged) <= counted["judge_requests"]
    record = json.loads((tmp_path / "eval" / "run.json").read_text(encoding="utf-8"))
    assert counted["prompt_tokens"] == record["summary"]["tokens"]["prompt_tokens"]


def test_eval_estimate_of_an_invalid_set_shows_the_issues(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": 1}\n', encoding="utf-8")
    result = invoke("eval", str(bad), "-o", str(tmp_path / "e"), "--base-url", fake_openai.base_url, "--model", "m",
                    "--estimate")  # fmt: skip
    assert result.exit_code == 1 and "bad.jsonl" in result.output
    assert fake_openai.requests == 0


def test_the_run_record_keeps_the_estimate_beside_what_the_endpoint_reported(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """run.json's ``estimate`` is what ``run --estimate`` said before the run (by the ratio, the one method that
    sends nothing), beside the tokens the endpoint reported in ``summary``: a user sees estimate against actual."""
    out, source = tmp_path / "out.jsonl", SEED / "seed_jsonl_multi_turn.jsonl"
    before = estimate(fake_openai, source, out)
    assert before["prompt_tokens_method"] == "ratio"
    ran = invoke("run", str(source), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "m")
    assert ran.exit_code == 0, ran.output
    record = json.loads(Path(f"{out}.run.json").read_text(encoding="utf-8"))
    kept, summary = record["estimate"], record["summary"]
    for key in ("requests", "prompt_tokens", "prompt_tokens_method", "max_output_tokens", "unbounded_requests"):
        assert kept[key] == before[key], key
    assert kept["requests"] == summary["requests"] == fake_openai.requests > 0
    assert summary["tokens"]["prompt_tokens"] > 0
    # rerun: the journal holds every answer, so the estimate and the run both say nothing was to be sent
    ran = invoke("run", str(source), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "m")
    assert ran.exit_code == 0, ran.output
    record = json.loads(Path(f"{out}.run.json").read_text(encoding="utf-8"))
    assert record["estimate"]["requests"] == record["summary"]["requests"] == 0
    assert record["estimate"]["already_finished"] == record["estimate"]["records"] > 0


@pytest.mark.parametrize("name", ["excel_multi_turn.xlsx", "csv_multi_turn_semicolon.csv"])
def test_later_turns_count_the_earlier_replies_the_run_writes_first(
    fake_openai: FakeOpenAI, tmp_path: Path, name: str
) -> None:
    # a conversation whose earlier replies the run generates: no traceback; their worst case is counted apart
    fake_openai.tokenize = True
    source = Path(__file__).parents[2] / "fixtures" / "valid" / name
    out = tmp_path / "o.jsonl"
    counted = estimate(fake_openai, source, out, "--param", "max_tokens=50")
    assert fake_openai.requests == 0 and counted["requests"] > 0
    ran = invoke("run", str(source), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "m",
                 "--param", "max_tokens=50")  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert fake_openai.requests == counted["requests"]
    used = json.loads(Path(f"{out}.run.json").read_text(encoding="utf-8"))["summary"]["tokens"]["prompt_tokens"]
    # the known text is exact; what the run wrote first and sent back lies within the worst case counted apart
    assert counted["prompt_tokens"] <= used <= counted["prompt_tokens"] + counted["history_tokens"]


def test_estimate_and_dry_run_together_are_bad_usage(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    result = invoke("run", str(SEED / SETS[0]), "-o", str(tmp_path / "o.jsonl"), "--base-url", fake_openai.base_url,
                    "--model", "m", "--estimate", "--dry-run")  # fmt: skip
    assert result.exit_code == 2 and "give one of them" in result.output


def test_the_notes_speak_chinese(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    result = invoke("run", str(SEED / SETS[0]), "-o", str(tmp_path / "o.jsonl"), "--base-url", fake_openai.base_url,
                    "--model", "m", "--estimate", "--lang", "zh")  # fmt: skip
    assert "服务端没有 tokenize 接口" in result.stderr and "no tokenize route" not in result.stderr
