"""The choice metric, rule by rule (docs/pages/scoring.md, "choice"): markers, last-wins, bare letters,
traps, yes/no."""

from __future__ import annotations

import pytest
from table_cases import case_maker

from scoring import Item
from scoring._metrics.choice import score_choice
from scoring._metrics.extract.choice import extract_choice, extract_yes_no, option_letters, parse_choice_reference

case = case_maker()


ABCD = "ABCD"
TEN = "ABCDEFGHIJ"
LETTERS_16 = "ABCDEFGHIJKLMNOP"

EXTRACT = [
    # explicit markers
    case("marker-ANSWER", "Reasoning...\nANSWER: C", TEN, "C"),
    case("marker-ANSWER", "ANSWER: J", TEN, "J"),
    case("marker-ANSWER-no-space", "ANSWER:B", TEN, "B"),
    case("marker-answer-paren", "Answer: (B)", TEN, "B"),
    case("marker-answer-is", "So the answer is D.", TEN, "D"),
    case("marker-answer-is-paren", "Thus, the answer is (H).", TEN, "H"),
    case("marker-correct-answer", "The correct answer is E", TEN, "E"),
    case("marker-correct-option", "The correct option is: F", TEN, "F"),
    case("marker-final-answer", "Final Answer: G", TEN, "G"),
    case("marker-answer-option", "The answer is option B", TEN, "B"),
    case("marker-lowercase-keyword", "answer: c".upper().replace("ANSWER", "answer"), TEN, "C"),
    case("marker-bold", "**ANSWER: D**", TEN, "D"),
    case("marker-bold-letter", "The answer is **C**.", TEN, "C"),
    case("marker-bold-keyword", "**Answer:** B", TEN, "B"),
    case("marker-brackets", "Answer: [E]", TEN, "E"),
    case("marker-fullwidth-colon", "ANSWER：B", TEN, "B"),
    case("marker-fullwidth-paren", "答案是（C）", TEN, "C"),
    case("marker-fullwidth-letter", "ANSWER: Ｄ", TEN, "D"),
    case("marker-zh-daan-shi", "答案是A", TEN, "A"),
    case("marker-zh-daan-colon", "答案：B", TEN, "B"),
    case("marker-zh-daan-wei", "所以答案为 D", TEN, "D"),
    case("marker-zh-guxuan", "综上所述，故选C。", TEN, "C"),
    case("marker-zh-yingxuan", "本题应选B", TEN, "B"),
    case("marker-zh-xuanze", "我选择D", TEN, "D"),
    case("marker-zh-zhengque-daan", "正确答案是 E", TEN, "E"),
    case("marker-boxed", "\\boxed{E}", TEN, "E"),
    case("marker-boxed-text", "\\boxed{\\text{B}}", TEN, "B"),
    case("marker-boxed-paren", "\\boxed{(C)}", TEN, "C"),
    case("marker-latex-inline", "The answer is $\\text{D}$", TEN, "D"),
    # the last marker wins
    case("last-marker-wins", "ANSWER: A\nWait, that is wrong.\nANSWER: C", TEN, "C"),
    case("last-marker-wins", "I first thought the answer is B, but the answer is D.", TEN, "D"),
    case("last-marker-wins", "答案是A。不对，重新计算，答案是C", TEN, "C"),
    case("last-marker-wins", "\\boxed{A} ... on reflection ANSWER: J", TEN, "J"),
    case("last-marker-wins", "ANSWER: J ... hmm, \\boxed{B}", TEN, "B"),
    # reasoning blocks
    case("think-block-ignored", "<think>ANSWER: A</think>ANSWER: B", TEN, "B"),
    case("think-block-ignored", "<think>maybe C\n\nANSWER: C</think>\n\nFinal: ANSWER: D", TEN, "D"),
    case("think-unclosed-tail", "long thought ANSWER: A </think> ANSWER: E", TEN, "E"),
    # bare replies
    case("bare-letter", "B", TEN, "B"),
    case("bare-letter", "  C  ", TEN, "C"),
    case("bare-paren", "(B)", TEN, "B"),
    case("bare-dot", "B.", TEN, "B"),
    case("bare-option", "Option B", TEN, "B"),
    case("bare-with-text", "B. The method should be modified", TEN, "B"),
    case("bare-bold", "**D**", TEN, "D"),
    case("bare-zh", "选B", TEN, "B"),
    case("bare-fullwidth", "（Ｃ）", TEN, "C"),
    # multi-answer sets
    case("multi-comma", "ANSWER: A, C", TEN, "AC"),
    case("multi-joined", "ANSWER: CA", TEN, "AC"),
    case("multi-zh", "答案：A、B、D", TEN, "ABD"),
    case("multi-and", "The answer is A and C", TEN, "AC"),
    case("multi-bare", "BD", TEN, "BD"),
    # traps: no guessing from stray capitals
    case("trap-lets-think", "Answer: Let's think step by step.", TEN, ""),
    case("trap-word-start", "The answer is Because of gravity", TEN, ""),
    case("trap-article-a", "The answer is A good question, I cannot tell", TEN, ""),
    case("trap-pronoun-i", "Answer: I am not sure", TEN, ""),
    case("trap-stray-capital", "Photosynthesis happens in Chloroplasts.", TEN, ""),
    case("trap-letter-outside-options", "ANSWER: K", TEN, ""),
    case("trap-letter-outside-abcd", "ANSWER: E", ABCD, ""),
    case("trap-lowercase-word", "the answer is a", TEN, ""),
    case("trap-option-mention-not-marker", "选项A是错误的，选项B也不对", TEN, ""),
    case("trap-empty", "", TEN, ""),
    case("trap-long-free-text", "I cannot answer this question.", TEN, ""),
    case("trap-marker-then-word", "ANSWER: Definitely", TEN, ""),
    # beyond J
    case("beyond-j", "ANSWER: L", "ABCDEFGHIJKL", "L"),
    case("beyond-j", "ANSWER: L", TEN, ""),
    case("beyond-j", "The answer is (N).", LETTERS_16, "N"),
    # lower-case letters only where they cannot be words
    case("lowercase-bracketed", "The answer is (c)", TEN, "C"),
    case("lowercase-bracketed", "**Answer: (b)**", TEN, "B"),
    case("lowercase-bracketed", "Answer: (d).", TEN, "D"),
    case("lowercase-bracketed-fullwidth", "答案是（ｃ）", TEN, "C"),
    case("lowercase-after-colon", "ANSWER: c", TEN, "C"),
    case("lowercase-after-colon", "Answer: c)", TEN, "C"),
    case("lowercase-bare", "b.", TEN, "B"),
    case("lowercase-bare", "(c)", TEN, "C"),
    case("lowercase-article-still-a-trap", "The answer is a good one", TEN, ""),
    case("lowercase-article-still-a-trap", "Answer: a cat, obviously", TEN, ""),
    # "ANSWER" is a marker, not the letters W, E, R after "ANS"
    case("marker-ans-abbrev", "ANS: B", TEN, "B"),
    case("marker-ans-abbrev", "Ans. C", TEN, "C"),
    case("marker-ans-not-inside-answer", "ANSWER: c", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "C"),
    # separators and LaTeX wrappers
    case("marker-dash", "Answer - C", TEN, "C"),
    case("marker-arrow", "answer → D", TEN, "D"),
    case("marker-boxed-mathrm", "Therefore, the answer is $\\boxed{\\mathrm{D}}$", TEN, "D"),
    case("marker-boxed-mathbf", "\\boxed{\\mathbf{(E)}}", TEN, "E"),
    case("marker-zh-zhengque-xuanxiang", "正确选项是C", TEN, "C"),
    case("marker-zh-zhengque-de-xuanxiang", "经过分析，正确的选项为 D。", TEN, "D"),
    case("marker-zh-guxuan-fullwidth-letter", "故选：Ｄ", TEN, "D"),
    case("marker-zh-suoyi-daan-wei", "所以答案为B。", TEN, "B"),
    # a letter followed by its reason is still the letter
    case("article-trap-reason-follows", "The answer is A because the others are false.", TEN, "A"),
    case("article-trap-reason-follows", "Answer: A since B and C contradict the text", TEN, "A"),
    # markers after the letter, used only when no marker precedes a letter
    case("suffix-marker", "C is the correct answer.", TEN, "C"),
    case("suffix-marker", "Therefore, option (B) is the best choice.", TEN, "B"),
    case("suffix-marker-zh", "综上，C是正确答案。", TEN, "C"),
    case("suffix-marker-loses-to-prefix", "ANSWER: C\n\nWhy not B? B is the correct answer only if x < 0.", TEN, "C"),
    case("suffix-marker-needs-answer-word", "Statement B is correct but incomplete.", TEN, ""),
    # adversarial model replies
    case(
        "mind-change-long-cot",
        "Let's analyse. Option A fits the first clue, so the answer is A.\n"
        "Wait — the second clue rules A out. Re-reading, D is consistent with both.\n\nANSWER: D",
        TEN,
        "D",
    ),
    case("think-block-different-answer", "<think>\nThe answer is (B). Hmm.\n</think>\n\nThe answer is (G).", TEN, "G"),
    case("think-unclosed-no-final-answer", "<think>\nFirst, ANSWER: B seems right, but let me check", TEN, ""),
    case("none-of-the-above", "None of the above.", TEN, ""),
    case("none-of-the-above", "The answer is none of the above.", TEN, ""),
    case("a-and-c", "A and C", TEN, "AC"),
    case("a-and-c", "The answer is A and C.", TEN, "AC"),
    case("bold-letter-and-text", "**C.** option C", TEN, "C"),
    case("hedge-maybe", "Answer: B or maybe C", TEN, ""),
    case("marker-display-closing-bracket", "The answer is: **(C) option C**", TEN, "C"),
    case("trap-number-not-letter", "Answer: 3", TEN, ""),
    case("trap-word-run-not-letters", "NOTE: read carefully", TEN, ""),
]


