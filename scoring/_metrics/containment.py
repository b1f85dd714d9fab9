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
from scoring._metrics.extract.retraction import after_retraction
from scoring._metrics.normalize import END_TOKEN, normalize_text

__all__ = ["MAX_CONTAINED_CJK", "MAX_CONTAINED_WORDS", "Contained", "contained_answer", "is_short_answer"]

#: Longest reference (CJK characters / words) looked for inside a reply.
MAX_CONTAINED_CJK = 16
MAX_CONTAINED_WORDS = 6

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# Sentence ends (the reply's final sentence) and clause breaks (the scope of a negation or a list).
# A full stop after an initial or a title ends no sentence: "Dr. B. R. Ambedkar is…" is one.
_NOT_AN_END = r"(?<![^A-Za-z][A-Z])(?<!^[A-Z])(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)(?<!\bJr)(?<!\bSr)(?<!\bvs)"
_SENTENCES = re.compile(r"[。！？!?\n]+|" + _NOT_AN_END + r"[.](?=\s|$)|[;；](?=\s|$)")
_CLAUSES = re.compile(r"[，,：:。！？!?\n]|" + _NOT_AN_END + r"[.](?=\s|$)")
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


def _first_sentence(body: str) -> str:
    """The reply's first sentence when the reply has more than one, else "" (the final sentence is it)."""
    text = body.strip()
    start = 0
    for m in _SENTENCES.finditer(text):
        piece = text[start : m.start()]
        if normalize_text(piece):
            rest = text[m.end() :]
            return piece if normalize_text(rest) and not m.group(0).startswith(("?", "？")) else ""
        start = m.end()
    return ""


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
    first = _first_sentence(after_retraction(body))  # "答案是北京。不对，应该是上海。": 北京 was withdrawn
    if first and first != sentence:
        out.append(("first sentence", first))
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
# Chinese verbs that state what follows them: "释放氧气", "扮演了哈利", "赢得了冠军" (more than one character, so a
# word ending in one of them is rare; 是/为 stand in _BEFORE).
_VERB_BEFORE_ZH = re.compile(
    r"(?:释放|放出|产生|生成|排出|吸收|扮演|饰演|赢得|获得|夺得|荣获|属于|来自|位于|叫做|称为|名为|等于|发明|发现|"
    r"创作|建立|成立|定都|首都|出自|写出|写下|主演|导演|担任|作者|作品|代表|是指|指的是)了?$"
)
_ROLE_BEFORE = re.compile(r"(?:诗人|词人|作家|作者|导演|画家|学家|歌手|演员|皇帝|国王|总统|主席|将军|大师)$")
_WORK_AFTER = re.compile(
    r"(?:创作|所作|所写|写的|写了|写于|著|执导|主演|演唱|提出|发明|发现|创立|建立|编写|撰写|作曲|作词|的作品|的诗)"
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
    ok_before = ok_before or _VERB_BEFORE_ZH.search(text, max(0, start - 4), start) is not None
    ok_after = not after or not (after.isalnum()) or after in _AFTER or text.startswith(("类型", "类别"), end)
    if not (ok_before and ok_after) and _named_person(text, start, end):
        return True
    # a Latin letter or digit next to a Chinese answer ("北京2号线") also extends it
    return ok_before and ok_after


# Examples named before the answer, and the answer as an item of a comma list ("A, B, and C", "A, B or C").
_EXAMPLES = re.compile(
    r"(?i:\bsuch\s+as\b|\bincluding\b|\blike\b|\be\.g\.|\bfor\s+(?:example|instance)\b)|例如|比如|包括|诸如|像是"
)
# What the sentence says after a contrast is its answer: "Paris is the most visited city, but the capital is
# Lyon" does not answer Paris; a concession ("although Paris is bigger", "虽然北京更大") grants, it answers nothing.
_CONTRAST_AFTER = re.compile(r"(?i:\bbut\b|\bhowever\b|\bwhereas\b|\binstead\b)|但是|但|而是|然而|不过")
_CONCESSIVE = re.compile(r"(?i:\balthough\b|\bthough\b|\bwhile\b|\bwhereas\b|\bdespite\b)|虽然|尽管|即使|虽")
_COMMA_LIST = re.compile(r"(?i:,\s*(?:and|or)\s|\s(?:and|or)\s)")
_COMMA_BEFORE = re.compile(r",\s*$")
# A comma after the answer opens another item, not an apposition ("Sophocles, who was born…", "Donald Trump, at
# age 70, was…").
_COMMA_AFTER = re.compile(
    r"\s*,(?!\s*(?i:who|which|whose|where|when|while|at|in|on|from|the|a|an|his|her|its|their|with|born|aged?|"
    r"was|is|were|are|has|had)\b)"
)


def _committed(text: str, start: int, end: int) -> bool:
    before, after = _clause(text, start, end)
    before = _CONTRAST.split(before)[-1]  # "it is not Paris but Lyon": the negation is of what came before "but"
    near = _NOT_NEGATIONS.sub("", before[-8:])[-4:]
    if _NEGATION_ZH.search(near) or after.startswith(("不", "并非", "并不", "非")):
        return False  # 不是北京 / 北京不是
    if _NEGATION_EN.search(before[-30:]) or _NEGATED_AFTER_EN.match(after):
        return False  # not Paris / Paris is not / Paris isn't / Paris was never
    if _NEGATION_AFTER_ZH.match(after):
        return False  # 李白没写过 / 李白从未
    if _OTHERS_BELIEF.search(before):
        return False  # 很多人以为是北京 / 误认为是北京 / many say Paris: what others think, not the answer
    if _JOINER_BEFORE.search(before) or _JOINER_AFTER.match(after):
        return False  # 北京或上海 / 上海、北京 / Paris or Lyon
    if _EXAMPLES.search(text, 0, start) is not None:
        return False  # "products such as coffee, nuts and pineapple": examples, not the answer
    if _CONTRAST_AFTER.search(text, end) is not None or _CONCESSIVE.search(_CONTRAST.split(text[:start])[-1]):
        return False  # "Paris is the most visited city, but the capital is Lyon" / "…, although Paris is bigger"
    if _COMMA_LIST.search(text) is not None and (_COMMA_BEFORE.search(text, 0, start) or _COMMA_AFTER.match(text, end)):
        return False  # "the Braves, the Giants, and the Reds": one of a list
    return _HEDGE.search(before) is None  # 可能是北京 / maybe Paris


_DASHES = str.maketrans(dict.fromkeys("–—−‐‑", "-"))  # "10–12 years" = "10-12 years"
_EDGE_PUNCT = "。.!！?？,，;；:：\"'“”「」《》()（）[]【】"
_CJK_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def _listed(text: str, answer: str) -> bool:
    """``[类别] 婚姻家庭 劳动纠纷 交通事故…``: the answer is one of three or more words set side by side."""
    tokens = text.split()
    return len(tokens) >= 3 and sum(1 for t in tokens if _CJK_TOKEN.fullmatch(t)) >= 3 and answer in tokens


# A verb that states the answer in the reply's first sentence: "The $500 bill features William McKinley",
# "Jim Brown has the most yards", "《静夜思》是李白的作品", "释放氧气".
_STATES_EN = re.compile(
    r"(?i)\b(?:is|are|was|were|be|been|'s|features?|featured|won|wins|played|plays|wrote|written|directed|sang|sung|"
    r"composed|invented|discovered|founded|became|becomes|holds|held|has|had|starts?|started|began|begins|"
    r"premiered|appears?|appeared|located|lies|called|named|known|created|built|led|leads|owns|owned|died|born|"
    r"released|married|scored|replaced|portrayed|voiced|stars?|starred|produced|painted|designed|built)\b"
)
_STATES_ZH = re.compile(r"是|为|写|叫|有|在|" + _VERB_BEFORE_ZH.pattern.removesuffix(")了?$").removeprefix("(?:"))


def _states(scope: str) -> bool:
    return _STATES_EN.search(scope) is not None or _STATES_ZH.search(scope) is not None


# A sentence that names something in passing, after the reply has answered: "Paris is a big city too."
_IN_PASSING = re.compile(r"(?i:\b(?:too|as\s+well|also)\b)|也|同样")


def _echoed(text: str, start: int, end: int, question: str, cjk: bool) -> bool:
    """The occurrence is part of words copied from the question ("…east of the Jordan River" asked about "the
    Jordan River"): the answer with a word (two characters in Chinese) on either side stands in the question."""
    if not question:
        return False
    if cjk:
        around = (text[max(0, start - 2) : end], text[start : end + 2])
        return any(len(span) > end - start and span in question for span in around)
    left = re.search(r"(\w+)\W*$", text[:start])
    right = re.match(r"\W*(\w+)", text[end:])
    spans: list[str] = []
    if left is not None:
        spans.append(text[left.start() : end])
    if right is not None:
        spans.append(text[start : end + right.end()])
    return any(" ".join(span.split()) in question for span in spans)


def _find(scope: str, answer: str, question: str = "", first: bool = False, final: bool = False) -> bool:
    """Whether ``answer`` stands in ``scope`` as a whole, committed answer (at any of its occurrences); in the
    reply's first sentence, only where the sentence states it (a copula or a stating verb) and not in words
    copied from the question."""
    # NFKC alone (not nfkc's sign map): 、 stays, so "北京、上海" is still a list
    text = unicodedata.normalize("NFKC", scope).casefold().translate(_DASHES)
    wanted = unicodedata.normalize("NFKC", answer).strip().casefold().strip(_EDGE_PUNCT).translate(_DASHES)
    if not wanted:
        return False
    cjk = bool(_CJK.search(wanted))
    if cjk and _listed(text, wanted):
        return False
    if first and not _states(text):
        return False

    asked = " ".join(unicodedata.normalize("NFKC", str(question)).casefold().split())
    pos = text.find(wanted)
    while pos >= 0:
        end = pos + len(wanted)
        stands = _bounded(text, pos, end, cjk) and _committed(text, pos, end)
        if stands and final and _IN_PASSING.search(_clause(text, pos, end)[1]) is not None:
            stands = False  # "The capital is Lyon. Paris is a big city too.": named in passing, after the answer
        stated = not first or (not _negated_sentence(text, pos) and _answers_the_question(text, pos, end, asked, cjk))
        if stands and stated and not _echoed(text, pos, end, asked, cjk):
            return True
        pos = text.find(wanted, pos + 1)
    return False


_CONTENT_WORD = re.compile(r"[a-z][a-z'-]{3,}")
_FUNCTION_WORDS = frozenset(
    [
        "what",
        "which",
        "where",
        "when",
        "who",
        "whom",
        "whose",
        "that",
        "this",
        "these",
        "those",
        "there",
        "their",
        "they",
        "them",
        "with",
        "from",
        "into",
        "have",
        "has",
        "does",
        "did",
        "been",
        "being",
        "were",
        "was",
        "about",
        "most",
        "many",
        "much",
        "some",
        "than",
        "then",
        "also",
        "only",
        "just",
        "very",
    ]
)


def _answers_the_question(text: str, start: int, end: int, question: str, cjk: bool) -> bool:
    """In the first sentence, the answer is stated: after its verb ("features the portrait of William
    McKinley", "是唐代诗人李白"), or as the subject of a clause that says what was asked ("Jim Brown has the most
    yards per carry", asked "who has the most yards per carry"); "Paris has many museums, and Lyon is the
    capital" does not answer Paris."""
    if _STATES_EN.search(text, 0, start) is not None or _STATES_ZH.search(text, 0, start) is not None:
        return True
    right = _CLAUSES.search(text, end)
    rest = text[end : right.start() if right is not None else len(text)]
    if not question:
        return False
    if cjk or _CJK.search(rest):
        return any(rest[k : k + 2] in question for k in range(len(rest) - 1) if _CJK.match(rest[k]))
    words = {w for w in _CONTENT_WORD.findall(rest)} - _FUNCTION_WORDS
    return any(re.search(r"\b" + re.escape(w[:5]), question) for w in words)


_WRONG = re.compile(r"(?i:\b(?:wrong|incorrect|false|mistaken)\b)|错误|不正确|错的")


def _negated_sentence(text: str, start: int) -> bool:
    """A first sentence that negates anything before the answer, or anywhere after it ("Paris, Texas is not
    it"), with no contrast ("but", "而是") between the negation and the answer: it states no answer."""
    before = _CONTRAST.split(text[:start])[-1]
    after = text[start:]
    if _WRONG.search(before) is not None:
        return True  # "The wrong answer would be Paris; the right one is Lyon."
    found = _NEGATION_EN.search(before) or _NEGATION_EN.search(after)
    return bool(found or _NEGATION_ZH.search(_NOT_NEGATIONS.sub("", before + after)))


def _accepted_list(scope: str, answers: list[str]) -> str | None:
    """``written by Bobby Scott and Bob Russell`` when both are accepted answers: a list made only of accepted
    answers commits to them (the first is returned); a list holding anything else does not."""
    text = unicodedata.normalize("NFKC", scope).casefold()
    marked = text
    for answer in sorted(answers, key=len, reverse=True):
        wanted = unicodedata.normalize("NFKC", answer).strip().casefold().strip(_EDGE_PUNCT)
        if wanted:
            marked = re.sub(r"(?<!\w)" + re.escape(wanted) + r"(?!\w)", "\x00", marked)
    m = _ALL_ACCEPTED.search(marked)
    if m is None or _JOINER_AFTER.match(marked, m.end()) or _JOINER_BEFORE.search(marked, 0, m.start()):
        return None
    if _COMMA_AFTER.match(marked, m.end()) or _COMMA_BEFORE.search(marked, 0, m.start()):
        return None
    before = marked[: m.start()]
    if _EXAMPLES.search(before) is not None:
        return None  # "agricultural products, such as coffee, macadamia nuts, and pineapple": examples
    if _NEGATION_EN.search(before[-30:]) or _HEDGE.search(before) or _NEGATION_ZH.search(before[-4:]):
        return None
    return answers[0]


_ALL_ACCEPTED = re.compile(r"\x00(?:\s*(?:,\s*and\s+|,\s*|\band\s+|&\s*|、|和|与|及|以及)\s*\x00)+")


def contained_answer(body: str, answers: list[str], question: str | None = None) -> Contained | None:
    """The first short accepted answer that stands as a whole, committed answer in the reply's marked
    answer, final sentence or stating first sentence (``body``: the reply with its reasoning dropped); None
    otherwise."""
    if "<" in body and END_TOKEN.search(body) is not None:
        head = END_TOKEN.split(body, maxsplit=1)[0]
        body = head if normalize_text(head) else END_TOKEN.sub("\n", body)
    short = [a for a in answers if is_short_answer(a)]
    if not short:
        return None
    scopes = _scopes(body)
    for where, scope in scopes:
        for answer in short:
            if _find(scope, answer, question or "", where == "first sentence", where == "final sentence"):
                return Contained(answer, where, " ".join(scope.split())[:80])
    if len(short) > 1:
        for where, scope in scopes:
            if where != "first sentence" or _states(scope):
                listed = _accepted_list(scope, short)
                if listed is not None:
                    return Contained(listed, f"{where} (a list of accepted answers only)", " ".join(scope.split())[:80])
    return None
