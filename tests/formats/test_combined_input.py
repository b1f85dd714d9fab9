"""Several files read as one: ids unique per dataset across them, checked before anything is written or sent.

Two files that give records to one dataset (a set and an older copy of it, ``a/set.jsonl`` and
``b/set.jsonl``) each pass alone; together they used to make ``convert`` write a file its own ``validate``
refuses, and ``eval`` buy requests before stopping with no cause named (issue 18, item 1).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import FakeOpenAI
from openpyxl import Workbook
from typer.testing import CliRunner

from formatkit import convert, validate_file, validate_files
from formatkit.cli import app

runner = CliRunner()


def _set(path: Path, n: int = 30, first_id: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(n):
        record: dict[str, object] = {"prompt": f"{i}+1=?", "answer": str(i + 1)}
        if first_id is not None:
            record["session_id"] = first_id + i
        lines.append(json.dumps(record, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _copies(tmp_path: Path) -> tuple[Path, Path]:
    return _set(tmp_path / "a" / "set.jsonl"), _set(tmp_path / "b" / "set.jsonl")


def test_convert_refuses_two_files_sharing_a_dataset_and_ids_at_the_later_record(tmp_path: Path) -> None:
    a, b = _copies(tmp_path)
    out = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["convert", str(a), str(b), "-o", str(out)])
    assert result.exit_code == 1, result.output
    assert not out.exists()
    assert f'{b}, line 1: session_id 0 of dataset "set" is already used by {a} line 1' in result.output
    assert "duplicate_session_id ×30" in result.output


def test_the_library_reports_it_per_file_and_validate_of_the_files_agrees(tmp_path: Path) -> None:
    a, b = _copies(tmp_path)
    report = convert([a, b], tmp_path / "out.jsonl")
    assert not report.valid and not (tmp_path / "out.jsonl").exists()
    first, second = report.files
    assert first.valid and not second.valid
    assert second.counts == {"duplicate_session_id": 30}
    assert [(i.file, i.line) for i in second.issues][:2] == [(str(b), 1), (str(b), 2)]
    together = validate_files([a, b], profile="none")
    assert not together.valid and together.files[1].counts == {"duplicate_session_id": 30}
    assert validate_file(a).valid and validate_file(b).valid  # each alone is fine
    cli = runner.invoke(app, ["validate", str(a), str(b)])
    assert cli.exit_code == 1 and "already used by" in cli.output


def test_an_excel_copy_of_a_jsonl_set_is_located_at_its_row(tmp_path: Path) -> None:
    a = _set(tmp_path / "set.jsonl", 3)
    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["query", "reference_response"])
    for i in range(3):
        ws.append([f"{i}+1=?", str(i + 1)])
    xlsx = tmp_path / "x" / "set.xlsx"
    xlsx.parent.mkdir()
    wb.save(xlsx)
    report = convert([a, xlsx], tmp_path / "out.jsonl")
    [issue] = [i for i in report.files[1].issues if i.code == "duplicate_session_id"][:1]
    assert (issue.code, issue.sheet, issue.row) == ("duplicate_session_id", ws.title, 2)
    assert f"already used by {a} line 1" in issue.message


def test_one_dataset_split_over_files_with_distinct_ids_converts_and_validates(tmp_path: Path) -> None:
    a = _set(tmp_path / "a" / "set.jsonl", 5, first_id=0)
    b = _set(tmp_path / "b" / "set.jsonl", 5, first_id=5)
    out = tmp_path / "out.jsonl"
    assert convert([a, b], out).valid
    assert validate_file(out).valid


@pytest.mark.parametrize("meta", [True, False])
def test_whatever_convert_writes_its_validate_accepts(tmp_path: Path, meta: bool) -> None:
    """Files of different datasets may share ids; without meta the output names no dataset, so they may not."""
    first = _set(tmp_path / "first.jsonl", 4)
    second = _set(tmp_path / "second.jsonl", 4)
    out = tmp_path / "out.jsonl"
    report = convert([first, second], out, meta=meta)
    assert report.valid is meta
    if meta:
        assert validate_file(out).valid
    else:
        assert not out.exists()
        assert "the output names no dataset" in report.files[1].issues[0].message
    args = ["convert", str(first), str(second), "-o", str(out), *([] if meta else ["--no-meta"])]
    assert runner.invoke(app, args).exit_code == (0 if meta else 1)


def test_a_canonical_file_of_two_datasets_loses_its_datasets_without_meta(tmp_path: Path) -> None:
    both = tmp_path / "both.jsonl"
    assert convert([_set(tmp_path / "x.jsonl", 2), _set(tmp_path / "y.jsonl", 2)], both).valid
    assert convert([both], tmp_path / "again.jsonl").valid
    bare = tmp_path / "bare.jsonl"
    report = convert([both], bare, meta=False)
    assert not report.valid and not bare.exists()
    assert [i.line for i in report.files[0].issues] == [3, 4]


def test_eval_of_two_copies_sends_nothing_and_names_the_cause(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    a, b = _copies(tmp_path)
    out = tmp_path / "eval"
    args = ["eval", str(a), str(b), "--base-url", fake_openai.base_url, "--model", "m", "-o", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert fake_openai.requests == 0  # was 51 requests (two 30-record copies), then a stop naming no cause
    assert 'session_id 0 of dataset "set" is already used by' in result.output
    assert not (out / "answered.jsonl").exists() and not (out / "canonical.jsonl").exists()


def test_one_file_with_meta_is_not_held_in_memory_for_the_cross_file_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one file and meta kept the cross-file check cannot fire (see convert): it is skipped, so a
    one-file convert remembers no ids and its memory stays flat however many lines it has."""
    from formatkit._rules.combined import CombinedIds

    def refuse(*args: object, **kwargs: object) -> bool:
        raise AssertionError("a one-file convert with meta consulted the cross-file check")

    monkeypatch.setattr(CombinedIds, "check", refuse)
    report = convert([_set(tmp_path / "set.jsonl")], tmp_path / "out.jsonl", profile="none")
    assert report.valid and report.files[0].records == 30
    # validate of one file too (``formatkit validate one.jsonl`` goes through validate_files)
    checked = validate_files([tmp_path / "set.jsonl"], profile="none")
    assert checked.valid and checked.files[0].records == 30