@pytest.mark.parametrize(("reply", "valid", "expected"), EXTRACT)
def test_extract_choice(reply: str, valid: str, expected: str) -> None:
    assert extract_choice(reply, valid).letters == expected


def test_not_found_says_so() -> None:
    found = extract_choice("Answer: Let's think", TEN)
    assert not found.found
    assert "no answer marker" in found.how


OPTIONS = [
    case("options-paren-right", "Q\nA) x\nB) y\nC) z\nD) w", None, "ABCD"),
    case("options-dot", "Q\nA. x\nB. y\nC. z", None, "ABC"),
    case("options-paren-both", "Q\n(A) x\n(B) y\n(C) z\n(D) w\n(E) v", None, "ABCDE"),
    case("options-fullwidth-colon", "Q\nA：苹果\nB：香蕉\nC：梨", None, "ABC"),
    case("options-dunhao", "Q\nA、一\nB、二", None, "AB"),
    case("options-ten", "Q\n" + "\n".join(f"{c}) o" for c in TEN), None, TEN),
    case("options-meta-choices", "no options shown", ["x", "y", "z"], "ABC"),
    case("options-none", "What is 2+2?", None, ""),
    case("options-run-from-a-only", "Q\nI. intro\nA) x\nB) y", None, "AB"),
    case("options-inline", "Which is right? A. 1 B. 2 C. 3 D. 4", None, "ABCD"),
    case("options-inline-zh", "下列正确的是（ ）A．甲 B．乙 C．丙", None, "ABC"),
    case("options-inline-paren", "Pick one: (A) red (B) blue (C) green", None, "ABC"),
    case("options-inline-not-a-name", "Mr. A. Smith met B. Jones.", None, ""),
    case("options-beyond-j", "Q\n" + "\n".join(f"({c}) o" for c in "ABCDEFGHIJKLMN"), None, "ABCDEFGHIJKLMN"),
    case("options-meta-choices-beyond-j", "Q", [str(k) for k in range(12)], "ABCDEFGHIJKL"),
]


