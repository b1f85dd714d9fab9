"""What a pairwise response is compared with: the record's reference answer, or the response of another
model to the same record (``--against OTHER.jsonl``, matched by ``session_id``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from formatkit._core.record import RecordDict, reference_of, target_responses
from scoring._results import results_lines

__all__ = ["Against", "AgainstError", "load_against", "opponent_for"]


class AgainstError(ValueError):
    """The ``--against`` file cannot be used."""


#: session_id (as text, so ``1`` and ``"1"`` match) → the other model's response texts (None: no content).
Against = dict[str, list[str | None]]


def _contents(record: Mapping[str, Any]) -> list[str | None]:
    return [
        r.get("content") if isinstance(r, dict) and isinstance(r.get("content"), str) else None
        for r in target_responses(record)
    ]


def load_against(path: Path) -> Against:
    """The other model's response texts by ``session_id``; only the texts are kept, not the records."""
    by_id: Against = {}
    try:
        for line in results_lines(path):
            if line.problem == "not_json":
                raise AgainstError(f"--against {path}: line {line.number} is not JSON ({line.detail})")
            data = line.record
            if data is None or "session_id" not in data:
                raise AgainstError(f"--against {path}: line {line.number} is not a canonical record")
            by_id.setdefault(str(data["session_id"]), _contents(data))
    except OSError as exc:
        raise AgainstError(f"--against {path}: cannot read it ({exc.strerror or exc})") from exc
    return by_id


def opponent_for(against: Against | None, label: str, record: RecordDict, index: int) -> tuple[str | None, str]:
    """The text the response at ``index`` is compared with, and what it is (for the analysis)."""
    if against is None:
        value = reference_of(record)
        return (value if isinstance(value, str) else None), label
    responses = against.get(str(record.get("session_id")))
    if responses is None:
        return None, f"{label} with session_id {record.get('session_id')!r}"
    if not responses:
        return None, f"{label} (session_id {record.get('session_id')!r} has no responses)"
    position = index if index < len(responses) else 0
    return responses[position], f"{label} (session_id {record.get('session_id')!r}, response {position})"
