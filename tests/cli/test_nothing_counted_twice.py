"""Nothing counted twice, nothing claimed that did not happen (#29 item 5), each through the CLI.

- ``report A A``: the same file given twice (any spelling of its path, a link) or a byte-for-byte copy is
  read once, and said on stderr; two files that differ are two files.
- ``merge``: a part that holds one record twice (its count right, so another record missing) is refused,
  naming both lines, the part and the input record that is missing.
- ``fix``: a workbook validate reads that fix cannot open is refused with the reason (exit 1), never
  "nothing written" with exit 0.
- ``report``: "mean of N dimension(s)" counts the dimensions averaged; those without a score are said apart.
- ``run``: run.json records the streaming actually used (a server that refused it: not streamed).
- ``run``: a token count below zero from the server is unknown (a note says so), never added to a total.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import openpyxl
import orjson
import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner, Result

from formatkit.cli import app


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner(env={"OPENAI_API_KEY": "", **(env or {})}).invoke(app, list(args))


# -- report: one file given twice ------------------------------------------------------------------------


def _record(sid: int, score: float | None, dataset: str) -> dict[str, Any]:
    response: dict[str, Any] = {"content": "x", "model": "m", "score": score, "metric": "exact", "answer": "x"}
    if score is None:
        response["analysis"] = "unscorable"
    return {
        "session_id": sid,
        "meta": {"dataset": dataset},
        "messages": [
            {"role": "user", "content": f"问题 {sid}"},
            {"role": "assistant", "reference_response": "x", "responses": [response]},
        ],
    }


def _results(path: Path, scores: Sequence[float | None], dataset: str = "算术") -> Path:
    path.write_text(
        "".join(json.dumps(_record(i, s, dataset), ensure_ascii=False) + "\n" for i, s in enumerate(scores)),
        encoding="utf-8",
    )
    return path


@pytest.fixture
def ten(tmp_path: Path) -> Path:
    """Ten scored records of one model: 7 right, 3 wrong."""
    return _results(tmp_path / "a.jsonl", [1.0] * 7 + [0.0] * 3)


def _json_report(*paths: Path | str) -> tuple[dict[str, Any], str]:
    result = invoke("report", *map(str, paths), "--format", "json")
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout), result.stderr


def test_report_reads_the_same_file_given_twice_once_and_says_so(ten: Path) -> None:
    once, quiet = _json_report(ten)
    assert quiet == ""
    assert once["models"]["m"]["datasets"]["算术"]["records"] == 10
    twice, said = _json_report(ten, ten)
    assert twice == once  # n 10, not 20; the interval as wide as for one file
    assert f"formatkit report: {ten} is {ten} again (the same file): read once, its records counted once" in said
    # another spelling of the path, and a link to the file, are the same file
    other = ten.parent / "sub" / ".." / ten.name
    (ten.parent / "sub").mkdir()
    link = ten.parent / "link.jsonl"
    link.symlink_to(ten)
    thrice, said = _json_report(ten, other, link)
    assert thrice == once
    assert said.count("(the same file)") == 2


def test_report_reads_a_byte_for_byte_copy_once_and_a_different_file_in_full(ten: Path, tmp_path: Path) -> None:
    once, _ = _json_report(ten)
    copy = tmp_path / "copy.jsonl"
    shutil.copyfile(ten, copy)
    both, said = _json_report(ten, copy)
    assert both == once
    assert f"{copy} holds exactly what {ten} holds (a copy): read once" in said
    # the same size, one byte different: another file, read (its records are others)
    other = tmp_path / "other.jsonl"
    other.write_bytes(ten.read_bytes().replace("问题 9".encode(), "问题 8".encode()))
    assert other.stat().st_size == ten.stat().st_size
    two, said = _json_report(ten, other)
    assert said == ""
    assert two["models"]["m"]["datasets"]["算术"]["records"] == 20


def test_collect_results_reads_a_file_given_twice_once(ten: Path, tmp_path: Path) -> None:
    # the library too (not only the command line): n stays 10, the repeat is listed for the caller to say
    from scoring import collect_results

    copy = tmp_path / "copy.jsonl"
    shutil.copyfile(ten, copy)
    collected = collect_results([ten, str(ten), copy])
    assert collected.comparison.models["m"].to_dict()["datasets"]["算术"]["records"] == 10
    assert [(r.path, r.how) for r in collected.repeats] == [(str(ten), "same_file"), (str(copy), "same_content")]


def test_the_same_file_message_in_chinese(ten: Path) -> None:
    result = invoke("report", str(ten), str(ten), env={"LC_ALL": "zh_CN.UTF-8"})
    assert result.exit_code == 0, result.output
    assert f"formatkit report：{ten} 与 {ten} 是同一个文件：只读取一次，其记录只计一次" in result.stderr


# -- report: the overall says the count it averaged -----------------------------------------------------


def _answered(path: Path, datasets: dict[str, dict[str, Any]]) -> Path:
    """Two answered records per dataset, each with the response given (an error: nothing to score)."""
    records: list[dict[str, Any]] = []
    for dataset, response in datasets.items():
        for i in range(2):
            assistant = {"role": "assistant", "reference_response": "x", "responses": [dict(response)]}
            records.append(
                {
                    "session_id": len(records),
                    "meta": {"dataset": dataset},
                    "messages": [{"role": "user", "content": f"问题 {i}"}, assistant],
                }
            )
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def test_overall_counts_only_the_dimensions_that_have_a_score(tmp_path: Path) -> None:
    right = {"content": "x", "model": "m"}
    failed = {"model": "m", "error": "HTTP 500: upstream failed"}
    src = _answered(tmp_path / "answered.jsonl", {"知识": right, "推理": right, "写作": failed})
    result = invoke("score", str(src), "-o", str(tmp_path / "scored.jsonl"), "--metric", "exact")
    assert result.exit_code == 0, result.output
    overall = [line for line in result.stdout.splitlines() if line.startswith("Overall:")]
    assert overall == ["Overall: 100.00 [55.3, 100.0] (mean of 2 dimension(s), 0–100; 1 dimension(s) without a score)"]
    # every dimension scored: the line as it always was
    whole = _answered(tmp_path / "whole.jsonl", {"知识": right, "推理": right})
    result = invoke("score", str(whole), "-o", str(tmp_path / "scored3.jsonl"), "--metric", "exact")
    assert "Overall: 100.00 [55.3, 100.0] (mean of 2 dimension(s), 0–100)\n" in result.stdout


# -- merge: a part with a record twice and another missing ------------------------------------------------


def _run(server: FakeOpenAI, src: Path, out: Path, *extra: str) -> Result:
    return invoke("run", str(src), "-o", str(out), "--base-url", server.base_url, "--model", "fake", *extra)


def _set(path: Path, records: int) -> Path:
    lines = [orjson.dumps({"prompt": f"题目 {i}：1+{i}=？", "answer": str(1 + i)}) for i in range(records)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _parts(server: FakeOpenAI, src: Path, folder: Path, count: int = 2) -> list[Path]:
    """``run --shard K/count`` of ``src`` for every K: the parts merge reads."""
    parts = [folder / f"part{k}.jsonl" for k in range(1, count + 1)]
    for k, part in enumerate(parts, 1):
        assert _run(server, src, part, "--shard", f"{k}/{count}").exit_code == 0
    return parts


def test_merge_refuses_a_part_holding_a_record_twice_and_names_the_one_missing(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    src = _set(tmp_path / "set.jsonl", 11)
    parts = _parts(fake_openai, src, tmp_path, 3)
    # part 2/3 holds input records 2, 5, 8, 11: its third line becomes its second again (8 lost, 5 twice)
    lines = parts[1].read_bytes().splitlines(keepends=True)
    assert len(lines) == 4
    lines[2] = lines[1]
    parts[1].write_bytes(b"".join(lines))
    merged = tmp_path / "merged.jsonl"
    result = invoke("merge", *map(str, parts), "-o", str(merged))
    assert result.exit_code == 1, result.output
    assert (
        f"{parts[1]} (part 2/3): record 3 (session_id 4) is record 2 again: that record would be doubled; "
        "input record 8, whose place it takes, is missing; run the part again"
    ) in result.stderr
    assert "records in input order" not in result.output
    assert not merged.exists()


def test_merge_refuses_a_record_found_in_two_parts(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = _set(tmp_path / "set.jsonl", 4)
    parts = _parts(fake_openai, src, tmp_path)
    # part 2/2 (input records 2 and 4) ends with part 1/2's first record instead of its own second
    first = parts[0].read_bytes().splitlines(keepends=True)[0]
    own = parts[1].read_bytes().splitlines(keepends=True)
    parts[1].write_bytes(own[0] + first)
    result = invoke("merge", *map(str, parts), "-o", str(tmp_path / "m.jsonl"))
    assert result.exit_code == 1, result.output
    assert f"record 2 (session_id 0) is record 1 of {parts[0]} again" in result.stderr
    assert "input record 4, whose place it takes, is missing" in result.stderr


# -- fix: a workbook validate reads that fix cannot open ----------------------------------------------------


def _workbook_fix_cannot_open(tmp_path: Path) -> Path:
    """A workbook whose document properties are not XML: validate reads its sheet, openpyxl refuses it."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["query", "reference_response"])
    sheet.append(["1+1=？", "2"])
    sheet.append(["你好", "hi"])
    good = tmp_path / "good.xlsx"
    book.save(good)
    bad = tmp_path / "属性坏了.xlsx"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(bad, "w") as target:
        for info in source.infolist():
            data = b"<notxml" if info.filename == "docProps/core.xml" else source.read(info.filename)
            target.writestr(info, data)
    return bad