@pytest.mark.parametrize(("question", "choices", "expected"), OPTIONS)
def test_option_letters(question: str, choices: list[str] | None, expected: str) -> None:
    assert option_letters(question, choices) == expected


REFERENCES = [
    case("reference-letter", "B", "B"),
    case("reference-paren", "(C)", "C"),
    case("reference-lower", "b", "B"),
    case("reference-set", "AB", "AB"),
    case("reference-set-comma", "A,C", "AC"),
    case("reference-set-zh", "A、C", "AC"),
    case("reference-dot", "D.", "D"),
    case("reference-not-letters", "Paris", None),
    case("reference-not-letters", "42", None),
]


@pytest.mark.parametrize(("reference", "expected"), REFERENCES)
def test_parse_choice_reference(reference: str, expected: str | None) -> None:
    assert parse_choice_reference(reference) == expected


YES_NO = [
    case("yn-yes", "Yes, it is.", "yes"),
    case("yn-no", "No.", "no"),
    case("yn-true", "True", "yes"),
    case("yn-false", "false", "no"),
    case("yn-marker", "Let me check... The answer is no.", "no"),
    case("yn-marker-last-wins", "Answer: yes. Hmm, actually the answer is no", "no"),
    case("yn-zh-shi", "是的，水是湿的。", "yes"),
    case("yn-zh-bushi", "不是，太阳从东边升起。", "no"),
    case("yn-zh-fou", "否", "no"),
    case("yn-zh-dui", "对", "yes"),
    case("yn-zh-budui", "不对", "no"),
    case("yn-zh-zhengque", "正确", "yes"),
    case("yn-zh-bu-zhengque", "不正确", "no"),
    case("yn-zh-cuowu", "答案：错误", "no"),
    case("yn-zh-marker", "经过分析，答案是：否", "no"),
    case("yn-zh-suoyi", "所以是", "yes"),
    case("yn-connective-so", "The sky scatters blue light on a clear day. So yes.", "yes"),
    case("yn-connective-therefore", "It never rains upward. Therefore, no.", "no"),
    case("yn-connective-not-an-answer", "So no matter what, it is wet.", ""),
    case("yn-bold", "The answer is: **No**", "no"),
    case("yn-last-line", "Thinking it through...\n\nYes", "yes"),
    case("yn-think-block", "<think>no</think>yes", "yes"),
    case("yn-think-unclosed", "<think>I think the answer is yes", ""),
    case("yn-zh-yinci-comma", "因此，不正确。", "no"),
    case("yn-zh-daan-shi", "答案是：是", "yes"),
    case("yn-none", "Hmm, hard to say.", ""),
    case("yn-not-a-prefix-word", "Nothing is certain", ""),
]


