"""Whatever bytes or rows a jsonl file holds, validation returns a report and never raises."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fuzz import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formatkit import validate_file
from formatkit._api.conversion import convert

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
keys = st.sampled_from(["prompt", "system", "answer", "response", "parameters", "messages", "session_id", "meta", "x"])
rows = st.dictionaries(keys, json_values, max_size=6)
message = st.fixed_dictionaries(
    {"role": st.sampled_from(["system", "user", "assistant", "bot"]), "content": st.text(max_size=10)}
)
multi_rows = st.fixed_dictionaries(
    {"messages": st.lists(message, max_size=4)}, optional={"answer": st.text(max_size=5)}
)

SETTINGS = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _check(path: Path, tmp_path: Path) -> None:
    for mode in ("infer-eval", "infer-only", "scored"):
        report = validate_file(path, mode=mode)
        assert report.valid == (report.errors == 0)
        for issue in report.issues:
            assert issue.code and issue.message
    out = tmp_path / "out.jsonl"
    out.unlink(missing_ok=True)  # hypothesis reuses tmp_path across examples
    result = convert([path], out)
    assert result.valid == out.exists()


@SETTINGS
@given(st.binary(max_size=400))
def test_random_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(data)
    _check(path, tmp_path)


@SETTINGS
@given(st.lists(rows | multi_rows, min_size=1, max_size=5))
def test_random_rows(tmp_path: Path, objs: list[dict[str, Any]]) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(o, ensure_ascii=False) for o in objs) + "\n", encoding="utf-8")
    _check(path, tmp_path)
