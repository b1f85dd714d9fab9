"""Final-answer extraction for math replies (seed 003's priority), read as the reply's final commitment.

1. ``\\boxed{…}`` (brace-matched, ``\\fbox`` too): the last run of boxes — boxes separated only by joiners
   (``,``, ``and``, ``或``, ``\\quad``, part markers) form one answer, one box per blank or per element;
   a box repeated counts once; boxes earlier in the reply are drafts. An answer keyword of the first two
   tiers *after* the last box outranks it (``… \\boxed{4} … The final answer is $10,455$``).
2. else the text after the last answer keyword of the highest tier present — final answer / 最终答案;
   the answer is / answer / result / 答案 / 结果; therefore / thus / hence / so / in conclusion / 所以 /
   因此 / 故 / 综上 — or before ``… is the answer``. When the reference has several blanks, the answer runs
   on over the following lines until it has as many (``答案：(1)9;9;24;\\n(2)3``); display math on the
   lines after the keyword (``The answer is\\n\\[\\n9\\n\\]``) is the answer. A reply answering numbered
   parts (``(1) … (2) …`` on their own lines) gives one answer per part.
3. else, for several blanks, the last paragraph when it holds them, or one short line per blank; else the
   last sentence of the reply.

The text found is trimmed to the answer (:func:`math_text.isolate`). Reasoning in ``<think>`` blocks is
ignored, and a reply that ends inside an unclosed ``<think>`` has no final answer. Only the last 32,000
characters of a reply are read, and every step is linear in them.
"""

from __future__ import annotations

import re

from scoring._metrics.extract.math_text import blanks, has_math, isolate, reply_text
from scoring._metrics.extract.retraction import after_retraction

__all__ = ["boxed_contents", "boxed_spans", "extract_math_answer"]

_BOX_START = re.compile(r"\\(?:boxed|fbox)\s*\{")