def test_fix_refuses_a_workbook_it_cannot_open_that_validate_reads(tmp_path: Path) -> None:
    bad = _workbook_fix_cannot_open(tmp_path)
    assert invoke("validate", str(bad)).exit_code == 0
    out = tmp_path / "fixed.xlsx"
    result = invoke("fix", str(bad), "-o", str(out), "--lang", "en")
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(f"formatkit fix: {bad}: could not be opened for repair (ParseError: ")
    assert f"though validate reads it; nothing was written to {out}: open it in Excel or LibreOffice" in result.stderr
    assert not out.exists()
    zh = invoke("fix", str(bad), "-o", str(out), "--lang", "zh", "--json")
    assert zh.exit_code == 1
    assert f"formatkit fix：{bad}：无法打开以进行修复（ParseError: " in zh.stderr
    assert not out.exists()


def test_fix_of_a_workbook_validate_refuses_too_is_unchanged(tmp_path: Path) -> None:
    """A workbook neither can read: validate's report says why, exit 1, as before."""
    bad = tmp_path / "bad.xlsx"
    bad.write_bytes(b"PK\x03\x04 not a zip at all")
    result = invoke("fix", str(bad), "-o", str(tmp_path / "fixed.xlsx"), "--lang", "en")
    assert result.exit_code == 1
    assert "could not be read for repair; nothing written to" in result.stdout
    assert "[unreadable_file]" in result.stdout


