"""The published JSON Schemas (draft 2020-12), generated from the pydantic models.

``formatkit schema --write`` regenerates ``schemas/``; a test fails when the checked-in files are stale.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

__all__ = ["SCHEMA_NAMES", "build_schema", "render", "write_all"]

SCHEMA_NAMES = ("record", "report", "jsonl-single-turn", "jsonl-multi-turn", "report-results")
_BASE_ID = "https://formatkit.dev/schemas/"


def _record() -> dict[str, object]:
    from formatkit._core.models import Record

    return Record.model_json_schema()


def _report() -> dict[str, object]:
    from formatkit._core.issues import Report

    return Report.model_json_schema()


def _required_not_null(schema: dict[str, object], *names: str) -> dict[str, object]:
    """Fields that are optional only because an alias may stand in for them are never null."""
    properties = schema["properties"]
    assert isinstance(properties, dict)  # pydantic's schema of a model: its fields under "properties"
    for name in names:
        prop = properties[name]
        options = [o for o in prop.pop("anyOf", []) if o.get("type") != "null"]
        if len(options) == 1:
            prop.update(options[0])
        prop.pop("default", None)
    return schema


def _single() -> dict[str, object]:
    from formatkit._api.input_models import SingleTurnLine

    schema = _required_not_null(SingleTurnLine.model_json_schema(), "prompt", "query")
    schema["oneOf"] = [{"required": ["prompt"]}, {"required": ["query"]}]
    return schema


def _multi() -> dict[str, object]:
    from formatkit._api.input_models import MultiTurnLine

    schema = _required_not_null(MultiTurnLine.model_json_schema(), "messages", "message")
    schema["oneOf"] = [{"required": ["messages"]}, {"required": ["message"]}]
    return schema


def _report_results() -> dict[str, object]:
    from formatkit._api.results_schema import report_results_schema

    return report_results_schema()


_BUILDERS: dict[str, Callable[[], dict[str, object]]] = {
    "record": _record,
    "report": _report,
    "jsonl-single-turn": _single,
    "jsonl-multi-turn": _multi,
    "report-results": _report_results,
}


def build_schema(name: str) -> dict[str, object]:
    """The JSON Schema named ``name`` (one of SCHEMA_NAMES)."""
    body = _BUILDERS[name]()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"{_BASE_ID}{name}.schema.json", **body}


def render(name: str) -> str:
    return json.dumps(build_schema(name), ensure_ascii=False, indent=2) + "\n"


def write_all(folder: Path) -> list[Path]:
    """Write every schema to ``folder/<name>.schema.json``; return the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SCHEMA_NAMES:
        path = folder / f"{name}.schema.json"
        path.write_text(render(name), encoding="utf-8")
        written.append(path)
    return written
