"""Every issue code in the catalogue has a fixture and a test that finds it at its place."""

from __future__ import annotations

import importlib

from formatkit._core.codes import CODES

#: Codes proven by tests that are not fixture tables (name the test).
PROVEN_ELSEWHERE = {
    "too_many_files": "tests/test_jsonl_rules.py::test_too_many_files_in_one_upload",
    "line_too_long": "tests/cli/test_inputs_and_outputs.py::test_a_line_past_the_bound_is_one_issue_at_its_line",
    "shape_field_lost": "tests/shapes/test_shapes.py::test_the_losses_are_named_per_field_with_their_count",
    "shape_record_unfit": "tests/shapes/test_shapes.py::test_a_record_a_shape_cannot_hold_is_an_error_at_its_place"
    "_and_nothing_is_written",
    "unknown_custom_id": "tests/shapes/test_shapes.py::test_replies_that_belong_to_no_pending_turn_are_errors"
    "_at_their_line",
    "batch_other_model": "tests/shapes/test_batch_other_model.py::test_a_reply_naming_another_model_than_the"
    "_batchs_others_is_a_warning_at_its_line",
}


def _covered() -> set[str]:
    covered = set(PROVEN_ELSEWHERE)
    for name in ("test_jsonl_rules", "test_excel_rules"):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        covered |= {case[2] for case in module.CASES}
    return covered


def test_every_code_is_covered_by_a_fixture_case() -> None:
    missing = sorted(set(CODES) - _covered())
    assert missing == [], f"codes with no fixture case: {missing}"


def test_cases_use_only_known_codes() -> None:
    assert _covered() <= set(CODES)


def test_codes_are_snake_case_with_a_summary() -> None:
    for code, (severity, summary) in CODES.items():
        assert code.isidentifier() and code == code.lower()
        assert severity in ("error", "warning")
        assert summary.endswith(".")


def test_the_code_type_lists_exactly_the_codes() -> None:
    """``Code`` is what mypy checks every ``sink.add(code, ...)`` against: it must name every code, no more."""
    from typing import get_args

    from formatkit._core.codes import Code

    assert sorted(get_args(Code)) == sorted(CODES)