# -- run: what was used, what was sent ------------------------------------------------------------------


def _run_record(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = orjson.loads(out.with_name(out.name + ".run.json").read_bytes())
    return data


def test_run_json_records_no_streaming_when_the_server_refused_it(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = _set(tmp_path / "set.jsonl", 3)
    streamed = tmp_path / "streamed.jsonl"
    assert _run(fake_openai, src, streamed).exit_code == 0
    assert _run_record(streamed)["endpoint"]["stream"] is True
    fake_openai.refuse_stream = "stream is not supported by this server"
    plain = tmp_path / "plain.jsonl"
    result = _run(fake_openai, src, plain)
    assert result.exit_code == 0, result.output
    record = _run_record(plain)
    assert record["endpoint"]["stream"] is False
    assert any("refused streaming" in note for note in record["summary"]["notes"])
    assert not any(body.get("stream") for body in fake_openai.bodies[-3:])  # the answers came plain


def test_eval_run_json_records_no_streaming_when_the_server_refused_it(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = _set(tmp_path / "set.jsonl", 3)
    fake_openai.refuse_stream = "streaming unsupported"
    out = tmp_path / "ev"
    result = invoke("eval", str(src), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "fake")
    assert result.exit_code in (0, 1), result.output
    record = orjson.loads((out / "run.json").read_bytes())
    assert record["endpoint"]["stream"] is False


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
def test_a_negative_token_count_is_never_added(fake_openai: FakeOpenAI, tmp_path: Path, stream: str) -> None:
    src = _set(tmp_path / "set.jsonl", 3)
    fake_openai.usage = {"prompt_tokens": 5, "completion_tokens": -7, "total_tokens": -2}
    out = tmp_path / "out.jsonl"
    result = _run(fake_openai, src, out, stream)
    assert result.exit_code == 0, result.output
    summary = _run_record(out)["summary"]
    assert summary["tokens"] == {"prompt_tokens": 15}  # the count below zero and the total made with it: unknown
    notes = [note for note in summary["notes"] if "below zero" in note]
    assert notes == [
        "the endpoint sent a token count below zero (completion_tokens=-7, total_tokens=-2): such a count is unknown, "
        "left out of the token totals"
    ]
    assert notes[0] in result.output  # said at the end of the run too
    for line in out.read_bytes().splitlines():
        response = orjson.loads(line)["messages"][-1]["responses"][0]
        assert response["usage"] == {"prompt_tokens": 5}
    scored = invoke("score", str(out), "-o", str(tmp_path / "scored.jsonl"))
    assert "Tokens: 15 prompt + 0 completion = 0 total" in scored.stdout
    report = invoke("report", str(tmp_path / "scored.jsonl"))
    assert "fake: tokens 15 prompt + 0 completion = 0 total" in report.stdout


def test_a_negative_count_nested_in_details_is_left_out_too(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = _set(tmp_path / "set.jsonl", 1)
    fake_openai.usage = {
        "prompt_tokens": 5,
        "completion_tokens": 3,
        "total_tokens": 8,
        "completion_tokens_details": {"reasoning_tokens": -1},
    }
    out = tmp_path / "out.jsonl"
    assert _run(fake_openai, src, out, "--no-stream").exit_code == 0
    response = orjson.loads(out.read_bytes())["messages"][-1]["responses"][0]
    assert response["usage"] == {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}
    assert any("completion_tokens_details.reasoning_tokens=-1" in n for n in _run_record(out)["summary"]["notes"])


def test_report_adds_no_negative_count_a_results_file_holds(tmp_path: Path) -> None:
    """A results file written before this rule (or by another tool) may hold one: the report leaves it out."""
    record = _record(0, 1.0, "算术")
    record["messages"][-1]["responses"][0]["usage"] = {"prompt_tokens": 3, "completion_tokens": -4, "total_tokens": 9}
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    result = invoke("report", str(path))
    assert result.exit_code == 0, result.output
    assert "m: tokens 3 prompt + 0 completion = 9 total" in result.stdout


def test_merge_says_five_records_twice_per_part_and_counts_the_rest(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = _set(tmp_path / "set.jsonl", 14)
    parts = _parts(fake_openai, src, tmp_path)
    lines = parts[1].read_bytes().splitlines(keepends=True)
    parts[1].write_bytes(lines[0] * len(lines))  # its first record 7 times: 6 of its share missing
    result = invoke("merge", *map(str, parts), "-o", str(tmp_path / "m.jsonl"))
    assert result.exit_code == 1, result.output
    assert result.stderr.count("is record 1 again: that record would be doubled") == 5
    assert f"{parts[1]}: 1 more record(s) there twice" in result.stderr
    # a part given twice is said once, not once per record
    again = invoke("merge", str(parts[0]), str(parts[0]), "-o", str(tmp_path / "m2.jsonl"))
    assert again.exit_code == 1
    assert "part 1/2 is given 2 times" in again.stderr
    assert "that record would be doubled" not in again.stderr


def test_distinct_files_is_the_library_call_report_makes(tmp_path: Path) -> None:
    """The rule lives in scoring (``scoring.distinct_files``), the command only prints what it left out."""
    from scoring._pipeline.distinct_files import Repeat, distinct_files

    first = tmp_path / "a.jsonl"
    first.write_text('{"x": 1}\n', encoding="utf-8")
    copy = tmp_path / "b.jsonl"
    copy.write_bytes(first.read_bytes())
    other = tmp_path / "c.jsonl"
    other.write_text('{"x": 2}\n', encoding="utf-8")  # same size, one byte apart: a file of its own
    link = tmp_path / "link.jsonl"
    link.symlink_to(first)
    paths = [str(first), str(copy), str(other), str(link)]
    assert distinct_files(paths) == (
        [str(first), str(other)],
        [Repeat(str(copy), str(first), "same_content"), Repeat(str(link), str(first), "same_file")],
    )
