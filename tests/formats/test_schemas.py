"""The published JSON Schemas are fresh, and accept and reject what the library does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from formatkit import convert, validate_file
from formatkit._api.schema import SCHEMA_NAMES, render
from formatkit._drivers.jsonl import detect_shape
from formatkit.cli import app

ROOT = Path(__file__).parents[2]
FIXTURES = ROOT / "fixtures"
SCHEMA_FOR = {"jsonl-single-turn": "jsonl-single-turn", "jsonl-multi-turn": "jsonl-multi-turn", "canonical": "record"}
runner = CliRunner()


def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8-sig").splitlines() if line.strip()]


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_checked_in_schema_is_fresh(name: str) -> None:
    on_disk = (ROOT / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8")
    assert on_disk == render(name), "schemas/ is stale: run `formatkit schema --write`"


VALID_JSONL = sorted((FIXTURES / "valid").glob("*.jsonl")) + sorted((FIXTURES / "seed").glob("*.jsonl"))


@pytest.mark.parametrize("path", VALID_JSONL, ids=[p.name for p in VALID_JSONL])
def test_schema_accepts_every_valid_fixture(path: Path) -> None:
    report = validate_file(
        path,
        profile="none",
        mode="scored"
        if "scored" in path.name or "output" in path.name
        else "infer-only"
        if "infer_only" in path.name
        else "infer-eval",
    )
    assert report.valid
    validator = _validator(SCHEMA_FOR[report.format or ""])
    for obj in _lines(path):
        errors = list(validator.iter_errors(obj))
        assert errors == [], [e.message for e in errors]


#: Invalid fixtures whose rule is structural, so the schema must reject them as the library does.
#: (Rules across lines or records — duplicate ids, message order, modes — are beyond a line schema.)
STRUCTURAL = [
    "unknown_key",
    "unknown_key_message",
    "missing_field",
    "missing_field_messages",
    "invalid_type",
    "invalid_type_content",
    "invalid_session_id",
    "empty_text",
    "empty_text_content",
    "empty_messages",
    "invalid_role",
    "invalid_parameters",
    "unknown_parameter",
    "invalid_parameter_type",
    "parameter_out_of_range",
    "parameter_out_of_range_stop",
]


@pytest.mark.parametrize("name", STRUCTURAL)
def test_schema_rejects_structural_errors(name: str) -> None:
    path = FIXTURES / "invalid" / "jsonl" / f"{name}.jsonl"
    report = validate_file(path)
    assert not report.valid
    bad_lines = {i.line for i in report.issues if i.severity == "error"}
    objs = _lines(path)
    shape = detect_shape(objs[0]) or "jsonl-single-turn"
    validator = _validator(SCHEMA_FOR[shape])
    rejected = {n for n, obj in enumerate(objs, start=1) if not validator.is_valid(obj)}
    assert rejected == bad_lines


def test_converted_records_match_the_record_schema(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    inputs = [FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl", FIXTURES / "valid" / "multi_turn_history.jsonl"]
    assert convert(inputs, out).valid
    validator = _validator("record")
    for obj in _lines(out):
        assert validator.is_valid(obj)


def test_record_schema_rejects_a_broken_record() -> None:
    validator = _validator("record")
    assert not validator.is_valid({"session_id": 0, "messages": [{"role": "robot", "content": "x"}]})
    assert not validator.is_valid({"session_id": 0, "messages": [{"role": "user", "content": "x"}], "extra": 1})


def test_validate_json_output_matches_the_report_schema() -> None:
    result = runner.invoke(app, ["validate", "--json", str(FIXTURES / "invalid" / "jsonl" / "invalid_role.jsonl")])
    assert _validator("report").is_valid(json.loads(result.stdout))


def test_cli_schema_prints_and_rejects_unknown_names(tmp_path: Path) -> None:
    result = runner.invoke(app, ["schema", "record"])
    assert result.exit_code == 0 and json.loads(result.stdout)["$id"].endswith("record.schema.json")
    assert runner.invoke(app, ["schema", "nope"]).exit_code == 2
    written = runner.invoke(app, ["schema", "--write", "--dir", str(tmp_path)])
    assert written.exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{n}.schema.json" for n in SCHEMA_NAMES)
