"""The exact metric: normalised exact match against every accepted answer; numbers compare as numbers."""

from __future__ import annotations

import re

import orjson

from scoring._metrics.base import Item, ItemScore
from scoring._metrics.containment import contained_answer
from scoring._metrics.dates import as_iso_date, with_iso_dates
from scoring._metrics.extract.choice import extract_yes_no, parse_yes_no
from scoring._metrics.extract.marked import marked_answer, sentence_of
from scoring._metrics.extract.numeric import extract_number, reference_number
from scoring._metrics.extract.retraction import after_retraction
from scoring._metrics.extract.zh_numbers import arabic_numerals
from scoring._metrics.math.budget import TimeLimit, budget
from scoring._metrics.math.equal import answers_equal
from scoring._metrics.math.score import ITEM_LIMIT, score_math
from scoring._metrics.math.units import split_unit
from scoring._metrics.normalize import (
    DATE_OR_RANGE,
    END_TOKEN,
    answer_form,
    nfkc,
    normalize_text,
    parse_number,
    repair_mojibake,
    reply_body,
)

__all__ = ["accepted_answers", "exact_match", "is_math_reference", "score_exact"]


def json_list(text: str) -> list[str] | None:
    """A reference written as a JSON list of strings or numbers (``["北京", "Beijing"]``), as strings; None
    when it is not one."""
    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if isinstance(data, list) and data and all(isinstance(x, str | int | float) for x in data):
        return [str(x) for x in data]
    return None


def accepted_answers(item: Item) -> list[str]:
    """The reference (a JSON list of strings counts as several answers) plus ``meta.aliases``."""
    ref = (item.reference or "").strip()
    out = json_list(ref) or []
    if not out and ref:
        out.append(ref)
    aliases = item.meta.get("aliases")
    if isinstance(aliases, list):
        out.extend(str(a) for a in aliases)
    return [repair_mojibake(a) for a in out]  # "2.45Â\xa0billion" in a scraped reference is "2.45 billion"


def _candidates(content: str) -> list[str]:
    """What a reply could be answering with: all of it, its marked answer (the last, not rejected or
    withdrawn: see ``marked_answer``), its first and its last line."""
    body = reply_body(content)[0].replace("**", "")
    out = [body]
    body = after_retraction(body)  # "答案是北京。不对，应该是上海。": what came before the correction is no answer
    marked = marked_answer(body)
    if marked is not None:
        out.append(marked.text)  # "答案：北京。因为它是首都" → "北京"; "答案是北京。最终答案是上海。" → "上海"
    lines = [line for line in body.strip().splitlines() if line.strip()]
    if lines:
        out.extend((lines[0], lines[-1]))
    # "百分之五十" against "50%", "答案是四" against "四个": the same candidates with their numerals in digits
    return out + [d for d in (arabic_numerals(c) for c in out[1:]) if d not in out]


def exact_match(content: str, answers: list[str]) -> str | None:
    """The accepted answer the reply matches after normalisation, or None."""
    wanted = {answer_form(a): a for a in answers if answer_form(a)}
    for candidate in _candidates(content):
        hit = wanted.get(answer_form(candidate))
        if hit is not None:
            return hit
    return None


# Excel displays large numbers as "1.23457E+11": a reference in scientific notation with three or more
# significant digits is as precise as its mantissa, and the reply's number is compared at that precision.
_SCIENTIFIC = re.compile(r"^\s*(?:####\s*)?[-+]?\d\.(\d{2,})[eE]([-+]?\d+)\s*$")


def _tolerance(reference: str, value: float) -> float:
    m = _SCIENTIFIC.match(reference.rsplit("####", 1)[-1])
    if m is not None:
        return 0.5 * 10.0 ** (int(m.group(2)) - len(m.group(1))) * (1 + 1e-9)
    return 1e-9 * max(1.0, abs(value))


def _fmt(value: float) -> str:
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


def _marked_value(content: str) -> tuple[str, float | None, str] | None:
    """The reply's marked answer (text, its plain number or None, how found), or None when it marks none."""
    body = nfkc(reply_body(content)[0])
    marked = marked_answer(body)
    if marked is None:
        return None
    text = sentence_of(marked.text).strip()
    if _CANDIDATES.search(text):
        return text, None, marked.how  # "12 或 13", "x = 2 or x = 3", "3 (or maybe 4)": no one value
    if "=" in text and parse_number(text.rsplit("=", 1)[1]) is not None:
        text = text.rsplit("=", 1)[1].strip()  # "解方程得到n=8", "x = 3": the value it names
    value = parse_number(text)
    if value is None:
        about = _ABOUT.match(text)  # "approximately 12", "约 18 元": words that do not change the value
        m = _LEADING_NUMBER.match(text, about.end() if about is not None else 0)
        if m is not None and not _LATEX_AFTER.match(text, m.end()):
            value = parse_number(m.group(1))  # "42 apples", "18元", "$18.", "1 1/2 cups"
            if value is None:
                value = parse_number(m.group(1).replace(" ", ""))
    return text, value, marked.how