@pytest.mark.parametrize(("reply", "expected"), YES_NO)
def test_extract_yes_no(reply: str, expected: str) -> None:
    assert extract_yes_no(reply).letters == expected


SCORES = [
    case("score-single-right", "ANSWER: B", "B", "Q\nA) 1\nB) 2\nC) 3", 1.0),
    case("score-single-wrong", "ANSWER: C", "B", "Q\nA) 1\nB) 2\nC) 3", 0.0),
    case("score-set-exact", "ANSWER: A, C", "AC", "Q\nA) 1\nB) 2\nC) 3", 1.0),
    case("score-set-subset-wrong", "ANSWER: A", "AC", "Q\nA) 1\nB) 2\nC) 3", 0.0),
    case("score-set-superset-wrong", "ANSWER: ABC", "AC", "Q\nA) 1\nB) 2\nC) 3", 0.0),
    case("score-not-found-wrong", "I don't know", "B", "Q\nA) 1\nB) 2", 0.0),
    case("score-empty-wrong", "", "B", "Q\nA) 1\nB) 2", 0.0),
    case("score-yes-no-zh-vs-en", "是", "yes", "Q", 1.0),
    case("score-yes-no-en-vs-zh", "No", "否", "Q", 1.0),
    case("score-yes-no-true-false", "False", "True", "Q", 0.0),
    case("score-no-options-shown", "ANSWER: H", "H", "What is it?", 1.0),
]


@pytest.mark.parametrize(("reply", "reference", "question", "expected"), SCORES)
def test_score_choice(reply: str, reference: str, question: str, expected: float) -> None:
    assert score_choice(reply, Item(question, reference)).score == expected


def test_reference_not_a_choice_is_unscorable() -> None:
    result = score_choice("ANSWER: B", Item("Q", "Paris is the capital"))
    assert result.score is None
    assert "not an option letter" in result.analysis


def test_analysis_names_extracted_and_reference() -> None:
    result = score_choice("ANSWER: B", Item("Q\nA) 1\nB) 2", "B"))
    assert result.analysis == 'choice: extracted «B» via marker "ANSWER: B"; reference «B»; correct'


# A last marker that hedges between options names no choice: no credit for its first letter, and no
# fallback to an earlier marker; the analysis says why.
HEDGED = [
    case("hedge-or", "The answer is (A) or (B)", "A"),
    case("hedge-or-bold", "Answer: **B** or C", "B"),
    case("hedge-chinese", "答案是A或B", "A"),
    case("hedge-chinese-haishi", "故选C还是D", "C"),
    case("hedge-after-earlier-marker", "The answer is A. Hmm, the answer is B or A", "A"),
]


