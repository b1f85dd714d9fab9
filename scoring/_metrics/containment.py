"""Containment (docs/pages/scoring.md, "exact"): a short reference found as a whole answer in the reply's answer.

``中国的首都是哪里？`` answered ``中国的首都是北京。`` holds the reference ``北京`` as its answer, though the
reply is not the reference. The Chinese QA post-processors of OpenCompass and EvalScope look for the
reference in the reply; this rule does too, but only where an answer stands and only where it would not lie:

- **where**: the reply's marked answer (``答案：…``, ``The answer is …``, ``\\boxed{…}``, a final bold span),
  else a labelled answer line (``类别：交通事故``, a label of a few words and a short value) and its final
  sentence (end tokens such as ``<eoa>`` cut the reply first);
- **a whole answer**: the reference must not be part of a longer, different word — ``水`` is not in ``水银``,
  ``诈骗`` not in ``合同诈骗``, ``Paris`` not in ``Parisian``. Chinese has no spaces, so a Chinese reference
  is bounded on each side by a non-CJK character (punctuation, a space, the end), by a word that introduces
  an answer (``是``, ``为``, ``在``, ``于``…), or by a particle after it (``了``, ``吧``…, and ``罪`` for a
  charge: ``盗窃罪`` = ``盗窃``);
- **committed**: not negated in its clause (``不是北京``, ``北京不是``, ``not Paris``), and not one of several
  candidates (``北京或上海``, ``北京、上海``, ``盗窃;诈骗``, ``婚姻家庭 劳动纠纷 交通事故``, ``Paris or Lyon``).

A match says where it was found, so the analysis can name the rule and the sentence that decided.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from scoring._metrics.extract.marked import marked_answer
from scoring._metrics.normalize import END_TOKEN, normalize_text

__all__ = ["MAX_CONTAINED_CJK", "MAX_CONTAINED_WORDS", "Contained", "contained_answer", "is_short_answer"]

#: Longest reference (CJK characters / words) looked for inside a reply.
MAX_CONTAINED_CJK = 16
MAX_CONTAINED_WORDS = 6

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# Sentence ends (the reply's final sentence) and clause breaks (the scope of a negation or a list).
_SENTENCES = re.compile(r"[。！？!?\n]+|[.;；](?=\s|$)")
_CLAUSES = re.compile(r"[，,：:。！？!?\n]|[.](?=\s|$)")
# Characters that may stand right before a Chinese answer: copulas and prepositions that introduce it.
_BEFORE = frozenset("是为在于即叫称成选属到作犯乃系")
# Characters that may follow it: particles, and 罪 (a charge is named with or without it: 盗窃 = 盗窃罪).
# Place suffixes are not among them: 吉林市 is not the province 吉林, so 北京市 is not taken for 北京 either.
_AFTER = frozenset("了的吧呢啊嘛呀哦哈啦罪")
_NEGATION_ZH = re.compile(r"不|非|没|无|未")
# Words holding a negation character that negate nothing: 无疑是北京, 非常明确是北京.
_NOT_NEGATIONS = re.compile(r"无疑|毫无疑问|非常|无论|未来|并非不")
_NEGATION_EN = re.compile(
    r"(?i)\b(?:not|never|no|isn't|aren't|wasn't|weren't|nor|neither|instead\s+of|rather\s+than)\b"
)
# A candidate among others: a joiner right before or after the answer, or a hedge earlier in the clause.
_JOINER_BEFORE = re.compile(r"(?:或者|或|还是|、|和|与|及|以及|/|[;；]|(?i:\bor|\band|\beither|\bvs\.?))\s*$")
_JOINER_AFTER = re.compile(r"\s*(?:或者|或|还是|、|和|与|及|以及|/|[;；]|(?i:or\b|and\b|vs\b))")
_HEDGE = re.compile(
    r"可能|也许|或许|大概|不确定|如果|假如|假设|要是|若是|(?i:\b(?:maybe|perhaps|possibly|probably|might|either|if|unless)\b)"
)
_NEGATED_AFTER_EN = re.compile(
    r"(?i)\s*(?:(?:is|was|are|were)(?:\s+not|n't|\s+never)|\s*never|\s*(?:does|did)(?:\s+not|n't))\b"
)
_NEGATION_AFTER_ZH = re.compile(r"没|未|从未|从没|并未")
_CONTRAST = re.compile(r"但是|但|其实|实际上|不过|而是|(?i:\b(?:but|actually|in\s+fact|however)\b)")
# Someone else's (mistaken) belief: 以为 says the belief is wrong; 认为 alone ("我认为是北京") commits.
_OTHERS_BELIEF = re.compile(
    r"以为|误认|误以为|误将|错认|(?i:\b(?:many|some|others|people|most)\s+(?:people\s+)?"
    r"(?:say|think|believe|assume|claim)|\bmistaken(?:ly)?\b|\bcommonly\s+(?:thought|believed))"
)


@dataclass(frozen=True)
class Contained:
    """The accepted answer found, and the sentence (or marked answer) it was found in."""

    answer: str
    where: str
    scope: str


def is_short_answer(text: str) -> bool:
    """A reference short enough to be looked for inside a reply: up to 16 CJK characters or 6 words."""
    key = normalize_text(text)
    if not key:
        return False
    cjk = len(_CJK.findall(key))
    if cjk:
        return cjk <= MAX_CONTAINED_CJK and len(key) <= 2 * MAX_CONTAINED_CJK
    return len(key.split()) <= MAX_CONTAINED_WORDS


def _final_sentence(body: str) -> str:
    """The reply's last sentence, or "" when it is a question ("Is it Paris?", "难道是北京？"): a question
    commits to nothing."""
    text = body.strip()
    start, end = 0, len(text)
    for m in reversed(list(_SENTENCES.finditer(text))):
        if normalize_text(text[m.end() : end]):
            start = m.end()
            break
        end = m.start()
    piece = text[start:end]
    return "" if not normalize_text(piece) or _ASKS.match(text, end) else piece


_ASKS = re.compile(r"[ \t]*[?？]")


# A labelled answer line: "类别：交通事故", "[罪名]盗窃", "Capital: Paris" (a label of a few words, a short value).
_LABEL_LINE = re.compile(
    r"^[ \t]*[\[【]?(?:[\u3400-\u9fff]{1,6}|[A-Za-z]{1,12})[\]】]?[ \t]*[:：\]】][ \t]*(?P<value>[^\n]{1,24})$", re.M
)


def _scopes(body: str) -> list[tuple[str, str]]:
    """Where an answer stands: the marked answer, else a labelled answer line and the final sentence."""
    marked = marked_answer(body)
    if marked is not None:
        return [("marked answer", marked.text)]
    out: list[tuple[str, str]] = []
    label = _LABEL_LINE.search(body)
    if label is not None and normalize_text(label.group("value")):
        out.append(("labelled answer line", label.group(0).strip()))
    sentence = _final_sentence(body)
    if sentence:
        out.append(("final sentence", sentence))
    return out


def _clause(text: str, start: int, end: int) -> tuple[str, str]:
    """The clause around ``text[start:end]``: the part before and the part after, within clause breaks."""
    left = text.rfind("\n", 0, start)
    for m in _CLAUSES.finditer(text, 0, start):
        left = max(left, m.end() - 1)
    right_m = _CLAUSES.search(text, end)
    right = right_m.start() if right_m is not None else len(text)
    return text[left + 1 : start], text[end:right]


# A person named in a descriptive sentence: after the role that names them, before what they made
# ("《静夜思》是唐代诗人李白创作的" holds 李白): both sides must say so.
_ROLE_BEFORE = re.compile(r"(?:诗人|词人|作家|作者|导演|画家|学家|歌手|演员|皇帝|国王|总统|主席|将军|大师)$")
_WORK_AFTER = re.compile(
    r"(?:创作|所作|所写|写的|写了|写于|著|执导|主演|演唱|提出|发明|发现|创立|建立|编写|撰写|作曲|作词)"
)


def _named_person(text: str, start: int, end: int) -> bool:
    return _ROLE_BEFORE.search(text, max(0, start - 3), start) is not None and _WORK_AFTER.match(text, end) is not None


def _bounded(text: str, start: int, end: int, cjk: bool) -> bool:
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    if not cjk:
        # "水的化学式是H2O": a Chinese character next to a Latin answer bounds it as it bounds a Chinese one
        ok_before = not before.isalnum() or (_CJK.match(before) is not None and before in _BEFORE)
        ok_after = not after.isalnum() or (_CJK.match(after) is not None and after in _AFTER)
        return ok_before and ok_after
    ok_before = not before or not (before.isalnum()) or before in _BEFORE
    ok_after = not after or not (after.isalnum()) or after in _AFTER or text.startswith(("类型", "类别"), end)
    if not (ok_before and ok_after) and _named_person(text, start, end):
        return True
    # a Latin letter or digit next to a Chinese answer ("北京2号线") also extends it
    return ok_before and ok_after


def _committed(text: str, start: int, end: int) -> bool:
    before, after = _clause(text, start, end)
    near = _NOT_NEGATIONS.sub("", before[-8:])[-4:]
    if _NEGATION_ZH.search(near) or after.startswith(("不", "并非", "并不", "非")):
        return False  # 不是北京 / 北京不是
    if _NEGATION_EN.search(before[-30:]) or _NEGATED_AFTER_EN.match(after):
        return False  # not Paris / Paris is not / Paris isn't / Paris was never
    if _NEGATION_AFTER_ZH.match(after):
        return False  # 李白没写过 / 李白从未
    if _OTHERS_BELIEF.search(_CONTRAST.split(before)[-1]):
        return False  # 很多人以为是北京 / 误认为是北京 / many say Paris: what others think, not the answer
    if _JOINER_BEFORE.search(before) or _JOINER_AFTER.match(after):
        return False  # 北京或上海 / 上海、北京 / Paris or Lyon
    return _HEDGE.search(before) is None  # 可能是北京 / maybe Paris


_EDGE_PUNCT = "。.!！?？,，;；:：\"'“”「」《》()（）[]【】"
_CJK_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def _listed(text: str, answer: str) -> bool:
    """``[类别] 婚姻家庭 劳动纠纷 交通事故…``: the answer is one of three or more words set side by side."""
    tokens = text.split()
    return len(tokens) >= 3 and sum(1 for t in tokens if _CJK_TOKEN.fullmatch(t)) >= 3 and answer in tokens


def _find(scope: str, answer: str) -> bool:
    """Whether ``answer`` stands in ``scope`` as a whole, committed answer (at any of its occurrences)."""
    # NFKC alone (not nfkc's sign map): 、 stays, so "北京、上海" is still a list
    text = unicodedata.normalize("NFKC", scope).casefold()
    wanted = unicodedata.normalize("NFKC", answer).strip().casefold().strip(_EDGE_PUNCT)
    if not wanted:
        return False
    cjk = bool(_CJK.search(wanted))
    if cjk and _listed(text, wanted):
        return False
    pos = text.find(wanted)
    while pos >= 0:
        end = pos + len(wanted)
        if _bounded(text, pos, end, cjk) and _committed(text, pos, end):
            return True
        pos = text.find(wanted, pos + 1)
    return False


def contained_answer(body: str, answers: list[str]) -> Contained | None:
    """The first short accepted answer that stands as a whole, committed answer in the reply's marked
    answer or final sentence (``body``: the reply with its reasoning dropped); None otherwise."""
    if "<" in body and END_TOKEN.search(body) is not None:
        head = END_TOKEN.split(body, maxsplit=1)[0]
        body = head if normalize_text(head) else END_TOKEN.sub("\n", body)
    short = [a for a in answers if is_short_answer(a)]
    if not short:
        return None
    for where, scope in _scopes(body):
        for answer in short:
            if _find(scope, answer):
                return Contained(answer, where, " ".join(scope.split())[:80])
    return None
