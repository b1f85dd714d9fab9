"""The one reading of a parameters text that does not parse (``repair_parameters_text``, used by
``formatkit fix``): a Chinese input method's punctuation, ``key=value`` pairs; None when unsure."""

from __future__ import annotations

from typing import Any

import pytest

from formatkit._rules.parameters import repair_parameters_text


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("｛“temperature”：0.7，“max_tokens”：1024｝", {"temperature": 0.7, "max_tokens": 1024}),
        ("｛‘temperature’：0.7，‘logprobs’：False｝", {"temperature": 0.7, "logprobs": False}),
        ("｛“stop”：【“，”、“。”】｝", {"stop": ["，", "。"]}),  # full-width inside quotes is text: kept
        ("{“temperature”: 0.7}", {"temperature": 0.7}),
        ("temperature=0.7, max_tokens=1024", {"temperature": 0.7, "max_tokens": 1024}),
        ("temperature=0.7；top_p=0.9", {"temperature": 0.7, "top_p": 0.9}),
        ("temperature=0.7\nlogprobs=true", {"temperature": 0.7, "logprobs": True}),
        ('temperature = 0.7, stop = ["a;b"]', {"temperature": 0.7, "stop": ["a;b"]}),
        (
            "top_k=20，chat_template_kwargs={“enable_thinking”：false}",
            {"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}},
        ),
    ],
)
def test_one_reading(text: str, meant: dict[str, Any]) -> None:
    assert repair_parameters_text(text) == meant


@pytest.mark.parametrize(
    "text",
    [
        '{"temperature": 0.7}',  # already fine: nothing to repair
        "stop=</s>",  # a bare word: text or not?
        "｛“temperature”：0.7",  # cut short
        "｛“temperature：0.7｝",  # a quote left open
        "hello",
        "temperature=0.7 if hot else 1",
        "dict(**x)",
        "__import__('os')=1",
    ],
)
def test_no_certain_reading(text: str) -> None:
    assert repair_parameters_text(text) is None