@pytest.mark.parametrize(("reply", "reference"), HEDGED)
def test_hedged_marker_is_not_an_answer(reply: str, reference: str) -> None:
    result = score_choice(reply, Item("Q\nA. 1\nB. 2\nC. 3\nD. 4", reference))
    assert result.score == 0.0
    assert "hedges between options" in result.analysis


@pytest.mark.parametrize("reply", ["The answer is A, not B", "ANSWER: C\nOr B would be the case if x were negative."])
def test_a_marker_that_does_not_hedge_still_counts(reply: str) -> None:
    found = extract_choice(reply, ABCD)
    assert found.found and len(found.letters) == 1


def test_marker_naming_a_letter_outside_the_options_says_so() -> None:
    result = score_choice("The answer is E", Item("Q\nA. 1\nB. 2\nC. 3\nD. 4", "C"))
    assert result.score == 0.0
    assert "not an option (A–D)" in result.analysis


# The letter on the line after the marker, as Markdown replies write it.
NEXT_LINE = [
    case("next-line-heading", "## Answer\nC", "C"),
    case("next-line-bold-colon", "Reasoning...\n\n**Answer:**\n\nB", "B"),
    case("next-line-crlf", "Final answer:\r\nD", "D"),
    case("next-line-article-trap", "Answer:\nA common mistake is to pick B.", ""),
    case("next-line-pronoun-trap", "Answer:\nI think so", ""),
    case("next-line-too-far", "The answer\n\n\n\nB", ""),
]


@pytest.mark.parametrize(("reply", "expected"), NEXT_LINE)
def test_marker_with_the_letter_on_the_next_line(reply: str, expected: str) -> None:
    found = extract_choice(reply, TEN)
    assert found.letters == expected
    assert "\n" not in found.how


@pytest.mark.parametrize("reply", ["D", "(E)", "F. something else"])
def test_bare_letter_outside_the_options_says_so(reply: str) -> None:
    result = score_choice(reply, Item("Q\nA. 1\nB. 2\nC. 3", "C"))
    assert result.score == 0.0
    assert "not an option (A–C)" in result.analysis


# The analysis says why nothing was found once, in words that fit the case (it read "no answer found
# (no yes/no answer found)" before).
NOT_FOUND = [
    case("not-found-letters", "I cannot decide.", "B", "Q\nA. 1\nB. 2\nC. 3"),
    case("not-found-empty", "", "B", "Q\nA. 1\nB. 2\nC. 3"),
    case("not-found-yes-no", "Hard to say.", "yes", "Is it?"),
    case("not-found-cut-off", "<think>maybe B", "B", "Q\nA. 1\nB. 2\nC. 3"),
]


@pytest.mark.parametrize(("reply", "reference", "question"), NOT_FOUND)
def test_not_found_is_said_once(reply: str, reference: str, question: str) -> None:
    result = score_choice(reply, Item(question, reference))
    assert result.score == 0.0
    assert result.analysis.count("no answer found") == 1
    assert "found)" not in result.analysis


def test_cut_off_reasoning_is_named() -> None:
    result = score_choice("<think>The answer is B, surely", Item("Q\nA. 1\nB. 2\nC. 3", "B"))
    assert result.score == 0.0
    assert "<think>" in result.analysis and "never closed" in result.analysis


