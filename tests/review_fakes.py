"""The fake model and judge of the review-loop tests, and their CLI call that must succeed."""

from __future__ import annotations

from typing import Any

from fakeserver import last_user
from typer.testing import CliRunner, Result

from formatkit.cli import app

runner = CliRunner()


def respond(body: dict[str, Any]) -> str:
    """The model repeats the question; the judge gives 0, 1 or 2 by the prompt's length (varied, repeatable)."""
    text = last_user(body)
    if "<verdict-" in text:
        return f'{{"analysis": "judged on {len(text)} characters", "score": {len(text) % 3}}}'
    return f"answer: {text[:30]}"


def ok(*args: str) -> Result:
    """``formatkit ARGS`` through the CLI, which must exit 0."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result
