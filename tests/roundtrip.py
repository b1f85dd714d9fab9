"""What the export round-trip tests compare: an output's records without where each was read from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def records_without_source(path: Path) -> list[dict[str, Any]]:
    """The canonical records of ``path``, each without ``meta.source`` (where it was read from: the one thing
    a round trip through a spreadsheet is allowed to change)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record["meta"].pop("source", None)
        out.append(record)
    return out