# Issue 11, from real replies (MMLU-Pro and LawBench, tests/corpora/choice): what a reply commits to in prose,
# in sets, and in the LawBench answer format. The last explicit commitment wins; a stray capital never counts.
COMMITMENTS = [
    # 1. commitments in prose
    case("prose-closest", "The answer is not listed, but the closest option is (A).", TEN, "A"),
    case("prose-closest", "The closest option is (H) 4.16 torr.", TEN, "H"),
    case("prose-closest-bare", "The closest option is D.", TEN, "D"),
    case("prose-closest-is", "The answer is not on the list, but the closest is (I).", TEN, "I"),
    case("prose-correct-statement", "Therefore, the correct statement is (F).", TEN, "F"),
    case("prose-statement-next-line", "the correct statement is:\nH. Nitrogen is inert", TEN, "H"),
    case("prose-correct-change", "The correct change is:\nD. Removing line 5", TEN, "D"),
    case("prose-best-interpretation", "The best interpretation is (D).", TEN, "D"),
    case("prose-most-likely", "Therefore, the most likely etiologic agent is (J).", TEN, "J"),
    case("prose-most-accurate", "Therefore, the most accurate statement is (D).", TEN, "D"),
    case("prose-only-remaining", "so (A) is false. The only remaining option is (A).", TEN, "A"),
    case("prose-not-true", "The statement that is not true is B. Expected frequencies can be decimals.", TEN, "B"),
    case("prose-letter-then-text", "The correct answer is (J) lysine, proline and arginine.", TEN, "J"),
    case("prose-is-d-h2o", "The compound formed is (D) H2O.", TEN, ""),
    case("prose-could-be", "Having ruled out the rest, the answer could be (G)", TEN, "G"),
    case("prose-latex-text", "\\text{Answer} = \\text{G}", TEN, "G"),
    case("prose-option-paren", "(Option B)", TEN, "B"),
    case("prose-ends-with-option", "The age of the surface of Venus is about 500 million years, option (A).", TEN, "A"),
    case("prose-ends-with-or-answer", "The radius is smaller than the first Bohr radius, or answer (G).", TEN, "G"),
    case("prose-making-correct", "which is genetic programming, making (B) the correct answer.", TEN, "B"),
    case("prose-backticks", "The answer is `H. 2.9 × 10^7 years`.", TEN, "H"),
    case("prose-value-or-letter", "The answer is $63.33 or (C).", TEN, "C"),
    case("prose-last-wins", "The closest option is (C). Rechecking the units, the answer is (E).", TEN, "E"),
    case("prose-last-wins", "The answer is (E). Answer: The answer is (J).", TEN, "J"),
    case("prose-long-subject", "The best description of the organization of the passage is (E).", TEN, "E"),
    case("prose-least", "Therefore, the least accurate description of legal positivism is (B), which says", TEN, "B"),
    case("prose-option-that", "Therefore, the option that will NOT deal with the deadlock is D. Allowing", TEN, "D"),
    case(
        "prose-proposition-that", "the proposition that would be rejected by them is B. Law is determinate.", TEN, "B"
    ),
    case("prose-corresponds", "So the speed is about 10,300 m/s, which corresponds to option (B).", TEN, "B"),
    case("prose-answers-are", "The answers are (B) and (I).", TEN, "BI"),
    case("prose-ends-except", "monitoring involves each of the following steps, except (I).", TEN, "I"),
    case("prose-ends-which-is", "The carpenter's claim rests on promissory estoppel, which is (B).", TEN, "B"),
    case("prose-most-common-variable", "The most common value is C = 4 uF.", TEN, ""),
    case("prose-mention-not-commitment", "Option A is too broad, and option C confuses cause with effect.", TEN, ""),
    case("part-label-not-option", "(b) is 36000 Btu. The answer is (a) 27000 Btu/hr.ft.", TEN, ""),
    case("part-label-bare", "\n(i)\nThe speed of a DC motor is proportional to the voltage.", TEN, ""),
    case("value-with-unit-or-letter", "We divide by 10, so the answer is 0.9 mm, or (B).", TEN, "B"),
    case("answer-close-to", "The answer is close to (E). The correct answer is 9.2%.", TEN, "E"),
    case(
        "new-question-after-answer",
        "This corresponds to option (D).\nQuestion:\nWhat is X?\nOptions:\nA. 1\nB. 2\nAnswer: B",
        TEN,
        "D",
    ),
    case("new-question-zh", "故选C。\n题目：下列说法正确的是\n答案：A", ABCD, "C"),
    case("prose-zh-zhengque-de-zuofa", "因此，正确的做法是[C]继续审理虐待案。", ABCD, "C"),
    case("prose-zh-cuowu-de-shuofa", "综上所述，错误的说法是B。", ABCD, "B"),
    case("prose-zh-ji-xuanxiang", "因此，本案的复议机关应当是区人民政府，即选项D。", ABCD, "D"),
    case("prose-zh-jishi-not-marker", "即使如此，A选项也不对", ABCD, ""),
    case("prose-zh-zhengque-de-shuofa", "综上所述，正确的说法是A和C。", ABCD, "AC"),
    case("prose-zh-biaoshu", "因此，该案的正确表述是：B:大城公司无权不按合同约定交货。", ABCD, "B"),
    case("prose-zh-shuofa-zhengque-de", "下列说法正确的为选项A：甲国某公司可以起诉。", ABCD, "A"),
    case("prose-zh-xuanxiang-shi-zhengque", "因此选项A是正确的。选项B中，因此选项B不正确。", ABCD, "A"),
    case("prose-zh-quoted-option", "因此，选项C“可以先审查撤诉理由”是正确的答案。", ABCD, "C"),
    case("prose-zh-colon-option", "因此，选项A：乙、丙是正确答案。", ABCD, "A"),
    # 2. several letters: a set is read as a set, a hedge is no answer
    case("set-brackets-and", "The answer is (D) and (G).", TEN, "DG"),
    case("set-oxford-comma", "The answer is A, C, and D.", TEN, "ACD"),
    case("set-brackets-oxford", "The answer is (B), (G), (J), and (F).", TEN, "BFGJ"),
    case("set-in-brackets", "Thus, the answer is (C, D, E, F).", TEN, "CDEF"),
    case("set-combination", "Therefore, the answer is a combination of (B) and (G).", TEN, "BG"),
    case("set-both", "The final answer is Both (B) and (E).", TEN, "BE"),
    case("set-answers-plural", "Plugging in the values gives the answers (C) and (G).", TEN, "CG"),
    case("set-and-not-a-letter", "The answer is (D). Therefore, the correct answer is (D) and (True).", TEN, "D"),
    case("hedge-brackets-or", "The answer is (E) or (J).", TEN, ""),
    case("hedge-bare-or", "(E) or (J)", TEN, ""),
    case("hedge-and-or", "The answer is A and/or C.", TEN, ""),
    case("hedge-bare-and-or", "A and/or C", TEN, ""),
    case("hedge-zh-huo", "A或B", ABCD, ""),
    case(
        "hedge-then-commit", "The answer is (I) or (J). The Yin-Yang School is naturalist. The answer is (I).", TEN, "I"
    ),
    # 3. markers are whole words
    case("whole-word-ans", "Native Americans (B)", TEN, ""),
    case("whole-word-ans", "The flux is measured in steradians\nI = 2560 W/sr", TEN, ""),
    case("whole-word-answer", "Counter-answer: nothing here, Manswer B", TEN, ""),
    case("stray-capital-celsius", "The final temperature is 25 °C.", TEN, ""),
    case("stray-capital-celsius", "The closest value is 25 °C.", TEN, ""),
    case("stray-capital-discussion", "Consider (D) A rise in prices, which would shift demand.", TEN, ""),
    # 4. a list of options after the marker reads its first line
    case("marker-then-option-list", "the answer is:\nA. H2SO4, P(OH)3\nI. none of these", TEN, "A"),
    # the LawBench answer format: "[正确答案]X<eoa>", and an end token closes the answer
    case("zh-bracket-marker", "[正确答案]B<eoa>", ABCD, "B"),
    case("zh-lenticular-marker", "【答案】B", ABCD, "B"),
    case("zh-lenticular-next-line", "【答案】\nD", ABCD, "D"),
    case("zh-bracket-colon", "[正确答案]：C", ABCD, "C"),
    case("zh-bracketed-letter", "因此，正确的答案是[D]西城区法院<eoa>。", ABCD, "D"),
    case("end-token-bare", "B<eoa>", ABCD, "B"),
    case("end-token-bare", "C</s>", ABCD, "C"),
    case("end-token-closes-answer", "正确答案：C<eoa>\n请阅读以下文本。\n正确答案：B<eoa>", ABCD, "C"),
    case("end-token-closes-answer", "[正确答案] A<eoa>。\n请问，下列哪一项是正确的？\n[正确答案] C<eoa>", ABCD, "A"),
    case("end-token-after-prompt-echo", "请写在[正确答案]和<eoa>之间。\n[正确答案]B<eoa>\n答案：A", ABCD, "B"),
    case("example-in-echoed-prompt", "例如[正确答案]A<eoa>。请严格按照格式回答。\n【答案】B", ABCD, "B"),
    case("end-token-im-end", "The answer is (C).<|im_end|>\nThe answer is (D).", TEN, "C"),
]


