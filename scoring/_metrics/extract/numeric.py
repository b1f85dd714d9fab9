"""Numbers in replies (GSM8K style): the number after an answer marker, else the last number in the reply.
Chinese numerals count as numbers where they are used as such (``四个`` is 4; ``一起`` is no number)."""

from __future__ import annotations

import re

from scoring._metrics.extract.retraction import after_retraction
from scoring._metrics.extract.zh_numbers import arabic_numerals
from scoring._metrics.normalize import nfkc, parse_number, reply_body

__all__ = ["extract_number", "reference_number"]

# Thousands written with commas or with (thin) spaces — NFKC turns those into plain ones: "1,000", "1 000".
_NUM = (
    r"[-+]?(?:\d+(?:[ \t]+|又)\d+[ \t]*/[ \t]*\d+(?![\d.])"  # a mixed number: "1 1/2", "1又1/2"
    r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?: \d{3})+(?![\d,])(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:[eE][-+]?\d+)?(?:\s*/\s*\d+(?!\d|\.\d))?"  # "1/3." ends a sentence; "1/3.5" is no fraction
)
_NUM_RE = re.compile(r"(?<![A-Za-z0-9_.])\$?\s*(" + _NUM + r")(?!\.\d)")
_LATEX_FRACTION = re.compile(r"\\[dt]?frac\s*\{\s*([-+]?\d+(?:\.\d+)?)\s*\}\s*\{\s*(\d+(?:\.\d+)?)\s*\}")
_MARKER = re.compile(
    r"(?:####|(?i:final[ \t]+answer|the[ \t]+answer[ \t]+is|answer)[ \t]*(?:is)?[ \t]*[:：]?"
    r"|答案[是为]?[:：]?|\\boxed\{)"
    r"[ \t]*(?:\*\*)?[ \t]*(?:\$|\\\$|¥|￥)?[ \t]*(" + _NUM + r")"
)


def _value(raw: str) -> float | None:
    value = parse_number(raw)  # "1 1/2" is one and a half, not 11/2
    return value if value is not None else parse_number(raw.replace(" ", ""))


def extract_number(text: str | None) -> tuple[float | None, str]:
    """The answer number and how it was found (``marker "#### 42"`` / ``last number``)."""
    if not text:
        return None, "empty reply"
    raw, cut = reply_body(text)
    body = arabic_numerals(nfkc(raw).replace("**", ""))  # "一年有四个季节" holds the number 4
    if "frac" in body:
        body = _LATEX_FRACTION.sub(r"\1/\2", body)  # "$\frac{1}{2}$" is the number 1/2, not its last digit
    last_marker: re.Match[str] | None = None
    for m in _MARKER.finditer(after_retraction(body)):  # "答案是 3。不对，应该是 4。": 3 was withdrawn
        last_marker = m
    if last_marker is not None:
        value = _value(last_marker.group(1))
        if value is not None:
            return value, f'marker "{last_marker.group(0).strip()[:50]}"'
    last: re.Match[str] | None = None
    for m in _NUM_RE.finditer(body):
        last = m
    if last is not None:
        value = _value(last.group(1))
        if value is not None:
            return value, "last number in the reply"
    if cut:
        return None, "the reply ends inside its <think> reasoning (never closed), so it gives no final answer"
    return None, "no number in the reply"


# Currency and counting words around a reference number: "18元", "共计18元", "18 dollars", "3个". Measures
# (米, cm, kg…) are not stripped: a reply in another unit must not be credited with the bare number.
_REFERENCE_WORDS = re.compile(
    r"^(?:共计|合计|一共|总共|共)?[ \t]*(?P<number>.+?)[ \t]*"
    r"(?:块钱|美元|人民币|元|块|个|人|只|本|件|张|辆|台|次|天|岁|名|头|条|棵|支|瓶|箱|枚|颗|盒|份|页|道|座|间"
    r"|(?i:dollars?|yuan|rmb|usd|people|persons?|apples?|items?|times|days|years?))?$"
)


def reference_number(reference: str) -> float | None:
    """A numeric reference: ``42``, ``1,000``, ``$18``, ``¥18``, ``18元``, ``18 dollars``, or a GSM8K
    solution ending ``#### 42``."""
    ref = nfkc(reference).strip()
    if "####" in ref:
        ref = ref.rsplit("####", 1)[1].strip()
    value = parse_number(ref)
    if value is None and ref and not ref[-1].isdigit():
        m = _REFERENCE_WORDS.match(ref)
        if m is not None and m.group("number") != ref:
            value = parse_number(m.group("number"))
    return value
