"""convert: canonical jsonl out, atomically; several inputs into one output; nothing on error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from formatkit import Record, convert, iter_records, validate_file
from formatkit.cli import app

FIXTURES = Path(__file__).parents[2] / "fixtures"
GOOD = FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl"
GOOD2 = FIXTURES / "seed" / "seed_jsonl_multi_turn.jsonl"
BAD = FIXTURES / "invalid" / "jsonl" / "invalid_role.jsonl"
runner = CliRunner()


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_several_inputs_one_output_in_order_with_dataset(tmp_path: Path) -> None:
    out = tmp_path / "all.jsonl"
    report = convert([GOOD, GOOD2], out)
    assert report.valid
    records = _load(out)
    assert [r["meta"]["dataset"] for r in records] == ["seed_jsonl_single_turn"] * 2 + ["seed_jsonl_multi_turn"] * 3
    assert [r["meta"]["source"]["line"] for r in records] == [1, 2, 1, 2, 3]
    assert records[2]["meta"]["source"] == {"file": str(GOOD2), "format": "jsonl-multi-turn", "line": 1}
    for record in records:
        Record.model_validate(record)


def test_error_writes_nothing_and_keeps_existing_output(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("precious\n", encoding="utf-8")
    report = convert([GOOD, BAD], out)
    assert not report.valid
    assert out.read_text(encoding="utf-8") == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_no_meta_gives_the_bare_shape(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    convert([GOOD], out, meta=False)
    assert all(set(r) == {"session_id", "messages"} for r in _load(out))


def test_n_parameter_gives_one_stub_per_sample(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    assert convert([FIXTURES / "valid" / "single_turn_full_width.jsonl"], out).valid
    first = _load(out)[0]
    assert len(first["messages"][-1]["responses"]) == 2
    assert first["messages"][-1]["responses"][0] == {"parameters": {"stop": ["。", "！"], "n": 2, "seed": 7}}


def test_multi_turn_history_kept_as_assistant_turns(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    convert([FIXTURES / "valid" / "multi_turn_history.jsonl"], out, meta=False)
    first, second = _load(out)
    assert first["session_id"] == 7 and second["session_id"] == "s-2"
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant", "user", "assistant"]
    assert first["messages"][2] == {"role": "assistant", "content": "4"}


def test_iter_records_yields_models() -> None:
    records = list(iter_records(GOOD2))
    assert [r.session_id for r in records] == [0, 1, 2]
    assert records[2].target.reference_response == "5"


def test_cli_convert_ok_and_error(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    ok = runner.invoke(app, ["convert", str(GOOD), "-o", str(out)])
    assert ok.exit_code == 0, ok.output
    assert len(_load(out)) == 2
    bad_out = tmp_path / "bad.jsonl"
    bad = runner.invoke(app, ["convert", str(BAD), "-o", str(bad_out)])
    assert bad.exit_code == 1
    assert not bad_out.exists()
    assert "invalid_role" in bad.output


def test_cli_convert_refuses_to_overwrite_its_input(tmp_path: Path) -> None:
    copy = tmp_path / "in.jsonl"
    copy.write_bytes(GOOD.read_bytes())
    result = runner.invoke(app, ["convert", str(copy), "-o", str(copy)])
    assert result.exit_code == 2
    assert copy.read_bytes() == GOOD.read_bytes()


def test_a_file_converted_from_several_sets_validates_as_canonical(tmp_path: Path) -> None:
    """Each set numbers its own sessions from 0: ids repeat across sets, never within one."""
    seeds = sorted((FIXTURES / "seed").glob("seed_*_turn.*"))
    seeds = [p for p in seeds if not p.name.startswith("seed_output")]
    out = tmp_path / "all.jsonl"
    assert convert(seeds, out).valid
    assert validate_file(out).valid
    lines = out.read_text(encoding="utf-8").splitlines()
    (tmp_path / "dup.jsonl").write_text(lines[0] + "\n" + lines[0] + "\n", encoding="utf-8")
    report = validate_file(tmp_path / "dup.jsonl")
    assert [i.code for i in report.issues] == ["duplicate_session_id"]
    assert 'in dataset "' in report.issues[0].message