@pytest.mark.parametrize(("reply", "valid", "expected"), COMMITMENTS)
def test_commitments_from_real_replies(reply: str, valid: str, expected: str) -> None:
    assert extract_choice(reply, valid).letters == expected


HEDGE_REASONS = [
    case("hedge-reason", "The answer is (E) or (J).", TEN),
    case("hedge-reason", "(B) or (I)", TEN),
    case("hedge-reason", "ANSWER: A and/or C", TEN),
    case("hedge-reason", "答案是A或B", ABCD),
    case("hedge-reason", "The answer is A or B.", ABCD),
]


@pytest.mark.parametrize(("reply", "valid"), HEDGE_REASONS)
def test_a_hedge_is_no_answer_and_says_so(reply: str, valid: str) -> None:
    found = extract_choice(reply, valid)
    assert (found.letters, found.hedged) == ("", True)
    assert "hedges between options" in found.how


# 5. a final answer that restates exactly one option's text is that option (options from the question or
# meta.choices); two options with the same text, or no restatement, read nothing.
RESTATED = [
    case("restated-marker", "The answer is [1, 2].", "Q\nA. [1, 2]\nB. [2, 3]\nC. [1, 3]", None, "A", 1.0),
    case(
        "restated-final-answer", "So the final answer: Paris", "Capital?\nA) London\nB) Paris\nC) Rome", None, "B", 1.0
    ),
    case("restated-one-line", "Rome.", "Capital?\nA) London\nB) Paris\nC) Rome", None, "B", 0.0),
    case("restated-zh", "答案是北京。", "首都？\nA. 上海\nB. 北京\nC. 广州", None, "B", 1.0),
    case("restated-meta-choices", "The answer is blue.", "Which colour?", ["red", "blue", "green"], "B", 1.0),
    case("restated-ambiguous", "The answer is 4.", "Q\nA. 4\nB. 4\nC. 5", None, "A", 0.0),
    case("restated-none", "The answer is 7.", "Q\nA. 4\nB. 5\nC. 6", None, "A", 0.0),
    case(
        "letter-with-its-text",
        "The refractory period occurs during the C. resolution stage.",
        "Q\nA. excitement\nB. plateau\nC. resolution stage",
        None,
        "C",
        1.0,
    ),
    case(
        "letter-with-its-text-list",
        "A. excitement is early\nC. resolution stage is late",
        "Q\nA. excitement\nB. plateau\nC. resolution stage",
        None,
        "C",
        0.0,
    ),
    case("restated-letter-wins", "The answer is (C) Paris.", "Capital?\nA) London\nB) Paris\nC) Rome", None, "B", 0.0),
]