_LEADING_NUMBER = re.compile(
    r"[$¥€£]?\s*([-+]?(?:\d+(?:[ \t]+|又)\d+\s*/\s*\d+|\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*/\s*\d+)?)"
    r"(?![\d.]|,\d|\s*/\s*\d)"  # "12, not 13" is 12; "1,000" and "3/4" stay whole
)
# Words before the number that do not change it: "approximately 12", "约 18 元", "a total of 7".
_ABOUT = re.compile(
    r"(?i:(?:approximately|approx\.|about|around|roughly|exactly|only|just|a[ \t]+total[ \t]+of)[ \t]+)?"
    r"(?:大约|大概是|约为|约|共计|总共|一共|共|总计|合计)?"
)
# Two values offered: "12 或 13", "12 or 13", "12 和 13", "12, 13", "x = 2 or x = 3", "3 (or maybe 4)".
_CANDIDATES = re.compile(
    r"\d[^\d\n]{0,12}?(?:[ \t(（]+(?i:or|and)[ \t]+|或者|或|还是|和|与|以及|、|，[ \t]*|,[ \t]+(?=[-+$¥]?\d))"
    r"(?:(?i:maybe|perhaps|possibly)[ \t]+|可能是?)?[^\d\n]{0,8}?[-+$¥]?\d"
)
# A number that is only the start of an expression: "2\sqrt{3}", "3^2", "1/2 + x".
_LATEX_AFTER = re.compile(r"\s*(?:[\\^_{*+]|[-/]\s*\d|[a-z]\w*\s*[=(])")


def _value_equal(text: str, reference: str) -> bool:
    """``text`` (a marked answer) and ``reference`` are the same value, as the math metric compares them."""
    try:
        with budget(ITEM_LIMIT):
            return answers_equal(text, reference).equal
    except (TimeLimit, RecursionError):
        return False


def _score_numbers(content: str, answers: list[str], numbers: list[float]) -> ItemScore:
    """A numeric reference: the marked answer's value, else the last number in the reply."""
    first = answers[0].rsplit("####", 1)[-1].strip()
    shown = first if _SCIENTIFIC.match(first) or "/" in first else _fmt(numbers[0])
    marked = _marked_value(content)
    if marked is not None:
        text, value, how = marked
        if value is not None:
            return _number_score(value, how, answers, numbers, shown)
        if _CANDIDATES.search(text):
            return ItemScore(
                0.0,
                f"exact: the marked answer «{text[:80]}» via {how} offers several values; reference «{shown}»; wrong",
                text[:200],
                matched_by="number",
            )
        if _VALUE_LIKE.search(text):
            # "答案是 \frac{1}{2}": the marked answer is a value written in LaTeX — compared by value, and it
            # wins over "the last number in the reply" (which would read «2» here).
            refs = [a.rsplit("####", 1)[-1].strip() for a in answers]
            right = any(_value_equal(text, r) for r in refs)
            verdict = "correct" if right else "wrong"
            return ItemScore(
                float(right),
                f"exact: extracted «{text[:80]}» via {how}, compared by value; reference «{shown}»; {verdict}",
                text[:200],
                matched_by="value",
            )
    value, how = extract_number(content)
    if value is None:
        return ItemScore(0.0, f"exact: {how}; reference «{_fmt(numbers[0])}»; wrong", None)
    return _number_score(value, how, answers, numbers, shown)


def _number_score(value: float, how: str, answers: list[str], numbers: list[float], shown: str) -> ItemScore:
    """The reply's number (found ``how``) against the accepted numbers, each at its reference's precision."""
    right = any(abs(value - n) <= _tolerance(a, n) for a, n in zip(answers, numbers, strict=True))
    verdict = "correct" if right else "wrong"
    return ItemScore(
        float(right),
        f"exact: extracted «{_fmt(value)}» via {how}; reference «{shown}»; {verdict}",
        _fmt(value),
        matched_by="number",
    )


#: A marked answer that is a value (a digit, LaTeX, a root, π), not words.
_VALUE_LIKE = re.compile(r"\d|\\(?:d?frac|sqrt|pi)|√|π")


