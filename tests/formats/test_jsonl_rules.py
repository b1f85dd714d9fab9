"""One case per jsonl/canonical rule: the fixture, the mode, the code, and its exact place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from formatkit import validate_file, validate_files
from formatkit.cli import app

FIXTURES = Path(__file__).parents[2] / "fixtures"
J = "invalid/jsonl/"

#: (fixture relative to fixtures/, mode, code, place). Read by tests/test_codes.py as well.
CASES: list[tuple[str, str, str, dict[str, Any]]] = [
    (J + "empty_file.jsonl", "infer-eval", "empty_file", {"line": None}),
    (J + "no_records.jsonl", "infer-eval", "no_records", {"line": None}),
    (J + "not_utf8.jsonl", "infer-eval", "not_utf8", {"line": 1}),
    (J + "utf8_bom.jsonl", "infer-eval", "utf8_bom", {"line": 1}),
    (J + "blank_line.jsonl", "infer-eval", "blank_line", {"line": 2}),
    (J + "too_many_rows.jsonl", "infer-eval", "too_many_rows", {"line": 1001}),
    (J + "invalid_json.jsonl", "infer-eval", "invalid_json", {"line": 2}),
    (J + "invalid_json_pretty.jsonl", "infer-eval", "invalid_json", {"line": 1}),
    (J + "line_not_object.jsonl", "infer-eval", "line_not_object", {"line": 2}),
    (J + "non_finite_number.jsonl", "infer-eval", "non_finite_number", {"line": 1}),
    (J + "lone_surrogate.jsonl", "infer-eval", "lone_surrogate", {"line": 1, "field": "answer"}),
    (J + "number_too_large.jsonl", "infer-eval", "number_too_large", {"line": 1, "field": "parameters.seed"}),
    (J + "duplicate_key.jsonl", "infer-eval", "duplicate_key", {"line": 1, "field": "answer"}),
    (J + "nested_too_deep.jsonl", "infer-eval", "nested_too_deep", {"line": 2}),
    (J + "duplicate_key_nested.jsonl", "infer-eval", "duplicate_key", {"line": 1, "field": "top_p"}),
    (J + "mixed_shapes.jsonl", "infer-eval", "mixed_shapes", {"line": 2}),
    (J + "unknown_key.jsonl", "infer-eval", "unknown_key", {"line": 1, "field": "answr"}),
    (J + "unknown_key_message.jsonl", "infer-eval", "unknown_key", {"line": 1, "field": "messages[0].name"}),
    (J + "alias_key.jsonl", "infer-eval", "alias_key", {"line": 1, "field": "message"}),
    (J + "alias_key_query.jsonl", "infer-eval", "alias_key", {"line": 1, "field": "query"}),
    (J + "missing_field.jsonl", "infer-eval", "missing_field", {"line": 1, "field": "prompt"}),
    (J + "missing_field_messages.jsonl", "infer-eval", "missing_field", {"line": 2, "field": "messages"}),
    (J + "invalid_type.jsonl", "infer-eval", "invalid_type", {"line": 1, "field": "answer"}),
    (J + "invalid_type_content.jsonl", "infer-eval", "invalid_type", {"line": 1, "field": "messages[0].content"}),
    (J + "invalid_session_id.jsonl", "infer-eval", "invalid_session_id", {"line": 1, "field": "session_id"}),
    (J + "duplicate_session_id.jsonl", "infer-eval", "duplicate_session_id", {"line": 2, "field": "session_id"}),
    (J + "empty_text.jsonl", "infer-eval", "empty_text", {"line": 1, "field": "prompt"}),
    (J + "empty_text_content.jsonl", "infer-eval", "empty_text", {"line": 1, "field": "messages[1].content"}),
    (J + "empty_messages.jsonl", "infer-eval", "empty_messages", {"line": 1, "field": "messages"}),
    (J + "invalid_role.jsonl", "infer-eval", "invalid_role", {"line": 1, "field": "messages[1].role"}),
    (J + "misplaced_system.jsonl", "infer-eval", "misplaced_system", {"line": 1, "field": "messages[1].role"}),
    (J + "last_message_not_user.jsonl", "infer-eval", "last_message_not_user", {"line": 1, "field": "messages[1]"}),
    (J + "target_not_assistant.jsonl", "infer-eval", "target_not_assistant", {"line": 2, "field": "messages[1].role"}),
    (J + "missing_reference.jsonl", "infer-eval", "missing_reference", {"line": 1, "field": "answer"}),
    (J + "missing_reference.jsonl", "scored", "missing_reference", {"line": 1, "field": "answer"}),
    (
        J + "missing_reference_canonical.jsonl",
        "infer-eval",
        "missing_reference",
        {"line": 1, "field": "messages[1].reference_response"},
    ),
    (J + "unused_reference.jsonl", "infer-only", "unused_reference", {"line": 1, "field": "answer"}),
    (J + "unexpected_response.jsonl", "infer-eval", "unexpected_response", {"line": 1, "field": "response"}),
    (J + "unexpected_response.jsonl", "infer-only", "unexpected_response", {"line": 1, "field": "response"}),
    (J + "missing_response.jsonl", "scored", "missing_response", {"line": 1, "field": "response"}),
    (
        J + "missing_response_canonical.jsonl",
        "scored",
        "missing_response",
        {"line": 1, "field": "messages[1].responses"},
    ),
    (J + "invalid_parameters.jsonl", "infer-eval", "invalid_parameters", {"line": 1, "field": "parameters"}),
    (J + "unknown_parameter.jsonl", "infer-eval", "unknown_parameter", {"line": 1, "field": "parameters.temprature"}),
    (J + "engine_parameter.jsonl", "infer-eval", "engine_parameter", {"line": 1, "field": "parameters"}),
    (
        J + "invalid_parameter_type.jsonl",
        "infer-eval",
        "invalid_parameter_type",
        {"line": 1, "field": "parameters.max_tokens"},
    ),
    (
        J + "parameter_out_of_range.jsonl",
        "infer-eval",
        "parameter_out_of_range",
        {"line": 1, "field": "parameters.temperature"},
    ),
    (J + "parameter_out_of_range.jsonl", "infer-eval", "parameter_out_of_range", {"line": 1, "field": "parameters.n"}),
    (
        J + "parameter_out_of_range_stop.jsonl",
        "infer-eval",
        "parameter_out_of_range",
        {"line": 1, "field": "parameters.stop"},
    ),
    (J + "unsupported_extension.txt", "infer-eval", "unsupported_extension", {}),
]

VALID: list[tuple[str, str, str]] = [
    ("seed/seed_jsonl_single_turn.jsonl", "infer-eval", "jsonl-single-turn"),
    ("seed/seed_jsonl_multi_turn.jsonl", "infer-eval", "jsonl-multi-turn"),
    ("seed/seed_output_single_turn.jsonl", "scored", "canonical"),
    ("seed/seed_output_multi_turn.jsonl", "scored", "canonical"),
    ("seed/seed_output_multi_turn.jsonl", "infer-eval", "canonical"),
    ("valid/single_turn_minimal.jsonl", "infer-eval", "jsonl-single-turn"),
    ("valid/single_turn_full_width.jsonl", "infer-eval", "jsonl-single-turn"),
    ("valid/multi_turn_history.jsonl", "infer-eval", "jsonl-multi-turn"),
    ("valid/scored_single_turn.jsonl", "scored", "jsonl-single-turn"),
    ("valid/infer_only.jsonl", "infer-only", "jsonl-single-turn"),
    ("valid/trailing_newlines.jsonl", "infer-eval", "jsonl-single-turn"),
    ("valid/crlf.jsonl", "infer-eval", "jsonl-single-turn"),
]


def _find(issues: list[Any], code: str, place: dict[str, Any]) -> list[Any]:
    return [i for i in issues if i.code == code and all(getattr(i, k) == v for k, v in place.items())]


@pytest.mark.parametrize(("fixture", "mode", "code", "place"), CASES, ids=[f"{c[2]}:{c[0]}:{c[1]}" for c in CASES])
def test_rule_reports_code_at_place(fixture: str, mode: str, code: str, place: dict[str, Any]) -> None:
    report = validate_file(FIXTURES / fixture, mode=mode)  # type: ignore[arg-type]
    found = _find(report.issues, code, place)
    assert found, f"expected {code} at {place}; got {[(i.code, i.line, i.field) for i in report.issues]}"
    assert all(i.message and i.file for i in found)
    if found[0].severity == "error":
        assert not report.valid


@pytest.mark.parametrize(("fixture", "mode", "fmt"), VALID, ids=[f"{v[0]}:{v[1]}" for v in VALID])
def test_valid_fixture_has_no_issue(fixture: str, mode: str, fmt: str) -> None:
    report = validate_file(FIXTURES / fixture, mode=mode)  # type: ignore[arg-type]
    assert report.valid and report.issues == [], report.issues
    assert report.format == fmt
    assert report.records > 0


def test_too_many_rows_is_lifted_by_profile_none() -> None:
    report = validate_file(FIXTURES / J / "too_many_rows.jsonl", profile="none")
    assert report.valid and report.records == 1001


def test_too_many_files_in_one_upload() -> None:
    paths = [FIXTURES / "valid" / "single_turn_minimal.jsonl"] * 11
    report = validate_files(paths)
    assert [i.code for i in report.issues] == ["too_many_files"]
    assert not report.valid
    assert validate_files(paths, profile="none").valid


def test_every_problem_in_one_pass() -> None:
    """A file with several broken lines reports them all, not just the first."""
    report = validate_file(FIXTURES / J / "parameter_out_of_range.jsonl")
    assert sorted(str(i.field) for i in report.issues) == ["parameters.n", "parameters.temperature", "parameters.top_p"]


def test_did_you_mean_in_messages() -> None:
    [issue] = validate_file(FIXTURES / J / "unknown_parameter.jsonl").issues
    assert 'Did you mean "temperature"?' in issue.message


def test_gbk_message_names_the_encoding() -> None:
    [issue] = validate_file(FIXTURES / J / "not_utf8.jsonl").issues
    assert "GBK" in issue.message


# --- the command line -------------------------------------------------------------------------------

runner = CliRunner()


def test_cli_validate_json_report_shape() -> None:
    result = runner.invoke(app, ["validate", str(FIXTURES / J / "duplicate_session_id.jsonl"), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["valid"] is False
    [file] = data["files"]
    assert set(file) >= {"path", "valid", "format", "records", "errors", "warnings", "issues"}
    [issue] = file["issues"]
    assert set(issue) >= {"severity", "code", "message", "file", "sheet", "row", "column", "line", "field"}
    assert (issue["code"], issue["line"], issue["field"]) == ("duplicate_session_id", 2, "session_id")


def test_cli_validate_warnings_only_exits_zero() -> None:
    result = runner.invoke(app, ["validate", str(FIXTURES / J / "utf8_bom.jsonl")])
    assert result.exit_code == 0, result.output
    assert "utf8_bom" in result.stdout


def test_cli_validate_mode_option() -> None:
    path = str(FIXTURES / "valid" / "scored_single_turn.jsonl")
    assert runner.invoke(app, ["validate", path]).exit_code == 1
    assert runner.invoke(app, ["validate", path, "--mode", "scored"]).exit_code == 0


@pytest.mark.parametrize(
    "args", [["validate", "no/such/file.jsonl"], ["validate", "."], ["validate", "x", "--mode", "bad"]]
)
def test_cli_bad_usage_exits_two(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_cli_human_output_names_place_and_code() -> None:
    result = runner.invoke(app, ["validate", str(FIXTURES / J / "invalid_role.jsonl")])
    assert result.exit_code == 1
    assert "line 1, messages[1].role" in result.stdout and "[invalid_role]" in result.stdout
