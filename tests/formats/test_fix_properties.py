"""Properties of the repairs on generated input: a repair never raises, never loses or reorders a jsonl line,
keeps unchanged lines byte for byte, and a repaired parameters text is a dict the rule then reads."""

from __future__ import annotations

import json

from fuzz import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from formatkit._fixing.jsonl import repair_jsonl
from formatkit._rules.parameters import parse_parameters, repair_parameters_text

#: The characters parameters cells are made of, IME punctuation included.
ALPHABET = st.sampled_from(list("{}[]:,\"'=;\n “”‘’，：｛｝【】、；temperaxk_0.7-1TrueFalsnul\\"))


@settings(max_examples=examples(200), deadline=None)
@given(st.text(ALPHABET, max_size=40))
def test_a_repaired_parameters_text_is_a_dict_the_rule_reads(text: str) -> None:
    repaired = repair_parameters_text(text)
    if repaired is None:
        return
    assert parse_parameters(text) is None  # only what did not parse is repaired
    assert isinstance(repaired, dict)
    assert parse_parameters(json.dumps(repaired, ensure_ascii=False)) == repaired


LINES = st.one_of(
    st.just(""),
    st.just("not json"),
    st.just('{"prompt": "1+1", "answer": "2"}'),
    st.just('{"prompt": "1+1", "parameters": "｛“temperature”：0.7｝"}'),
    st.just('{"session_id": " s1", "prompt": "1+1"}'),
    st.just('{"Prompt": "1+1", "prompt": "x"}'),
    st.just('{"a": 1, "a": 2, "parameters": "temperature=1"}'),
    st.just('{"x": NaN, "parameters": "temperature=1"}'),
    st.just("[1, 2]"),
    st.text(max_size=20).filter(lambda t: "\n" not in t and "\r" not in t),
)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(LINES, max_size=8), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_jsonl_repairs_keep_every_line_in_place(lines: list[str], ending: str, bom: bool) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + ending.join(lines).encode("utf-8") + ending.encode()
    fixed, changes = repair_jsonl(data)
    before = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
    after = fixed.split(b"\n")
    assert len(after) == len(before)
    changed = {c.line for c in changes if c.line is not None and c.code != "bom_removed"}
    for number, (old, new) in enumerate(zip(before, after, strict=True), start=1):
        if number not in changed:
            assert new == old
        else:  # a rewritten line stays one JSON object and keeps its line ending
            assert isinstance(json.loads(new), dict) and new.endswith(b"\r") == old.endswith(b"\r")


SCALARS = st.one_of(
    st.integers(-1000, 1000),
    st.booleans(),
    st.floats(-10, 10, allow_nan=False).map(lambda f: round(f, 3)),
    st.text(st.sampled_from(list("ab，：【】 。、{}")), max_size=6),  # quotes in a string: no single reading
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3))
DICTS = st.dictionaries(st.sampled_from(["temperature", "top_p", "stop", "seed", "max_tokens"]), VALUES, min_size=1)


def ime(value: object, draw: st.DrawFn, *, mixed: bool) -> str:
    """``value`` typed with a Chinese input method: each piece of punctuation outside strings full-width or
    not; a string's quotes a pair ("" or “”), or with ``mixed`` each quote of either kind."""

    def pick(ascii_: str, wide: str) -> str:
        return wide if draw(st.booleans()) else ascii_

    if isinstance(value, dict):
        items = [f"{ime(k, draw, mixed=mixed)}{pick(':', '：')}{ime(v, draw, mixed=mixed)}" for k, v in value.items()]
        return pick("{", "｛") + pick(",", "，").join(items) + pick("}", "｝")
    if isinstance(value, list):
        return pick("[", "【") + pick(",", "，").join(ime(v, draw, mixed=mixed) for v in value) + pick("]", "】")
    if isinstance(value, str):
        if mixed:
            return pick('"', "“") + value + pick('"', "”")
        return ('"{}"' if draw(st.booleans()) else "“{}”").format(value)
    return json.dumps(value)


@st.composite
def typed(draw: st.DrawFn, mixed: bool = False) -> tuple[dict[str, object], str]:
    value: dict[str, object] = dict(draw(DICTS))
    return value, ime(value, draw, mixed=mixed)


@settings(max_examples=examples(150), deadline=None)
@given(typed())
def test_any_dict_typed_with_an_input_method_is_repaired_to_itself(case: tuple[dict[str, object], str]) -> None:
    value, text = case
    if parse_parameters(text) is not None:
        assert parse_parameters(text) == value  # typed in plain JSON after all: nothing to repair
    else:
        assert repair_parameters_text(text) == value


@settings(max_examples=examples(150), deadline=None)
@given(typed(mixed=True))
def test_quotes_typed_half_in_each_mode_are_repaired_or_left_never_misread(
    case: tuple[dict[str, object], str],
) -> None:
    value, text = case
    assert repair_parameters_text(text) in (value, None)
