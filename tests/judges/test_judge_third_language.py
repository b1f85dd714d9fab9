"""A language of the table without judge prompts of its own (CONTRIBUTING.md, "Add a language") is judged
with the English prompts: the words the judges add around the record's own text (the speakers of a
conversation's earlier turns, the note for an item without a checklist) are English too, never a crash."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakeserver import FakeOpenAI, last_user
from typer.testing import CliRunner

from formatkit._core.messages import LANGUAGES, catalogue
from formatkit.cli import app


@pytest.fixture
def xx() -> Iterator[None]:
    """A toy third language: English's catalogue under another code."""
    LANGUAGES["xx"] = dict(catalogue("en"))
    try:
        yield
    finally:
        del LANGUAGES["xx"]


def _conversation(path: Path) -> Path:
    """One record of three turns: the judge is shown the earlier turns with their speakers."""
    record = {
        "session_id": "s1",
        "messages": [
            {"role": "user", "content": "家里有鸡蛋、西红柿"},
            {"role": "assistant", "content": "那可以做一道西红柿炒鸡蛋。"},
            {"role": "user", "content": "家里还有排骨"},
            {
                "role": "assistant",
                "reference_response": "那还可以做一道西红柿炖排骨。",
                "responses": [{"parameters": {}, "content": "可以做西红柿炖排骨。"}],
            },
        ],
    }
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("metric", "verdict", "english"),
    [
        ("judge", '{"analysis": "right", "score": 2}', "[User]\n家里有鸡蛋、西红柿"),
        ("pairwise", '{"analysis": "the same", "choice": "A=B"}', "(no checklist for this item)"),
    ],
)
def test_a_conversation_is_judged_in_english_words(
    xx: None, fake_openai: FakeOpenAI, tmp_path: Path, metric: str, verdict: str, english: str
) -> None:
    fake_openai.responder = lambda body: verdict
    judge = ["--judge-base-url", fake_openai.base_url, "--judge-model", "j", "--judge-lang", "xx"]
    args = ["score", str(_conversation(tmp_path / "set.jsonl")), "-o", str(tmp_path / "out.jsonl"), "--json"]
    result = CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, [*args, "--metric", metric, *judge])
    assert result.exit_code == 0, result.output
    assert english in last_user(fake_openai.bodies[-1])
    [line] = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    [response] = json.loads(line)["messages"][-1]["responses"]
    assert response["judge"]["status"] == "scored"