def is_math_reference(reference: str) -> bool:
    """A reference written as math (LaTeX, a root, π, a power, an expression such as ``2/3π``) that is not
    a plain number: compared by value, as the math metric does, in any dataset."""
    ref = reference.strip()
    if not ref or len(ref) > 120 or reference_number(ref) is not None:
        return False
    if _CJK.search(ref) and not _STRONG_MATH.search(ref):
        return False
    if DATE_OR_RANGE.fullmatch(ref):
        return False  # "1879-03-14", "1990-2000", "2023/01/05" are words here, not 1862 or -10
    return bool(_STRONG_MATH.search(ref) or _EXPRESSION.fullmatch(ref))


_CJK = re.compile(r"[\u3400-\u9fff]")
_STRONG_MATH = re.compile(r"\\(?:d?frac|tfrac|sqrt|pi|cdot|times|infty|left|right|le|ge|neq|pm)|\$|\^|√|π|∞|[≤≥≠±]")
# "2/3", "-1/2", "3x+1", "x=5", "(1, 2)": digits and operators only, no words.
_EXPRESSION = re.compile(r"[-+]?[\d.]+\s*/\s*[\d.]+|[\dxyzabn+\-*/^().,=\s]*\d[\dxyzabn+\-*/^().,=\s]*")


def _score_math_reference(content: str, item: Item, answers: list[str]) -> ItemScore:
    """A math reference (``\\frac{1}{2}``, ``$\\frac14$``): scored by the math metric's extraction and
    equivalence (no sympy: exact stays fast), full marks only."""
    best: ItemScore | None = None
    for answer in answers:
        result = score_math(content, Item(item.question, answer, item.meta))
        if best is None or (result.score or 0.0) > (best.score or 0.0):
            best = result
        if result.score == 1.0:
            break
    assert best is not None
    analysis = best.analysis.replace("math:", "exact: compared by value as in math:", 1)
    if best.score is None:
        return ItemScore(None, analysis, best.extracted, best.settled, best.unsettled_reason, matched_by="value")
    right = best.score >= 1.0
    verdict = "" if best.score in (0.0, 1.0) else f"; exact gives full marks only: {'correct' if right else 'wrong'}"
    return ItemScore(
        float(right), analysis + verdict, best.extracted, best.settled, best.unsettled_reason, matched_by="value"
    )


def score_exact(content: str, item: Item) -> ItemScore:
    """1 or 0. A numeric reference (``42``, ``#### 42``) compares with the reply's answer number; a math
    reference (``\\frac{1}{2}``) by value; a short text answer after normalisation, else by containment."""
    answers = accepted_answers(item)
    if not answers:
        return ItemScore(None, "exact: no reference answer")
    raw = content
    if "<" in content:
        content = END_TOKEN.sub("\n", content)  # "【答案】$\\frac{1}{2}$<eoa>": the token is no part of the answer
    numeric = [(a, n) for a, n in ((a, reference_number(a)) for a in answers) if n is not None]
    if numeric and len(numeric) < len(answers):
        # Some accepted answers are numbers, some words ("12", "twelve"): the words match as text, else
        # the reply's number is compared with the numbers.
        hit = exact_match(content, answers)
        if hit is not None:
            return _matched(hit)
        words = [a for a in answers if reference_number(a) is None]
        stated = _contained(raw, item, words) if _marked_value(content) is None else None
        if stated is not None:
            return stated  # "first appears in the Season 9 premiere" against "2012 | season 9"
        answers = [a for a, _ in numeric]
    numbers = [n for _, n in numeric]
    if numbers and len(numbers) == len(answers):
        result = _score_numbers(content, answers, numbers)
        years = all(_YEAR_LIKE.fullmatch(a.strip()) for a in answers)
        if result.score == 0.0 and years and _marked_value(content) is None:
            # a year in prose: "added on July 4, 1960, when Hawaii became the 50th state" states 1960 (the last
            # number, 50, is not the answer); read as a short answer where the reply marks none
            stated = _contained(with_iso_dates(raw), item, [a.strip() for a in answers])
            if stated is not None:
                return stated
        return result
    if all(is_math_reference(a) for a in answers):
        return _score_math_reference(content, item, answers)
    isos = [iso for iso in (as_iso_date(a) for a in answers) if iso is not None]
    if isos:
        # a date compares as a date: "February 9, 1964" = "1964-02-09" = "1964年2月9日", in the reply as written
        answers = [*answers, *(iso for iso in isos if iso not in answers)]
        content, raw = with_iso_dates(content), with_iso_dates(raw)
    hit = exact_match(content, answers)
    shown = " | ".join(answers[:5])
    if hit is not None:
        return _matched(hit)
    yes_no = _yes_no_score(content, answers)
    if yes_no is not None:
        return yes_no
    qualified = _qualified_number(reply_body(content)[0], answers)
    if qualified is not None:
        return qualified
    stated = _contained(raw, item, answers)
    if stated is not None:
        return stated
    return ItemScore(
        0.0,
        f"exact: reply matches none of «{shown}» after normalisation, nor holds one as its answer "
        "(rule: containment); wrong",
        normalize_text(_candidates(content)[-1])[:200],
        matched_by="normalised match",
    )


