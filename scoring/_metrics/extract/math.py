"""Final-answer extraction for math replies (seed 003's priority).

1. every ``\\boxed{…}`` (brace-matched, ``\\fbox`` too), joined by ``;``;
2. else the text after the last answer keyword of the highest tier present — final answer / 最终答案;
   the answer is / answer / result / 答案 / 结果; therefore / thus / hence / so / in conclusion / 所以 /
   因此 / 故 / 综上 — or before ``… is the answer``; a reply answering numbered parts (``(1) … (2) …``
   on their own lines) gives one answer per part, joined by ``;``;
3. else the last sentence of the reply.

The text found is trimmed to the answer: leading prose (``the area is``, ``x 的取值范围是``), a trailing
reason (``because …``, ``, but …``, ``(since …)``) and, when the text mixes prose with ``$…$`` math, the
last run of math (``$x=1$ 或 $x=2$`` stays whole). Reasoning in ``<think>`` blocks is ignored, and a reply
that ends inside an unclosed ``<think>`` has no final answer.
"""

from __future__ import annotations

import re

from scoring._metrics.normalize import reply_body

__all__ = ["boxed_contents", "extract_math_answer"]

_BOX_START = re.compile(r"\\(?:boxed|fbox)\s*\{")


def boxed_contents(text: str) -> list[str]:
    """The contents of every ``\\boxed{…}`` in order, braces matched (``\\boxed{\\frac{1}{2}}`` → ``\\frac{1}{2}``)."""
    out: list[str] = []
    pos = 0
    while True:
        m = _BOX_START.search(text, pos)
        if m is None:
            return out
        depth = 1
        i = m.end()
        while i < len(text) and depth:
            ch = text[i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            i += 1
        if depth:
            out.append(text[m.end() :].strip())
            return out
        out.append(text[m.end() : i - 1].strip())
        pos = i


_TIERS = (
    re.compile(r"(?i:final\s+answer|最终答案|最终结果)"),
    re.compile(r"(?i:the\s+answer\s+is|the\s+result\s+is|answer|result)|答案|结果|解得"),
    re.compile(r"(?i:\btherefore\b|\bthus\b|\bhence\b|\bso\b|in\s+conclusion)|所以|因此|综上所述|综上|故"),
)
_LEAD = re.compile(
    r"^[\s:：,，]*(?:(?:is|are|was|would\s+be|will\s+be|equals|为|是|应为|等于)(?![a-z])[\s:：]*)?", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"\.(?=\s|$)|。|！|!(?=\s|$)|\n")
_PROSE = re.compile(
    r"^(?:[A-Za-z][A-Za-z ,']{0,60}?\b(?:is|are|equals|was|would\s+be)\s+"
    r"|[\u4e00-\u9fff，,]{1,12}?(?:为|是|等于)\s*)(?=\S)"
)
# "… is the answer" / "… is the final answer": the answer stands before the keyword.
_IS_THE = re.compile(r"\s*\b(?:is|was|would\s+be|will\s+be)\s+(?:the|our|my)\s+(?:final\s+|correct\s+)?$", re.I)
_CONNECTIVE = re.compile(
    r"^(?:(?i:therefore|thus|hence|so|then|finally|in\s+conclusion)\b[\s,，]*|所以|因此|故|综上所述|综上)[\s,，:：]*"
)
# A reason after the answer: "5 because 2+3=5", "5, but I am not sure", "5 (since …)", "5，因为……".
_REASON = re.compile(
    r"\s*(?:[,，;；]\s*)?\b(?:because|since|as\s+(?:shown|required|expected)|which|but|so\s+that|where|given\s+that)\b.*$"
    r"|\s*\((?:since|because|as|from|by|which|i\.e\.|e\.g\.|using|via|note)\b[^)]*\)\s*$"
    r"|\s*[,，]?\s*(?:因为|由于|但是|但|其中).*$",
    re.IGNORECASE,
)
# Inline math: $…$, $$…$$, \(…\), \[…\].
_MATH_SEGMENT = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
_JOINER = re.compile(r"^\s*(?:,|，|、|;|；|or|and|或者|或|和|以及|及)?\s*$", re.IGNORECASE)
_UNIT_SUFFIX = re.compile(r"^\s*[^\s\d$.,;:!?。，；：]{1,8}\s*$")
# Prose: a Chinese character or an English word — not a joiner (and, 或, 和) or a function or LaTeX name.
_PROSE_WORD = re.compile(
    r"(?![或和及且])[\u4e00-\u9fff]"
    r"|(?<![\\A-Za-z])(?!(?:and|or|sqrt|frac|dfrac|pi|sin|cos|tan|cot|log|ln|exp|text|cdot|times|infty)\b)[A-Za-z]{3,}"
)
_EN_VERB = re.compile(r"\b(?:is|are|equals|was|were|would\s+be|will\s+be|becomes|gives|yields)\s+", re.IGNORECASE)
_ZH_VERB = re.compile(r"(?:为|是|等于|得)\s*")
# "Solving, a = 3" / "由题意得 a=3": prose, then the value named last.
_LAST_ASSIGNMENT = re.compile(r"(?:^|(?<=[\s,，:：]))([A-Za-z](?:_\{?\w+\}?)?\s*=\s*[^=,，;；\s][^=,，;；]*)$")
_HAS_MATH = re.compile(r"[0-9A-Za-z\\√π∞(\[{<>=≤≥±-]")


def _math_span(text: str) -> str | None:
    """The last run of inline math in prose (runs joined only by ``or``/``and``/commas stay together)."""
    segments = list(_MATH_SEGMENT.finditer(text))
    if not segments:
        return None
    first = last = len(segments) - 1
    while first > 0 and _JOINER.match(text[segments[first - 1].end() : segments[first].start()]):
        first -= 1
    start, end = segments[first].start(), segments[last].end()
    prefix, suffix = text[:start], text[end:]
    if prefix.strip() and not _PROSE_WORD.search(prefix):
        start = 0  # "x = $3$", "-$5$": the prefix is part of the answer
    if _UNIT_SUFFIX.match(suffix):
        end = len(text)  # "$5$ 元", "$12$ cm"
    return text[start:end].strip()


def _trim(text: str) -> str:
    """An answer out of a clause: no leading prose or connective, no trailing reason."""
    s = text.strip().strip("*").strip()
    s = _CONNECTIVE.sub("", s, count=1)
    span = _math_span(s)
    if span is not None:
        return _REASON.sub("", span).strip() if not _MATH_SEGMENT.fullmatch(span) else span
    s = _REASON.sub("", s).strip()
    s = _PROSE.sub("", s, count=1)
    if _PROSE_WORD.search(s):
        assignment = _LAST_ASSIGNMENT.search(s)
        if assignment is not None and _PROSE_WORD.search(s[: assignment.start()]):
            return assignment.group(1).strip().rstrip("。.,，;；:：").strip()
        # "the area of the square is 25" / "实数a的取值范围为a≥1": the answer follows the last verb whose
        # remainder holds something mathematical, when what precedes it is prose.
        for verb in (_EN_VERB, _ZH_VERB):
            cut = None
            for m in verb.finditer(s):
                rest = s[m.end() :]
                if rest.strip() and _HAS_MATH.search(rest) and _PROSE_WORD.search(s[: m.start()]):
                    cut = m.end()
            if cut is not None:
                s = s[cut:]
                break
    return s.strip().strip("*").strip().rstrip("。.,，;；:：").strip()


def _tail_after(text: str, start: int) -> str:
    rest = text[start:]
    rest = _LEAD.sub("", rest, count=1)
    if rest.startswith((". ", "。")) or rest == ".":
        return ""  # "We need the answer. It is 7": the keyword's sentence ends without one
    line = rest.split("\n", 1)[0]
    m = _SENTENCE_END.search(line)
    if m is not None and m.start() > 0:
        line = line[: m.start()]
    line = _PROSE.sub("", line.strip(), count=1)
    return _trim(line)


def _before(text: str, end: int) -> str:
    """The clause ending at ``end`` ("Therefore 3" in "… Therefore 3 is the answer")."""
    head = text[:end]
    cut = max(head.rfind("\n"), head.rfind(". "), head.rfind("。"), head.rfind("! "), head.rfind("? "))
    return _trim(head[cut + 1 :])


# Numbered parts on their own lines: "(1) …", "（2）…", "① …"; after "Final answer", also "1. …".
_PART_LINE = re.compile(
    r"^[ \t]*(?:解[:：][ \t]*)?(?:[(（][ \t]*(\d{1,2})[ \t]*[)）]|([①②③④⑤⑥⑦⑧⑨⑩]))[ \t]*(.*)$", re.MULTILINE
)
_LIST_LINE = re.compile(r"^[ \t]*(?:[(（]?(\d{1,2})[)）.．、]|[(（](\d{1,2})[)）]|([①②③④⑤⑥⑦⑧⑨⑩]))[ \t]*(\S.*)$")
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"


def _part_number(arabic: str | None, circled: str | None) -> int:
    return int(arabic) if arabic else _CIRCLED.index(circled or "①") + 1


def _listed_after(text: str, start: int) -> str | None:
    """``Final answer:\\n(1) 3\\n(2) 5`` → ``3;5``: numbered lines right after a keyword."""
    lines = text[start:].lstrip(" \t:：*").split("\n")
    if lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[0].strip():
        lines = lines[1:]
    answers: list[str] = []
    for line in lines:
        if not line.strip():
            if answers:
                break
            continue
        m = _LIST_LINE.match(line)
        if m is None or _part_number(m.group(1) or m.group(2), m.group(3)) != len(answers) + 1:
            break
        answers.append(_trim(_strip_label(m.group(4))))
    return ";".join(answers) if len(answers) >= 2 and all(answers) else None


def _strip_label(text: str) -> str:
    return re.sub(r"^(?:(?i:part)\s*\w\s*[:：]|[a-z]\s*[:：])\s*", "", text.strip())


def _numbered_parts(body: str) -> list[str] | None:
    """One answer per numbered part when the reply answers (1), (2), … on lines of their own."""
    marks = [m for m in _PART_LINE.finditer(body)]
    if len(marks) < 2:
        return None
    numbers = [_part_number(m.group(1), m.group(2)) for m in marks]
    starts: list[re.Match[str]] = []
    for m, n in zip(marks, numbers, strict=False):
        if n == len(starts) + 1:
            starts.append(m)
    if len(starts) < 2:
        return None
    answers: list[str] = []
    for k, m in enumerate(starts):
        stop = starts[k + 1].start() if k + 1 < len(starts) else len(body)
        part = body[m.start(3) : stop].strip()
        found = _keyword_answer(part, parts=1)
        answer = found[0] if found is not None else _last_sentence(part)
        if not answer:
            return None
        answers.append(answer)
    return answers


def _keyword_answer(body: str, *, parts: int | None = None) -> tuple[str, str] | None:
    """The answer after (or before) a keyword. ``parts``: blanks the reference has (None: unknown) — with
    several, a reply answering numbered parts line by line is read part by part before any keyword."""
    numbered = None if parts == 1 else _numbered_parts(body)
    if numbered is not None and parts is not None:
        return ";".join(numbered), f"{len(numbered)} numbered parts"
    for rank, tier in enumerate(_TIERS):
        matches = list(tier.finditer(body))
        if numbered is not None and rank == 1:
            return ";".join(numbered), f"{len(numbered)} numbered parts"
        for m in reversed(matches):
            if rank < 2 and m.group(0).lower().endswith(("answer", "result")):
                before = _IS_THE.search(body[max(0, m.start() - 40) : m.start()])
                if before is not None:
                    head = _before(body, m.start() - len(before.group(0)))
                    if head and _HAS_MATH.search(head):
                        return head, f'"… {" ".join(before.group(0).split())} {m.group(0)}"'
            listed = _listed_after(body, m.end()) if rank == 0 else None
            if listed:
                return listed, f'keyword "{m.group(0)}", numbered lines'
            tail = _tail_after(body, m.end())
            if tail and _HAS_MATH.search(tail):
                return tail, f'keyword "{m.group(0)}"'
    return None


def _last_sentence(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    last = lines[-1].rstrip("。.!！ ")
    pieces = [p.strip() for p in _SENTENCE_END.split(last) if p and p.strip()]
    return _trim(pieces[-1] if pieces else last)


def extract_math_answer(text: str | None, parts: int | None = None) -> tuple[str, str]:
    """The final answer of a reply and how it was found. ``("", "empty reply")`` when there is nothing.

    ``parts``: how many blanks the reference has, when known. A reply that answers numbered parts on
    lines of their own (``(1) … (2) …``) is read part by part when the reference has several blanks (or
    when unknown and no "final answer" is given), never for a one-blank reference.
    """
    if not text or not text.strip():
        return "", "empty reply"
    raw, cut = reply_body(text)
    body = raw.replace("**", "")
    boxes = [b for b in boxed_contents(body) if b]
    if boxes:
        return ";".join(boxes), f"\\boxed{{}} ×{len(boxes)}" if len(boxes) > 1 else "\\boxed{}"
    found = _keyword_answer(body, parts=parts)
    if found is not None:
        return found
    if parts is not None and parts > 1:
        # A reply that is a short line per blank ("3\n5"): the last sentence of each.
        lines = [line.strip() for line in body.strip().splitlines() if line.strip()][-parts:]
        if len(lines) == parts and all(len(line) <= 60 for line in lines):
            answers = [_last_sentence(line) for line in lines]
            if all(answers):
                return ";".join(answers), f"last {parts} lines"
    last = _last_sentence(body)
    if last:
        return last, "last sentence"
    if cut:
        return "", "the reply ends inside its <think> reasoning (never closed), so it gives no final answer"
    return "", "nothing is left once the <think> reasoning is removed"