def boxed_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, content)`` of every ``\\boxed{…}`` in order, braces matched; an unclosed box runs to the end."""
    out: list[tuple[int, int, str]] = []
    pos = 0
    while True:
        m = _BOX_START.search(text, pos)
        if m is None:
            return out
        depth = 1
        i = m.end()
        n = len(text)
        while i < n and depth:
            ch = text[i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            i += 1
        if depth:
            out.append((m.start(), n, text[m.end() :].strip()))
            return out
        out.append((m.start(), i, text[m.end() : i - 1].strip()))
        pos = i


def boxed_contents(text: str) -> list[str]:
    """The contents of every ``\\boxed{…}`` in order, braces matched (``\\boxed{\\frac{1}{2}}`` → ``\\frac{1}{2}``)."""
    return [content for _, _, content in boxed_spans(text)]


# What may stand between two boxes of one answer: punctuation, joiners, spacing, part markers, names.
_BOX_GAP = re.compile(
    r"\\(?:quad|qquad|[,;:! ]|\[|\]|\(|\)|\\"
    r"|text(?:bf)?\s*\{\s*(?:and|or|,|;|和|或|(?:for\s+)?part\s*\(?\w\)?(?:\s*,?\s*and)?)?\s*\})"
    r"|\$|&|(?i:\band\b|\bor\b|\bpart\b)|和|或者|或|以及|及|[\s,，;；、.。:：*]"
    r"|[(（]\s*[0-9a-z]{1,2}\s*[)）]|[①②③④⑤⑥⑦⑧⑨⑩]|\b[a-z]\)"
    r"|[A-Za-z](?:_\{?\w{1,3}\}?)?\s*=|[A-Za-z]{1,2}\([a-z]\)\s*="
)
_GAP_MAX = 160


def _joined(gap: str) -> bool:
    return len(gap) <= _GAP_MAX and not _BOX_GAP.sub("", gap).strip()


def _key(text: str) -> str:
    return re.sub(r"\s+", "", text)


_COMMITTED = re.compile(r"[\d\\√π∞]")


def _final_boxes(body: str, parts: int | None) -> tuple[str, str, int] | None:
    """The last run of boxes as one answer, how it was read, and where it ends."""
    spans = [s for s in boxed_spans(body) if s[2]]
    if not spans:
        return None
    run = [spans[-1]]
    for span in reversed(spans[:-1]):
        if not _joined(body[span[1] : run[0][0]]):
            break
        run.insert(0, span)
    contents: list[str] = []
    for _, _, content in run:
        if _key(content) not in {_key(c) for c in contents}:
            contents.append(content)
    joiner = ", " if parts == 1 and len(contents) > 1 else ";"
    how = "\\boxed{}" if len(spans) == 1 else f"last \\boxed{{}} run ({len(contents)} of {len(spans)} boxes)"
    return joiner.join(contents), how, run[-1][1]


_TIERS = (
    re.compile(r"(?i:final\s+answer|final\s+value)|最终答案|最终结果"),
    re.compile(
        r"(?i:the\s+answer\s+is|the\s+result\s+is|answer(?!s)|result(?!s))|答案|结果|解得"
        r"|(?m:^)[ \t]*(?:A|Ans|ANS)\.?[ \t]*[:：]"  # GSM8K's "A: 18", "Ans: 18" on a line of their own
    ),
    re.compile(
        r"(?i:\btherefore\b|\bthus\b|\bhence\b|\bso\b|in\s+conclusion)|所以|因此|综上所述|综上|故|那么"
        r"|(?<=[，,])[ \t]*即(?=[ \t]*[\d$\\一二两三四五六七八九十零])"  # "…3个减去2个，即1个"
    ),
)
# "A:" marks an answer only when a short one follows it ("A: Let's think step by step" is no answer).
_LINE_MARKER = re.compile(r"[ \t]*(?:A|Ans|ANS)\.?[ \t]*[:：]$")
_MARKER_TAIL = 60
# Keywords tried per tier (the last ones): a reply repeating a keyword thousands of times stays linear.
_KEYWORDS_TRIED = 12
_TAIL_MAX = 4000
_LEAD = re.compile(
    r"^[\s:：,，】\]）)*]*(?:(?:(?:is|are|was|would\s+be|will\s+be|equals)(?![a-z])|为|是|应为|等于)[\s:：]*)?",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"\.(?=\s|$)|。|！|!(?=\s|$)|\n")
_PROSE = re.compile(
    r"^(?:[A-Za-z][A-Za-z ,']{0,60}?\b(?:is|are|equals|was|would\s+be)\s+"
    r"|[\u4e00-\u9fff，,]{1,12}?(?:为|是|等于)\s*)(?=\S)"
)
# "… is the answer" / "… is the final answer": the answer stands before the keyword.
_IS_THE = re.compile(r"\s*\b(?:is|was|would\s+be|will\s+be)\s+(?:the|our|my)\s+(?:final\s+|correct\s+)?$", re.I)
# Display math opening on the line after a keyword: "The answer is\n\[\n9\n\]".
_DISPLAY_OPEN = re.compile(r"[ \t]*\n?\s*(\\\[|\$\$)")


def _display_after(rest: str) -> str | None:
    m = _DISPLAY_OPEN.match(rest)
    if m is None:
        return None
    closer = "\\]" if m.group(1) == "\\[" else "$$"
    stop = rest.find(closer, m.end())
    if stop < 0:
        return None
    content = rest[m.end() : stop].strip()
    inner = boxed_contents(content)
    return inner[-1] if inner else content


def _region(rest: str, parts: int) -> str | None:
    """Lines after a keyword, until they hold ``parts`` blanks (or a paragraph ends)."""
    taken: list[str] = []
    for line in rest.split("\n", 40)[:40]:
        if not line.strip():
            continue
        taken.append(line)
        if len(blanks("\n".join(taken))) >= parts:
            break
    region = _drop_closing("\n".join(taken).strip()).rstrip("。.")
    return region if len(blanks(region)) >= 2 else None


_CLOSING = re.compile(r"(?:[.!?。！？])\s+(?=[^\n]*$)")
_NO_VALUE = re.compile(r"^[^\d$\\=]*$")


def _drop_closing(text: str) -> str:
    """ "… 769.3cm³. I hope it is correct." → "… 769.3cm³.": a closing sentence without a value."""
    cut = None
    for cut in _CLOSING.finditer(text):  # noqa: B007 - the last sentence end is wanted
        pass
    if cut is not None and _NO_VALUE.match(text[cut.end() :]):
        return text[: cut.start() + 1]
    return text


def _tail_after(text: str, start: int, parts: int | None) -> str:
    rest = text[start : start + _TAIL_MAX]
    rest = _LEAD.sub("", rest, count=1)
    if rest.startswith((". ", "。")) or rest == ".":
        return ""  # "We need the answer. It is 7": the keyword's sentence ends without one
    display = _display_after(rest)
    if display is not None:
        return display
    if parts is not None and parts > 1:
        region = _region(rest, parts)
        if region is not None:
            return region
    line = rest.split("\n", 1)[0]
    m = _SENTENCE_END.search(line)
    if m is not None and m.start() > 0:
        line = line[: m.start()]
    line = _PROSE.sub("", line.strip(), count=1)
    return isolate(line)


def _before(text: str, end: int) -> str:
    """The clause ending at ``end`` ("Therefore 3" in "… Therefore 3 is the answer")."""
    head = text[max(0, end - _TAIL_MAX) : end]
    cut = max(head.rfind("\n"), head.rfind(". "), head.rfind("。"), head.rfind("! "), head.rfind("? "))
    return isolate(head[cut + 1 :])


# Numbered parts on their own lines: "(1) …", "（2）…", "① …"; after "Final answer", also "1. …".
_PART_LINE = re.compile(
    r"^[ \t]*(?:解[:：][ \t]*)?(?:[(（][ \t]*(\d{1,2})[ \t]*[)）]|([①②③④⑤⑥⑦⑧⑨⑩]))[ \t]*(.*)$", re.MULTILINE
)
_LIST_LINE = re.compile(r"^[ \t]*(?:[(（]?(\d{1,2})[)）.．、]|[(（](\d{1,2})[)）]|([①②③④⑤⑥⑦⑧⑨⑩]))[ \t]*(\S.*)$")
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"
_PARTS_MAX = 30
_LABEL = re.compile(r"^(?:(?i:part)\s*\w\s*[:：]|[a-z]\s*[:：])\s*")


def _part_number(arabic: str | None, circled: str | None) -> int:
    return int(arabic) if arabic else _CIRCLED.index(circled or "①") + 1


def _listed_after(text: str, start: int) -> str | None:
    """``Final answer:\\n(1) 3\\n(2) 5`` → ``3;5``: numbered lines right after a keyword."""
    lines = text[start : start + _TAIL_MAX].lstrip(" \t:：*").split("\n")
    while lines and not lines[0].strip():
        lines = lines[1:]
    answers: list[str] = []
    for line in lines[:_PARTS_MAX]:
        if not line.strip():
            if answers:
                break
            continue
        m = _LIST_LINE.match(line)
        if m is None or _part_number(m.group(1) or m.group(2), m.group(3)) != len(answers) + 1:
            break
        answers.append(isolate(_LABEL.sub("", m.group(4).strip())))
    return ";".join(answers) if len(answers) >= 2 and all(answers) else None


def _part_answer(part: str) -> str:
    found = _keyword_answer(part, parts=1)
    if found is not None:
        return found[0]
    pieces = blanks(part) if len(part) <= 400 else []
    if len(pieces) > 1:
        return ";".join(isolate(b.text) for b in pieces)
    return _last_sentence(part)


def _numbered_parts(body: str) -> list[str] | None:
    """One answer per numbered part when the reply answers (1), (2), … on lines of their own."""
    starts: list[re.Match[str]] = []
    for m in _PART_LINE.finditer(body):
        if _part_number(m.group(1), m.group(2)) == len(starts) + 1:
            starts.append(m)
            if len(starts) > _PARTS_MAX:
                return None
    if len(starts) < 2:
        return None
    answers: list[str] = []
    for k, m in enumerate(starts):
        stop = starts[k + 1].start() if k + 1 < len(starts) else len(body)
        answer = _part_answer(body[m.start(3) : stop].strip())
        if not answer:
            return None
        answers.append(answer)
    return answers


def _keyword_answer(body: str, *, parts: int | None = None, tiers: int = 3) -> tuple[str, str] | None:
    """The answer after (or before) a keyword. ``parts``: blanks the reference has (None: unknown) — with
    several, an answer keyword followed by all of them is read first, then a reply answering numbered
    parts line by line is read part by part, before any other keyword."""
    if parts is not None and parts > 1:
        found = _scan(body, parts, min(tiers, 2), need=parts)
        if found is not None:
            return found
    numbered = None if parts == 1 else _numbered_parts(body)
    if numbered is not None and parts is not None:
        return ";".join(numbered), f"{len(numbered)} numbered parts"
    return _scan(body, parts, tiers, numbered=numbered)


def _keywords(body: str, tier: re.Pattern[str]) -> list[re.Match[str]]:
    """The last few matches of a keyword tier, last first (one pass, bounded memory)."""
    matches: list[re.Match[str]] = []
    for m in tier.finditer(body):
        matches.append(m)
        if len(matches) > 2 * _KEYWORDS_TRIED:
            del matches[:_KEYWORDS_TRIED]
    return matches[-_KEYWORDS_TRIED:][::-1]


def _scan(
    body: str, parts: int | None, tiers: int, *, need: int | None = None, numbered: list[str] | None = None
) -> tuple[str, str] | None:
    for rank, tier in enumerate(_TIERS[:tiers]):
        if numbered is not None and rank == 1:
            return ";".join(numbered), f"{len(numbered)} numbered parts"
        for m in _keywords(body, tier):
            if need is None and rank < 2 and m.group(0).lower().endswith(("answer", "result")):
                before = _IS_THE.search(body[max(0, m.start() - 40) : m.start()])
                if before is not None:
                    head = _before(body, m.start() - len(before.group(0)))
                    if head and has_math(head):
                        return head, f'"… {" ".join(before.group(0).split())} {m.group(0)}"'
            listed = _listed_after(body, m.end()) if rank == 0 and need is None else None
            if listed:
                return listed, f'keyword "{m.group(0)}", numbered lines'
            tail = _tail_after(body, m.end(), parts)
            if _LINE_MARKER.match(m.group(0)) and len(tail) > _MARKER_TAIL:
                continue
            if need is not None:
                if tail and len(blanks(tail)) >= need:
                    return tail, f'keyword "{m.group(0)}"'
            elif tail and (has_math(tail) or (rank < 2 and len(tail) <= 200)):
                return tail, f'keyword "{m.group(0)}"'
    return None


# Closing courtesies after an answer: "I hope this helps!", "Let me know if you have any other questions."
_COURTESY = re.compile(
    r"^(?:I\s+hope|Hope\s+this|Let\s+me\s+know|Please\s+let\s+me\s+know|Is\s+there\s+anything|Do\s+you\s+have|"
    r"Feel\s+free|If\s+you\s+have|Thank|希望|如有|如果还有)|\?\s*$|？\s*$",
    re.IGNORECASE,
)


def _last_sentence(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines()[-20:] if line.strip()]
    pieces: list[str] = []
    while lines and not pieces:
        last = lines.pop()[-_TAIL_MAX:]
        pieces = [p.strip() for p in _SENTENCE_END.split(last) if p and p.strip(" 。.!！")]
        while len(pieces) > 1 and _COURTESY.search(pieces[-1]):
            pieces.pop()
        if lines and pieces and all(_COURTESY.search(p) for p in pieces):
            pieces = []
    if not pieces:
        return ""
    return isolate(pieces[-1].rstrip("。.!！ "))


def _last_paragraph(body: str, parts: int) -> str | None:
    """For several blanks: the last paragraph, when it holds about as many blanks as the reference."""
    tail = body.rstrip()[-3000:]
    cut = tail.rfind("\n\n")
    para = tail[cut + 2 :].strip() if cut >= 0 else tail.strip()
    if not para or (cut < 0 and len(body.rstrip()) > 3000):
        return None
    count = len(blanks(para))
    return para.rstrip("。.") if count == parts else None


_CALCULATOR = re.compile(r"<<[^<>\n]{0,200}>>")
# A computation ending in its value: "9*60 = 540 meters a week", "€1500 - €1423 = €77 left", "1/2*20 = 10".
_COMPUTED = re.compile(
    r"(?<![\w^_.{}\\])[$€£¥￥(]*\d[\d.,]*%?\)*(?:(?:[ \t]*[-+*/×÷][ \t]*|[ \t]+[xX][ \t]+)[$€£¥￥(]*\d[\d.,]*%?\)*)+"
    r"[ \t]*=[ \t]*[$€£¥￥]?[ \t]*(?P<value>[-+]?\d[\d,]*(?:\.\d+)?(?:[ \t]*/[ \t]*\d+)?)(?P<rest>[^=\n]*)$"
)
# A unit right after the value, and nothing after it but punctuation: "= 540 meters." keeps "meters".
_REST_UNIT = re.compile(r"[ \t]*(?P<unit>%|°|[A-Za-z]{1,12}|[\u4e00-\u9fff]{1,3})[ \t]*[.。!！]?[ \t]*$")


def _final_value(answer: str, how: str, parts: int | None) -> tuple[str, str]:
    """The value of a final ``= value`` (``So he runs 9*60=540 meters a week`` → ``540 meters``): what a
    computation ends in is its answer; a unit ending the clause is kept, other words are not."""
    if (parts is not None and parts > 1) or "=" not in answer or len(answer) > 400:
        return answer, how
    m = _COMPUTED.search(answer, max(0, answer.rfind("\n")))
    if m is None or _COMPUTED_TAIL.search(m.group("rest")):
        return answer, how
    value = m.group("value").replace(",", "")
    unit = _REST_UNIT.match(m.group("rest"))
    if unit is not None:
        value = f"{value} {unit.group('unit')}"
    return value, f"{how}, the value of its final «= {m.group('value')}»"


# What may not follow a computed value for it to be the answer: more math.
_COMPUTED_TAIL = re.compile(r"[\d=+*/^\\]")


def extract_math_answer(text: str | None, parts: int | None = None) -> tuple[str, str]:
    """The final answer of a reply and how it was found. ``("", "empty reply")`` when there is nothing.

    ``parts``: how many blanks the reference has, when known. A reply that answers numbered parts on
    lines of their own (``(1) … (2) …``) is read part by part when the reference has several blanks (or
    when unknown and no "final answer" is given), never for a one-blank reference.
    """
    if not text or not text.strip():
        return "", "empty reply"
    raw, cut = reply_text(text)
    if "<<" in raw:
        raw = _CALCULATOR.sub("", raw)  # GSM8K's calculator notes: "9*60=<<9*60=540>>540" is "9*60=540"
    body = after_retraction(raw.replace("**", ""))  # "答案是 3。不对，应该是 4。": only the correction counts
    boxed = _final_boxes(body, parts)
    if boxed is not None:
        answer, how, end = boxed
        after = body[end:]
        later = _keyword_answer(after, parts=1, tiers=2) if len(after.strip()) > 8 else None
        if later is not None and _COMMITTED.search(later[0]):
            return later[0], f"{later[1]} after the last \\boxed{{}}"
        return answer, how
    found = _keyword_answer(body, parts=parts)
    if found is not None:
        return _final_value(found[0], found[1], parts)
    if parts is not None and parts > 1:
        para = _last_paragraph(body, parts)
        if para is not None:
            return para, "last paragraph"
        # A reply that is a short line per blank ("3\n5"): the last sentence of each.
        lines = [line.strip() for line in body.strip().splitlines()[-parts:] if line.strip()]
        if len(lines) == parts and all(len(line) <= 60 for line in lines):
            answers = [_last_sentence(line) for line in lines]
            if all(answers):
                return ";".join(answers), f"last {parts} lines"
    last = _last_sentence(body)
    if last:
        return _final_value(last, "last sentence", parts)
    if cut:
        return "", "the reply ends inside its <think> reasoning (never closed), so it gives no final answer"
    return "", "nothing is left once the <think> reasoning is removed"
