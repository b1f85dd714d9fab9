"""The math metric: extraction, equivalence (fast paths, then guarded sympy), partial credit."""

from scoring._metrics.math.equal import Equality, answers_equal
from scoring._metrics.math.partial import blank_credit, components, split_blanks
from scoring._metrics.math.score import is_proof_item, math_credit, math_equal, score_math
from scoring._metrics.math.sympy_guard import SympyGuard, default_guard, sympy_safe

__all__ = [
    "Equality",
    "SympyGuard",
    "answers_equal",
    "blank_credit",
    "components",
    "default_guard",
    "is_proof_item",
    "math_credit",
    "math_equal",
    "score_math",
    "split_blanks",
    "sympy_safe",
]