def _yes_no_score(content: str, answers: list[str]) -> ItemScore | None:
    """A yes/no reference (``No``, ``否``, ``True``) is read as the choice metric reads it: the marker's word
    ("Therefore, the answer (Yes or No) is No."), a reply opening ``No,`` / ``不是``, a negation read as one;
    None when the reference is not yes/no."""
    values = {parse_yes_no(a) if len(a.strip()) <= 12 else None for a in answers}
    if None in values or len(values) != 1:
        return None
    (expected,) = values
    found = extract_yes_no(content)
    right = found.letters == expected
    said = f"«{found.letters}» via {found.how}" if found.found else f"no yes/no ({found.how})"
    return ItemScore(
        float(right),
        f"exact: a yes/no reference, the reply says {said}; reference «{expected}»; {'correct' if right else 'wrong'}",
        found.letters or None,
        matched_by="yes/no",
    )


#: A reference that is a year: read in prose as a short answer when the reply's last number is not it.
_YEAR_LIKE = re.compile(r"1\d{3}|20\d{2}")


def _contained(raw: str, item: Item, answers: list[str]) -> ItemScore | None:
    """Containment: an accepted answer standing, committed, in the reply's marked answer, labelled line, final
    sentence or stating first sentence (see ``containment``); None when none does."""
    if not answers:
        return None
    body = reply_body(raw)[0]
    contained = contained_answer(body, answers, item.question)  # it reads where end tokens cut the reply
    if contained is None and arabic_numerals(body) != body:
        # "成立于一九四九年" holds "1949年"
        contained = contained_answer(arabic_numerals(body), answers, item.question)
    if contained is None:
        return None
    return ItemScore(
        1.0,
        f"exact: «{contained.answer}» stands as the answer in the reply's {contained.where} "
        f"«{contained.scope}» (rule: containment); correct",
        normalize_text(contained.answer),
        matched_by="containment",
    )


# "旺季60元", "全长12米": a few words naming what is counted, then the number and its unit.
_QUALIFIED = re.compile(
    r"^(?P<words>[\u4e00-\u9fff]{1,8})[ \t:：]*(?P<number>\d+(?:\.\d+)?)[ \t]*(?P<unit>[\u4e00-\u9fff%]{0,3})$"
)
_AFTER_WORDS = re.compile(r"(?P<number>\d+(?:\.\d+)?)[ \t]*(?P<unit>[\u4e00-\u9fffA-Za-z%]{0,3})")


def _qualified_number(body: str, answers: list[str]) -> ItemScore | None:
    """A reference that names what it counts (``旺季60元``): right when the reply names it too and the
    first number after that name is the reference's, in the same unit or one of its names (``60块钱``)."""
    for answer in answers:
        m = _QUALIFIED.match(nfkc(answer).strip())
        if m is None:
            continue
        text = arabic_numerals(nfkc(body))
        at = text.rfind(m.group("words"))
        stated = _AFTER_WORDS.search(text, at + len(m.group("words"))) if at >= 0 else None
        if stated is None or float(stated.group("number")) != float(m.group("number")):
            continue
        unit, wanted = _unit_of(stated.group("unit")), _unit_of(m.group("unit"))
        if wanted is not None and unit != wanted:
            continue
        said = f"{stated.group('number')}{stated.group('unit')}"
        return ItemScore(
            1.0,
            f"exact: the reply names «{m.group('words')}» and states «{said}» after it, the reference «{answer}»; "
            "correct",
            said,
            matched_by="number",
        )
    return None


def _unit_of(word: str) -> str | None:
    """The unit a word after a number names, canonically (``块钱`` and ``元`` are one), or None."""
    for end in range(len(word), 0, -1):
        unit = split_unit(f"1{word[:end]}")[1]
        if unit is not None:
            return unit
    return None


def _matched(hit: str) -> ItemScore:
    return ItemScore(
        1.0,
        f"exact: reply matches «{hit}» after normalisation; correct",
        answer_form(hit),
        matched_by="normalised match",
    )
