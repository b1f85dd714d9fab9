"""Pydantic models of the jsonl input lines, for the published JSON Schemas.

The readers do not validate through these models (they check line by line for located, actionable
issues); the models publish the same contract for other tools. tests/test_schemas.py proves that the
schemas accept every valid fixture and reject the invalid fixtures of every structural rule.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from formatkit._rules.parameters import parameters_json_schema

__all__ = ["InputMessage", "MultiTurnLine", "SingleTurnLine"]

#: Text that is not empty or only whitespace.
Text = Annotated[str, Field(pattern=r"\S")]
SamplingParameters = Annotated[dict[str, object], WithJsonSchema(parameters_json_schema())]
SessionId = int | str


class SingleTurnLine(BaseModel):
    """A jsonl single-turn line. ``query``/``system_prompt``/``reference_response`` are accepted aliases
    (with a warning) of ``prompt``/``system``/``answer``."""

    model_config = ConfigDict(extra="forbid", title="jsonl single-turn line")

    session_id: SessionId | None = None
    system: str | None = None
    system_prompt: str | None = None
    prompt: Text | None = None
    query: Text | None = None
    answer: str | None = Field(default=None, description="Reference answer; required in infer-eval and scored.")
    reference_response: str | None = None
    response: str | None = Field(default=None, description="A collected response; scored mode only.")
    parameters: SamplingParameters | None = None
    meta: dict[str, object] | None = None


class InputMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: Text


class MultiTurnLine(BaseModel):
    """A jsonl multi-turn line; ``messages`` must end with a user turn (``message`` is an alias)."""

    model_config = ConfigDict(extra="forbid", title="jsonl multi-turn line")

    session_id: SessionId | None = None
    messages: list[InputMessage] | None = Field(default=None, min_length=1)
    message: list[InputMessage] | None = Field(default=None, min_length=1)
    answer: str | None = None
    reference_response: str | None = None
    response: str | None = None
    parameters: SamplingParameters | None = None
    meta: dict[str, object] | None = None
