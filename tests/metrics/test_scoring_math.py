"""The math metric, rule by rule: each case names the rule it pins (docs/pages/scoring.md, "math", seed 003)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from table_cases import case_maker

from scoring import Item
from scoring._metrics.extract.math import extract_math_answer
from scoring._metrics.math import SympyGuard, answers_equal, math_equal, score_math, split_blanks, sympy_safe

case = case_maker()


# (answer, reference, expected credit)
EQUIVALENCE = [
    # fractions = decimals
    case("fraction-decimal", "0.5", "\\frac{1}{2}", 1.0),
    case("fraction-decimal", "1/2", "0.5", 1.0),
    case("fraction-decimal", "\\dfrac{3}{4}", "0.75", 1.0),
    case("fraction-decimal", "\\tfrac{1}{4}", "0.25", 1.0),
    case("fraction-decimal", "\\frac12", "0.5", 1.0),
    case("fraction-decimal", "0.33", "\\frac{1}{3}", 0.0),
    case("fraction-decimal", "2/4", "1/2", 1.0),
    case("fraction-decimal", "-\\frac{1}{2}", "-0.5", 1.0),
    case("fraction-decimal", "\\frac{-1}{2}", "-0.5", 1.0),
    case("fraction-decimal", "0.2", "1/4", 0.0),
    case("mixed-number", "1\\frac{1}{2}", "1.5", 1.0),
    case("mixed-number", "2\\frac{1}{3}", "\\frac{7}{3}", 1.0),
    case("mixed-number", "\\frac{3}{2}", "1\\frac{1}{2}", 1.0),
    case("mixed-number-not-a-product", "2\\frac{1}{3}", "\\frac{2}{3}", 0.0),
    case("dfrac", "\\dfrac{\\sqrt{3}}{2}", "\\frac{\\sqrt3}{2}", 1.0),
    # number format
    case("number-format", "10.0", "10", 1.0),
    case("number-format", "10.00", "10", 1.0),
    case("number-format", "010", "10", 1.0),
    case("number-format", "+5", "5", 1.0),
    case("number-format", "11", "10", 0.0),
    # thousands separators
    case("thousands", "1,887,800", "1887800", 1.0),
    case("thousands", "1887800", "1,887,800", 1.0),
    case("thousands", "1,000", "1000.0", 1.0),
    case("thousands", "12,345.5", "12345.5", 1.0),
    case("thousands", "1,001", "1000", 0.0),
    case("thousands-space", "1 000", "1000", 1.0),
    case("thousands-space", "1\u2009000\u2009000", "1000000", 1.0),
    case("thousands-space", "12 345.5", "12345.5", 1.0),
    case("thousands-latex-grouped-comma", "10{,}000", "10000", 1.0),
    case("thousands-space-not-any-gap", "1 2", "12", 0.0),
    # Excel shows big numbers in scientific notation with six significant digits
    case("excel-scientific", "1000000000000000000000", "1E+21", 1.0),
    case("excel-scientific", "10^{21}", "1E+21", 1.0),
    case("excel-scientific", "123456789012", "1.23457E+11", 1.0),
    case("excel-scientific", "123456000000", "1.23457E+11", 0.0),
    case("excel-scientific-precision-is-the-reference-s", "6.0221e23", "6.02e23", 1.0),
    case("excel-scientific-precision-is-the-reference-s", "1.2E+11", "123456789012", 0.0),
    # radicals
    case("radical", "\\sqrt{3}", "√3", 1.0),
    case("radical", "√12", "2\\sqrt{3}", 1.0),
    case("radical", "2√3", "\\sqrt{12}", 1.0),
    case("radical", "\\sqrt[3]{8}", "2", 1.0),
    case("radical", "\\sqrt{2}/2", "\\frac{1}{\\sqrt{2}}", 1.0),
    case("radical", "√(2)", "\\sqrt2", 1.0),
    case("radical", "\\sqrt{3}", "1.732", 0.0),
    case("radical", "3\\sqrt{2}", "\\sqrt{18}", 1.0),
    # algebraic equality
    case("algebra", "y+x^2", "x^2+y", 1.0),
    case("algebra", "x² + y", "y + x^2", 1.0),
    case("algebra", "18-6√3", "18+6√3", 0.0),
    case("algebra", "(√3+3)/2", "√3/2 + 3/2", 1.0),
    case("algebra", "2(x+1)", "2x+2", 1.0),
    case("algebra", "(x+1)^2", "x^2+2x+1", 1.0),
    case("algebra", "x^2-1", "(x-1)(x+1)", 1.0),
    case("algebra", "x^2+1", "(x+1)^2", 0.0),
    case("algebra", "\\frac{x}{2}", "0.5x", 1.0),
    case("algebra", "a b", "ab", 1.0),
    case("algebra", "2a+3b", "3b+2a", 1.0),
    case("algebra", "2a-3b", "3b-2a", 0.0),
    case("algebra", "x\\cdot y", "xy", 1.0),
    case("algebra", "x \\times 2", "2x", 1.0),
    case("algebra", "\\frac{1}{x}+\\frac{1}{y}", "\\frac{x+y}{xy}", 1.0),
    case("algebra", "e^{2}", "e^2", 1.0),
    case("algebra", "\\ln 2", "\\log 2", 1.0),
    case("algebra", "\\sin^2 x + \\cos^2 x", "1", 1.0),
    case("log-base", "\\log_2 8", "3", 1.0),
    case("log-base", "\\log_{3}{27}", "3", 1.0),
    case("log-base", "\\log_2 8", "4", 0.0),
    case("binomial", "\\binom{5}{2}", "10", 1.0),
    case("unicode-superscript", "x²", "x^2", 1.0),
    case("unicode-superscript", "5.0 × 10⁻³", "0.005", 1.0),
    case("unicode-superscript", "x³", "x^2", 0.0),
    # operator sensitivity
    case("operator", "2^3", "8", 1.0),
    case("operator", "2*3", "6", 1.0),
    case("operator", "2+3", "6", 0.0),
    case("operator", "6÷2", "3", 1.0),
    case("operator", "6 \\div 2", "3", 1.0),
    case("operator", "3×4", "12", 1.0),
    # pi and constants
    case("pi", "\\pi", "π", 1.0),
    case("pi", "3.14", "\\pi", 0.0),
    case("pi", "2\\pi", "2π", 1.0),
    case("pi", "\\frac{\\pi}{2}", "π/2", 1.0),
    case("pi", "\\pi r^2", "πr^2", 1.0),
    case("pi", "360°", "2π", 1.0),
    # infinity
    case("infinity", "\\infty", "∞", 1.0),
    case("infinity", "+\\infty", "∞", 1.0),
    # unicode signs and full width
    case("unicode", "−3", "-3", 1.0),
    case("unicode", "１２", "12", 1.0),
    case("unicode", "３／４", "0.75", 1.0),
    case("unicode", "（1，2）", "(1,2)", 1.0),
    case("unicode", "x＝３", "3", 1.0),
    case("unicode", "2 × 3", "6", 1.0),
    case("unicode", "–5", "-5", 1.0),
    # LaTeX wrappers
    case("latex", "$5$", "5", 1.0),
    case("latex", "\\(5\\)", "5", 1.0),
    case("latex", "\\left(\\frac{1}{2}\\right)", "0.5", 1.0),
    case("latex", "\\text{5}", "5", 1.0),
    case("latex", "\\mathrm{5}", "5", 1.0),
    case("latex", "\\displaystyle\\frac{1}{2}", "0.5", 1.0),
    case("latex", "5\\,000", "5000", 1.0),
    case("latex", "\\boxed{5}", "5", 0.0),  # boxed is extraction's job, not the comparator's
    # whitespace
    case("whitespace", "y = 2 x + 3", "y=2x+3", 1.0),
    case("whitespace", " 5 ", "5", 1.0),
    case("whitespace", "x + 1", "x+1", 1.0),
    # x = 3 vs 3
    case("assignment", "x=3", "3", 1.0),
    case("assignment", "3", "x=3", 1.0),
    case("assignment", "x = 3", "x=3", 1.0),
    case("assignment", "y=3", "3", 1.0),
    case("assignment", "x=4", "3", 0.0),
    case("assignment", "a_1=2", "2", 1.0),
    case("assignment", "f(x)=2x", "2x", 1.0),
    # equations
    case("equation", "2x-y+3=0", "y=2x+3", 1.0),
    case("equation", "y=2x+3", "y = 3 + 2x", 1.0),
    case("equation", "y=2x+4", "y=2x+3", 0.0),
    case("equation", "x^2+y^2=1", "y^2+x^2=1", 1.0),
    # intervals vs inequalities
    case("interval", "0≤x≤1", "[0,1]", 1.0),
    case("interval", "0 \\le x \\le 1", "[0, 1]", 1.0),
    case("interval", "[0,1]", "0\\leq x\\leq 1", 1.0),
    case("interval", "0<x<1", "(0,1)", 1.0),
    case("interval", "(0,1)", "0<x<1", 1.0),
    case("interval", "0<x\\le1", "(0,1]", 1.0),
    case("interval", "0<x<1", "[0,1]", 0.0),
    case("interval", "x>3", "(3,+\\infty)", 1.0),
    case("interval", "x\\geq 3", "[3, \\infty)", 1.0),
    case("interval", "x<0或x>2", "(-\\infty,0)\\cup(2,+\\infty)", 1.0),
    case("interval", "x<0 or x>2", "(-∞,0)∪(2,+∞)", 1.0),
    case("interval", "(2,+∞)∪(-∞,0)", "(-∞,0)∪(2,+∞)", 1.0),
    case("interval", "x∈[0,1]", "[0,1]", 1.0),
    case("interval", "\\{x | 0 \\le x \\le 1\\}", "[0,1]", 1.0),
    case("interval", "3<x", "x>3", 1.0),
    case("interval", "[1/2, 1]", "[0.5,1]", 1.0),
    case("interval", "x>2", "x>3", 0.0),
    case("interval-membership", "x \\in (1, 2)", "1<x<2", 1.0),
    case("interval-not-equal", "x \\neq 2", "(-\\infty,2)\\cup(2,+\\infty)", 1.0),
    case("interval-not-equal", "x≠3", "(-∞,2)∪(2,+∞)", 0.0),
    case("interval-reals", "\\mathbb{R}", "(-\\infty, +\\infty)", 1.0),
    case("interval-reals", "x \\in \\mathbb{R}", "ℝ", 1.0),
    case("interval-reals", "全体实数", "\\mathbb R", 1.0),
    case("interval-set-builder", "\\{x | x > 1\\}", "(1, +\\infty)", 1.0),
    # listed sets: order does not matter; elements share the credit
    case("set", "\\{1,2\\}", "\\{2,1\\}", 1.0),
    case("set", "{1, 2, 3}", "\\{3,2,1\\}", 1.0),
    case("set", "\\left\\{1,2\\right\\}", "\\{1,2\\}", 1.0),
    case("set", "\\{1, 2\\}", "1, 2", 1.0),
    case("set", "\\{1,2\\}", "\\{1,3\\}", 0.5),
    case("set", "\\{\\frac{1}{2}, -1\\}", "\\{-1, 0.5\\}", 1.0),
    case("empty-set", "\\emptyset", "∅", 1.0),
    case("empty-set", "无解", "\\varnothing", 1.0),
    case("empty-set", "no solution", "\\emptyset", 1.0),
    case("empty-set", "\\emptyset", "\\{0\\}", 0.0),
    # units
    case("unit-ref-none", "15m", "15", 1.0),
    case("unit-ref-none", "15 meters", "15", 1.0),
    case("unit-ref-none", "42个", "42", 1.0),
    case("unit-ref-none", "18 apples", "18", 1.0),
    case("unit-ref-none", "12 cm", "13", 0.0),
    case("unit-wrong", "15cm", "15m", 0.0),
    case("unit-wrong", "12米", "12厘米", 0.0),
    case("unit-wrong", "3 kg", "3 g", 0.0),
    case("unit-missing", "15", "15m", 1.0),
    case("unit-missing", "12", "12平方厘米", 1.0),
    case("unit-missing", "16", "15m", 0.0),
    case("unit-format", "180 dm²", "180dm^2", 1.0),
    case("unit-format", "180dm²", "180 dm^2", 1.0),
    case("unit-zh", "12平方厘米", "12 cm^2", 1.0),
    case("unit-zh", "3.5元", "3.5", 1.0),
    case("unit-zh", "5千米", "5km", 1.0),
    case("unit-zh", "2小时", "2 hours", 1.0),
    case("unit-zh", "60千克", "60kg", 1.0),
    case("unit-latex", "5\\text{ cm}", "5 cm", 1.0),
    case("unit-converted", "5cm", "0.05m", 1.0),
    case("unit-converted", "150 分钟", "2.5 小时", 1.0),
    case("unit-converted", "3元", "30角", 1.0),
    case("unit-converted", "500 ml", "0.5 升", 1.0),
    case("unit-converted-wrong-value", "5 cm", "5 m", 0.0),
    case("unit-wrong-kind", "5 kg", "5 m", 0.0),
    case("unit-zh", "12 米", "12m", 1.0),
    case("unit-zh", "12 元", "12", 1.0),
    case("unit-zh-wrong", "12 元", "12 米", 0.0),
    case("unit-en-plural", "25 square units", "25", 1.0),
    case("unit-latex", "5 \\mathrm{cm}", "5cm", 1.0),
    # percent
    case("percent", "50%", "0.5", 1.0),
    case("percent", "0.5", "50\\%", 1.0),
    case("percent", "50", "50%", 1.0),
    case("percent", "50%", "50\\%", 1.0),
    case("percent", "25%", "0.5", 0.0),
    case("percent", "12.5%", "\\frac{1}{8}", 1.0),
    # degrees
    case("degree", "30°", "30", 1.0),
    case("degree", "30^\\circ", "30°", 1.0),
    case("degree", "30^{\\circ}", "\\frac{\\pi}{6}", 1.0),
    case("degree", "π/6", "30°", 1.0),
    case("degree", "45度", "45°", 1.0),
    case("degree", "60°", "30°", 0.0),
    # scientific notation
    case("scientific", "1.2\\times10^{3}", "1200", 1.0),
    case("scientific", "1.2e3", "1200", 1.0),
    case("scientific", "1.2 × 10^3", "1.2e3", 1.0),
    case("scientific", "3\\times 10^{-2}", "0.03", 1.0),
    case("scientific", "1.2\\times10^{4}", "1200", 0.0),
    # or-alternatives (partial credit inside a blank)
    case("or-alternatives", "5", "5 or -75", 0.5),
    case("or-alternatives", "5 or -75", "5 or -75", 1.0),
    case("or-alternatives", "-75 或 5", "5 or -75", 1.0),
    case("or-alternatives", "x=5或x=-75", "5 or -75", 1.0),
    case("or-alternatives", "5, -75", "5 or -75", 1.0),
    case("or-alternatives", "5 or 75", "5 or -75", 0.5),
    case("or-alternatives", "5, 6, 7", "5 or -75", 0.33),
    case("or-alternatives", "x=±3", "3 or -3", 1.0),
    case("or-alternatives", "±\\sqrt{2}", "\\sqrt{2}, -\\sqrt{2}", 1.0),
    case("or-alternatives", "2±√3", "2+√3 或 2-√3", 1.0),
    # coordinates
    case("coordinate", "(5, 0)", "(5,0)", 1.0),
    case("coordinate", "(5, 1)", "(5, 0)", 0.5),
    case("coordinate", "(1, 5)", "(5, 1)", 0.0),
    case("coordinate", "(0.5, \\frac{\\sqrt{3}}{2})", "(\\frac{1}{2}, \\frac{\\sqrt3}{2})", 1.0),
    case("coordinate", "A(1,2)", "(1,2)", 1.0),
    case("coordinate", "(1, 2, 3)", "(1, 2, 4)", 0.67),
    case("coordinate-named", "(x, y) = (2, 3)", "(2, 3)", 1.0),
    case("coordinate-named", "(a, b) = (2, 4)", "(2, 3)", 0.5),
    case("coordinate-named", "x = 2, y = 3", "(2, 3)", 1.0),
    case("coordinate-named", "x = 2, y = 5", "(2, 3)", 0.5),
    case("or-alternatives-named", "x=3 or x=-3", "\\pm 3", 1.0),
    case("or-alternatives-named", "x=3 or x=-3", "3, -3", 1.0),
    case("or-alternatives-named", "3", "x=3 or x=-3", 0.5),
    case("or-alternatives-named", "x_1=3, x_2=-3", "3 or -3", 1.0),
    case("or-alternatives-text", "x = 1 \\text{ or } x = 2", "1, 2", 1.0),
    case("points-connected-by-and", "(1,2)和(3,4)", "(1,2),(3,4)", 1.0),
    case("points-named", "A(1,2), B(3,4)", "(3,4),(1,2)", 1.0),
    # point lists (seed 003 worked example)
    case("points", "(1, 0), (9, 8), (-1, 8)", "(1, 0), (9, 8), (-1, 9)", 0.83),
    case("points", "(1, 0), (9, 8), (-1, 9)", "(1, 0), (9, 8), (-1, 9)", 1.0),
    case("points", "(9, 8), (-1, 9), (1, 0)", "(1, 0), (9, 8), (-1, 9)", 1.0),
    case("points", "(1, 0)", "(1, 0), (9, 8), (-1, 9)", 0.33),
    case("points", "(1,0),(9,8)", "(1,0), (9,8), (-1,9)", 0.67),
    # blanks
    case("blanks", "3; 5", "3; 5", 1.0),
    case("blanks", "3; 4", "3; 5", 0.5),
    case("blanks", "3\n5", "3\n5", 1.0),
    case("blanks", "(1) 3 (2) 5", "(1) 3 (2) 5", 1.0),
    case("blanks", "(1) a=3 (2) b=4", "(1) 3 (2) 5", 0.5),
    case("blanks", "3, 5", "3; 5", 1.0),
    case("blanks", "3", "3; 5", 0.5),
    case("blanks", "3；5", "(1)3；(2)5", 1.0),
    case("blanks", "①2 ②4 ③6", "(1) 2 (2) 4 (3) 7", 0.67),
    case("blanks", "5; 3", "3; 5", 0.0),
    case("blanks", "(1) 5 or -75 (2) (1,0)", "(1) 5 or -75 (2) (1, 0)", 1.0),
    case("blanks", "(1) 5 (2) (1,1)", "(1) 5 or -75 (2) (1, 0)", 0.5),
    # text answers
    case("text", "isosceles", "Isosceles.", 1.0),
    case("text", "等腰三角形", "等腰三角形", 1.0),
    case("text", "equilateral", "isosceles", 0.0),
    case("text", "", "5", 0.0),
]


@pytest.mark.parametrize(("answer", "reference", "expected"), EQUIVALENCE)
def test_math_equal(answer: str, reference: str, expected: float, guard: SympyGuard) -> None:
    assert math_equal(answer, reference, guard) == pytest.approx(expected, abs=0.005)


SYMPY_ONLY = [
    case("sympy-factorial", "5!", "120", True),
    case("sympy-binomial", "binomial(5,2)", "10", True),
    case("sympy-complex", "e^{i\\pi}", "-1", False),  # the evaluator takes i as a variable: not equal
]


@pytest.mark.parametrize(("answer", "reference", "expected"), SYMPY_ONLY)
def test_equalities_beyond_the_fast_path(answer: str, reference: str, expected: bool, guard: SympyGuard) -> None:
    assert answers_equal(answer, reference, guard).equal is expected


EXTRACTION = [
    case("extract-boxed", "So \\boxed{5}.", "5"),
    case("extract-boxed", "\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
    case("extract-boxed-nested", "\\boxed{\\frac{\\sqrt{3}}{2}}", "\\frac{\\sqrt{3}}{2}"),
    case("extract-boxed-all", "(1) \\boxed{3} (2) \\boxed{5}", "3;5"),
    case("extract-boxed-last-wins-over-keywords", "The answer is 4. Actually \\boxed{5}", "5"),
    case("extract-boxed-unclosed", "\\boxed{7", "7"),
    case("extract-fbox", "\\fbox{8}", "8"),
    case("extract-final-answer", "Work... Final answer: 42", "42"),
    case("extract-final-answer", "Answer: 7. Final answer: 8", "8"),
    case("extract-answer-is", "The answer is 5 or -75.", "5 or -75"),
    case("extract-answer-colon", "Answer: 3.5. Done", "3.5"),
    case("extract-answer-zh", "因此，答案是 x=3。", "x=3"),
    case("extract-answer-zh", "答案：12平方厘米", "12平方厘米"),
    case("extract-therefore", "We get 12. Therefore, the area is 12 cm^2.", "12 cm^2"),
    case("extract-so", "3+4 = 7, so 7", "7"),
    case("extract-so-zh", "所以交点为 (1, 0), (9, 8)。", "(1, 0), (9, 8)"),
    case("extract-in-conclusion", "In conclusion, 9", "9"),
    case("extract-zongshang", "综上，$0\\le x\\le 1$", "$0\\le x\\le 1$"),
    case("extract-last-sentence-prose-trimmed", "Some work. The value is 3.5", "3.5"),
    case("extract-last-sentence", "x equals\n\n10", "10"),
    case("extract-think-dropped", "<think>the answer is 4</think>The answer is 5", "5"),
    case("extract-bold", "**Final answer:** 6", "6"),
    # the answer out of its clause: prose before, reasons after
    case("extract-prose-zh-latin", "所以，x 的取值范围是 $(1, 2)$。", "$(1, 2)$"),
    case("extract-prose-zh-latin", "综上所述，实数a的取值范围为a≥1。", "a≥1"),
    case("extract-prose-zh-latin", "所以 m 的值为 2", "2"),
    case("extract-prose-en-math", "Therefore, the value of $k$ is $\\frac{1}{2}$.", "$\\frac{1}{2}$"),
    case("extract-prose-en-math", "Hence, $f(x)$ is increasing on $(0, +\\infty)$.", "$(0, +\\infty)$"),
    case("extract-prose-en", "Thus the answer to part (a) is 4", "4"),
    case("extract-math-run-kept-whole", "所以答案是 $x=1$ 或 $x=2$", "$x=1$ 或 $x=2$"),
    case("extract-math-unit-suffix-kept", "答案是 $5$ 元", "$5$ 元"),
    case("extract-reason-cut", "The answer is 5 because 2+3=5.", "5"),
    case("extract-reason-cut", "The answer is 5 (since 2+3=5).", "5"),
    case("extract-reason-cut", "I think the answer is 5, but I'm not sure.", "5"),
    case("extract-reason-cut-zh", "答案是 6，因为 2×3=6", "6"),
    case("extract-is-the-answer", "So we get 3. Therefore 3 is the answer.", "3"),
    case("extract-is-the-answer", "So, 3 is the answer", "3"),
    case("extract-is-the-answer", "$x=3$ is the final answer.", "$x=3$"),
    case("extract-keyword-without-answer-skipped", "We need the answer. It is 7", "7"),
    case("extract-last-sentence-prose-trimmed", "The roots are x = 2 and x = -2.", "x = 2 and x = -2"),
    case("extract-last-sentence-math-run", "The solution set is $\\{1, 2\\}$.", "$\\{1, 2\\}$"),
    case("extract-last-sentence-math-run", "面积为 $12\\text{ cm}^2$", "$12\\text{ cm}^2$"),
    case("extract-assignment-after-prose", "Solving the system, a = 3", "a = 3"),
    # long chain of thought that changes its mind: the last keyword of the highest tier wins
    case("extract-mind-change", "Final answer: 7. Wait, no. Let me recompute. The final answer is 8.", "8"),
    case("extract-mind-change", "The answer is 4.\nHmm, I dropped a sign.\nSo the answer is -4.", "-4"),
    case("extract-think-boxed-dropped", "<think>\\boxed{4}</think>\nSo 5.", "5"),
    case("extract-think-unclosed", "<think>so the answer is 4, let me verify", ""),
    # numbered parts answered line by line, or listed after "Final answer"
    case("extract-final-answer-list", "Final answer:\n(1) 3\n(2) 5", "3;5"),
    case("extract-final-answer-list", "**Final Answer**\n1. $x = 3$\n2. $y = 5$", "$x = 3$;$y = 5$"),
    case("extract-numbered-parts", "(1) The answer is 3.\n(2) The answer is 5.", "3;5"),
    case("extract-numbered-parts", "解：(1) 由题意得 a=3\n(2) 所以 b=5", "a=3;b=5"),
    case("extract-numbered-parts", "(1) Solving, a = 3.\n(2) Then b = 5.", "a = 3;b = 5"),
    case(
        "extract-boxed-nested-braces",
        "\\boxed{\\frac{\\sqrt{\\frac{1}{2}}}{\\left(1+\\sqrt{2}\\right)}}",
        "\\frac{\\sqrt{\\frac{1}{2}}}{\\left(1+\\sqrt{2}\\right)}",
    ),
    case("extract-boxed-dfrac", "The answer is $\\boxed{\\dfrac{1}{2}}$.", "\\dfrac{1}{2}"),
]


# How many blanks the reference has decides whether numbered parts are read one by one.
PARTS = [
    case("parts-one-blank-reads-final-line", "(1) 2+2=4\n(2) so the total is 9", 1, "9"),
    case("parts-several-blanks-read-each", "(1) a = 3\n(2) b = 5\nFinal answer: 5", 2, "a = 3;5"),
    case("parts-one-line-per-blank", "Working shown above.\n3\n5", 2, "3;5"),
    case("parts-one-line-per-blank-not-for-one-blank", "3\n5", 1, "5"),
    case("parts-unknown-final-answer-first", "(1) a = 3\n(2) b = 5\nFinal answer: 5", None, "5"),
]


@pytest.mark.parametrize(("reply", "parts", "expected"), PARTS)
def test_extract_math_answer_parts(reply: str, parts: int | None, expected: str) -> None:
    assert extract_math_answer(reply, parts)[0] == expected


@pytest.mark.parametrize(("reply", "expected"), EXTRACTION)
def test_extract_math_answer(reply: str, expected: str) -> None:
    assert extract_math_answer(reply)[0] == expected


def test_extract_empty_reply() -> None:
    assert extract_math_answer("") == ("", "empty reply")
    assert extract_math_answer(None) == ("", "empty reply")


@pytest.mark.parametrize("reply", ["<think>the answer is 4", "<think>x</think>", ""])
def test_no_answer_is_said_once(reply: str) -> None:
    result = score_math(reply, Item("Q", "4"))
    assert result.score == 0.0
    assert result.analysis.count("no answer found") == 1


BLANKS = [
    case("blank-split-semicolon", "3; 5", ["3", "5"]),
    case("blank-split-fullwidth-semicolon", "3；5", ["3", "5"]),
    case("blank-split-newline", "3\n5", ["3", "5"]),
    case("blank-split-numbered", "(1) 3 (2) 5", ["3", "5"]),
    case("blank-split-numbered-fullwidth", "（1）3（2）5", ["3", "5"]),
    case("blank-split-circled", "①x=1②x=2", ["x=1", "x=2"]),
    case("blank-keep-point", "(1,2)", ["(1,2)"]),
    case("blank-keep-single-number-marker", "(1)", ["(1)"]),
]


@pytest.mark.parametrize(("text", "expected"), BLANKS)
def test_split_blanks(text: str, expected: list[str]) -> None:
    assert split_blanks(text) == expected


ITEMS = [
    case("item-proof", "证明如下……", "略", {"question_type": "证明题"}, "", 1.0),
    case("item-proof-en", "", "n/a", {"question_type": "proof"}, "", 1.0),
    case("item-drawing", "see figure", "图略", {"question_type": "作图"}, "", 1.0),
    case("item-choice-rule", "\\boxed{B}", "B", {}, "Q\nA. 1\nB. 2\nC. 3\nD. 4", 1.0),
    case("item-choice-rule", "Option B. 2", "B", {}, "Q\nA. 1\nB. 2\nC. 3\nD. 4", 1.0),
    case("item-choice-rule-wrong", "\\boxed{C}", "B", {}, "Q\nA. 1\nB. 2\nC. 3\nD. 4", 0.0),
    case("item-empty-reply-wrong", "", "5", {}, "Q", 0.0),
    case("item-gsm8k-reference", "The answer is 7", "3+4=7\n#### 7", {}, "Q", 1.0),
    case("item-boxed-reference", "so 7", "\\boxed{7}", {}, "Q", 1.0),
    case("item-pathological-tower", "\\boxed{9^{9^{9^{9}}}}", "1", {}, "Q", 0.0),
    case("item-pathological-long", "\\boxed{" + "x+" * 500 + "1}", "1", {}, "Q", 0.0),
]


@pytest.mark.parametrize(("reply", "reference", "meta", "question", "expected"), ITEMS)
def test_score_math_item(
    reply: str, reference: str, meta: dict[str, Any], question: str, expected: float, guard: SympyGuard
) -> None:
    result = score_math(reply, Item(question, reference, meta), guard)
    assert result.score == expected
    assert result.analysis.startswith("math")


def test_proof_items_are_flagged() -> None:
    result = score_math("…", Item("证明", "略", {"question_type": "证明题"}))
    assert "flag: proof-or-drawing" in result.analysis


def test_partial_credit_has_two_decimals() -> None:
    result = score_math("(1, 0), (9, 8), (-1, 8)", Item("Q", "(1, 0), (9, 8), (-1, 9)"))
    assert result.score == 0.83


SAFE = [
    case("sympy-screen-ok", "x**2+1", True),
    case("sympy-screen-tower", "9**9**9**9", False),
    case("sympy-screen-paren-tower", "9**(9**9)", False),
    case("sympy-screen-huge-exponent", "2**100000", False),
    case("sympy-screen-huge-literal", "12345678901234567890", False),
    case("sympy-screen-dunder", "__import__(1)", False),
    case("sympy-screen-quotes", "'a'", False),
    case("sympy-screen-attribute", "x.func", False),
    case("sympy-screen-unknown-name", "lambdax", False),
    case("sympy-screen-too-long", "x+" * 150 + "1", False),
]


@pytest.mark.parametrize(("expr", "expected"), SAFE)
def test_sympy_screen(expr: str, expected: bool) -> None:
    assert sympy_safe(expr) is expected


def test_sympy_time_limit_returns_unsettled_and_the_worker_recovers() -> None:
    # 60 s: a limit no comparison reaches however loaded the machine (the test is of 0.05 s, and recovery)
    g = SympyGuard(timeout=60.0)
    try:
        assert g.equal("x", "x") is True  # warm the worker up
        g.timeout = 0.05
        slow = "sin(x)**10*cos(x)**9 + tan(x)**7*sin(x)**3"
        verdict = g.equal(slow, "sin(x)*cos(x)")
        assert verdict in (None, False)
        assert g.equal("x**2-1", "(x-1)*(x+1)") in (True, None)
        g.timeout = 60.0
        assert g.equal("2*x", "x+x") is True
    finally:
        g.close()


def test_worker_killed_on_hard_timeout_then_restarted() -> None:
    g = SympyGuard(timeout=60.0)  # no comparison here reaches it, however loaded the machine
    try:
        assert g.equal("x", "x") is True
        proc = g._proc
        assert proc is not None
        proc.kill()  # a worker that died (or hung and was killed) is replaced on the next call
        proc.wait(60)
        assert g.equal("x+x", "2*x") in (True, None)
        assert g.equal("x*3", "3*x") is True
        assert g._proc is not None and g._proc is not proc and g.timeouts == 0
    finally:
        g.close()


#: A worker stuck in C code: it starts, reads the item, and answers only two minutes later (``true``, a
#: wrong answer for ``x`` against ``y``); no alarm reaches it.
_HANGING_WORKER = [
    sys.executable,
    "-c",
    "import sys, time; print('ready', flush=True); sys.stdin.readline(); time.sleep(120); print('true', flush=True)",
]


def test_a_hung_worker_is_killed_at_the_time_limit() -> None:
    # The start-up allowance is generous (a loaded machine starts Python slowly; it is not the item's time).
    # A guard that waited for the worker would get its late "true": None says it stopped waiting.
    g = SympyGuard(timeout=0.3, startup_allowance=60.0, command=_HANGING_WORKER)
    try:
        assert g.equal("x", "y") is None
        assert g.timeouts == 1
        assert g._proc is None  # killed; the next call starts a fresh worker
    finally:
        g.close()


def test_no_sympy_means_unsettled_not_wrong_answers_crash() -> None:
    result = score_math("\\boxed{binomial(5,2)}", Item("Q", "10"), None)
    assert result.score == 0.0


# Partial credit decided part by part is settled: the math judge gets only what the rules cannot decide.
DECIDED_BY_PARTS = [
    case("parts-settled-coordinate", "(5,1)", "(5,0)", 0.5),
    case("parts-settled-coordinate", "(6,2)", "(5,0)", 0.0),
    case("parts-settled-points", "(1,0), (9,8)", "(1, 0), (9, 8), (-1, 9)", 0.67),
    case("parts-settled-seed-003", "(1) 3 (2) 5 or -75 (3) (1,0)", "(1) 3\n(2) 5 or -75\n(3) (1, 0), (9, 8)", 0.83),
    case("parts-settled-alternatives", "5", "5 or -75", 0.5),
]


@pytest.mark.parametrize(("reply", "reference", "expected"), DECIDED_BY_PARTS)
def test_partial_credit_decided_part_by_part_is_settled(
    reply: str, reference: str, expected: float, guard: SympyGuard
) -> None:
    result = score_math(reply, Item("Q", reference), guard)
    assert result.score == expected
    assert result.settled, result.analysis
    assert "not settled" not in result.analysis
