"""The canonical record's types and helpers (formatkit/_core/record.py), through the public face: the helpers
read the very dicts iter_dicts gives (in place, no copy), and a malformed record is None or no responses,
never an exception."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from formatkit import (
    RecordDict,
    iter_dicts,
    pending_turns,
    reference_of,
    response_of,
    score_entries,
    target_responses,
    target_turn,
)

SEED = Path(__file__).parents[2] / "fixtures" / "seed"


def test_the_helpers_read_the_records_iter_dicts_gives_in_place() -> None:
    records = list(iter_dicts(SEED / "seed_output_multi_turn.jsonl", mode="scored"))
    assert [reference_of(record) for record in records] == ["2", "3", "5"]
    for record in records:
        assert type(record) is dict  # a TypedDict is the plain dict: no wrapper
        target = target_turn(record)
        assert target is not None and target is record["messages"][len(record["messages"]) - 1]
        assert target_responses(record) is target["responses"]  # the record's own list, to fill in place
        assert score_entries(record) == target["responses"]  # a scored file: every response has its score
        target_responses(record)[0]["model"] = f"model-{record['session_id']}"
        assert response_of(record, f"model-{record['session_id']}") is target["responses"][0]
        assert response_of(record, "another model") is None


def test_score_entries_are_the_responses_a_scorer_has_been_over() -> None:
    record: RecordDict = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "1+1"},
            {
                "role": "assistant",
                "reference_response": "2",
                "responses": [
                    {"parameters": {}, "content": "2", "score": 1.0},
                    {"parameters": {}, "content": "3"},
                    {"parameters": {}, "content": "?", "score": None, "analysis": "unscorable: no answer"},
                ],
            },
        ],
    }
    responses = target_responses(record)
    assert score_entries(record) == [responses[0], responses[2]]


def test_pending_turns_of_a_converted_sheet() -> None:
    records = list(iter_dicts(SEED / "seed_excel_multi_turn.xlsx", mode="infer-eval"))
    # every earlier reply is given as history: only the target turn (the last message) waits
    assert [list(pending_turns(record)) for record in records] == [[(6, [0])], [(4, [0])]]


def test_pending_turns_generate_an_earlier_turn_once_and_redo_empty_replies_only_when_asked() -> None:
    record: RecordDict = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "turn one"},
            {"role": "assistant", "responses": [{"parameters": {}}, {"parameters": {}}]},
            {"role": "user", "content": "turn two"},
            {
                "role": "assistant",
                "reference_response": "r",
                "responses": [{"parameters": {}}, {"parameters": {}, "content": " "}, {"parameters": {}}],
            },
        ],
    }
    assert list(pending_turns(record)) == [(1, [0]), (3, [0, 2])]
    assert list(pending_turns(record, redo_empty=True)) == [(1, [0]), (3, [0, 1, 2])]


@pytest.mark.parametrize(
    "record",
    [
        {},
        {"messages": None},
        {"messages": []},
        {"messages": "not a list"},
        {"messages": [{"role": "user", "content": "q"}, "not an object"]},
    ],
    ids=["no-messages", "null", "empty", "text", "last-not-an-object"],
)
def test_a_record_without_a_target_turn_has_none_and_no_responses(record: dict[str, Any]) -> None:
    assert target_turn(record) is None
    assert target_responses(record) == []
    assert reference_of(record) is None
    assert score_entries(record) == []
    assert response_of(record, "m") is None


def test_responses_that_are_no_list_read_as_none() -> None:
    record = {"messages": [{"role": "assistant", "reference_response": "r", "responses": "garbled"}]}
    assert target_turn(record) == record["messages"][0]
    assert target_responses(record) == []
    assert reference_of(record) == "r"