@pytest.mark.parametrize(("reply", "question", "choices", "reference", "expected"), RESTATED)
def test_restated_option_text(
    reply: str, question: str, choices: list[str] | None, reference: str, expected: float
) -> None:
    meta = {"choices": choices} if choices else {}
    assert score_choice(reply, Item(question, reference, meta)).score == expected


EXTRACTED = [
    case("extracted-letter", "The closest option is (H).", "H", "H"),
    case("extracted-set", "The answer is (D) and (G).", "D", "DG"),
    case("extracted-none", "I cannot provide an answer.", "D", None),
    case("extracted-none-hedge", "The answer is (E) or (J).", "E", None),
]


@pytest.mark.parametrize(("reply", "reference", "expected"), EXTRACTED)
def test_the_score_carries_what_was_read(reply: str, reference: str, expected: str | None) -> None:
    question = "Q\n" + "\n".join(f"({c}) option {c}" for c in TEN)
    result = score_choice(reply, Item(question, reference))
    assert result.extracted == expected
    assert result.score == (1.0 if expected == reference else 0.0)


OUTSIDE = [
    case("reference-outside", "K", "Q\nA. 1\nB. 2\nC. 3\nD. 4", "«K»"),
    case("reference-outside-set", "AE", "Q\nA. 1\nB. 2\nC. 3\nD. 4", "«AE»"),
    case("reference-outside-choices", "D", "Which?", "«D»"),
]


@pytest.mark.parametrize(("reference", "question", "named"), OUTSIDE)
def test_a_reference_outside_the_options_is_unscorable(reference: str, question: str, named: str) -> None:
    meta = {"choices": ["x", "y", "z"]} if question == "Which?" else {}
    result = score_choice("ANSWER: A", Item(question, reference, meta))
    assert result.score is None
    assert named in result.analysis and "outside the item's options" in result.analysis
