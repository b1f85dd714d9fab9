from pathlib import Path

from formatkit import validate_file

FIXTURES = Path(__file__).parents[2] / "fixtures"


def test_seed_jsonl_single_turn_is_valid() -> None:
    report = validate_file(FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl")
    assert report.valid, report.issues
    assert report.format == "jsonl-single-turn"
    assert report.records == 2
