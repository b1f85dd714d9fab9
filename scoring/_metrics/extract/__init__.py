"""Answer extraction from model replies: choice letters and yes/no, numbers, math final answers."""

from scoring._metrics.extract.choice import (
    ChoiceExtraction,
    extract_choice,
    extract_yes_no,
    option_letters,
    parse_choice_reference,
    parse_yes_no,
)
from scoring._metrics.extract.math import boxed_contents, extract_math_answer
from scoring._metrics.extract.numeric import extract_number, reference_number

__all__ = [
    "ChoiceExtraction",
    "boxed_contents",
    "extract_choice",
    "extract_math_answer",
    "extract_number",
    "extract_yes_no",
    "option_letters",
    "parse_choice_reference",
    "parse_yes_no",
    "reference_number",
]
