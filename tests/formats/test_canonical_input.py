"""Canonical records given as input get the same parameter rules and readable type messages as other inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from formatkit import validate_file


def _record(response: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "1+1?"},
            {"role": "assistant", "reference_response": "2", "responses": [response]},
        ],
        **extra,
    }


def _issues(tmp_path: Path, *records: dict[str, Any]) -> list[tuple[str, int | None, str | None]]:
    path = tmp_path / "canonical.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return [(i.code, i.line, i.field) for i in validate_file(path).issues]


P = "messages[1].responses[0].parameters"


@pytest.mark.parametrize(
    ("parameters", "code", "field"),
    [
        ({"temperature": 5}, "parameter_out_of_range", P + ".temperature"),
        ({"tempreture": 0.5}, "unknown_parameter", P + ".tempreture"),
        ({"max_tokens": "many"}, "invalid_parameter_type", P + ".max_tokens"),
        ({"n": 0}, "parameter_out_of_range", P + ".n"),
    ],
)
def test_response_parameters_follow_the_parameter_table(
    tmp_path: Path, parameters: dict[str, Any], code: str, field: str
) -> None:
    assert _issues(tmp_path, _record({"parameters": parameters})) == [(code, 1, field)]


def test_pending_history_turn_parameters_are_checked_too(tmp_path: Path) -> None:
    record = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "a"},
            {"role": "assistant", "responses": [{"parameters": {"top_p": 2}}]},
            {"role": "user", "content": "b"},
            {"role": "assistant", "reference_response": "r", "responses": [{"parameters": {}}]},
        ],
    }
    assert _issues(tmp_path, record) == [("parameter_out_of_range", 1, "messages[1].responses[0].parameters.top_p")]


def test_valid_parameters_stay_valid(tmp_path: Path) -> None:
    ok = {"temperature": 1.0, "top_p": 0.7, "max_tokens": 4096, "stop": [], "logprobs": False, "top_logprobs": 10}
    assert _issues(tmp_path, _record({"parameters": ok})) == []


def _messages(tmp_path: Path, record: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    path = tmp_path / "canonical.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    return [(i.code, i.field, i.message) for i in validate_file(path).issues]


@pytest.mark.parametrize(
    ("change", "field", "says"),
    [
        ({"meta": {"dataset": 5}}, "meta.dataset", '"meta.dataset" must be text (a JSON string), not the number 5.'),
        ({"meta": "oops"}, "meta", '"meta" must be an object, not the string "oops".'),
        (
            {"session_id": 2.5},
            "session_id",
            '"session_id" must be a whole number or text (a JSON string), not the number 2.5.',
        ),
    ],
)
def test_type_errors_are_translated_once_per_field(
    tmp_path: Path, change: dict[str, Any], field: str, says: str
) -> None:
    record = {**_record({"parameters": {}}), **change}
    assert _messages(tmp_path, record) == [("invalid_type", field, says)]


def test_type_error_inside_a_response(tmp_path: Path) -> None:
    issues = _messages(tmp_path, _record({"parameters": {}, "content": "2", "score": "high"}))
    field = "messages[1].responses[0].score"
    assert issues == [("invalid_type", field, f'"{field}" must be a number, not the string "high".')]
