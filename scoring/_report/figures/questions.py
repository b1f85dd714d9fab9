"""The records of several models, question by question: what the HTML comparison view and the xlsx
"Questions" sheet show.

A question is one item of one dataset, identified as the paired differences identify it
(:func:`~scoring._report.figures.aggregate.record_key`: session_id, system and user turns, reference; the same
item twice in a file pairs in order). Each model's responses to it sit side by side, with their scores
and extracted answers, and the question knows whether the models disagree.

Texts are kept once: every distinct string (a five-shot prefix repeated in every record, the question
both models were asked) is stored in one table and referred to by number, and a conversation's earlier
turns (its prefix) are one entry of a second table. A report of 3,000 questions × 2 models holds each
shared text once instead of once per model and card.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from formatkit._core.judge_entry import judge_entry, judge_orders, judge_scale, judge_status, panel_seats, shown_fields
from formatkit._core.record import RecordDict, reference_of, response_entries
from scoring._judges.kinds import kind_of
from scoring._report.figures.aggregate import record_key
from scoring._results import judge_verdicts

__all__ = [
    "MAX_QUESTIONS",
    "MAX_SAMPLES",
    "OUTCOMES",
    "Answer",
    "Question",
    "SampleCollector",
    "fraction",
    "outcome_of",
]

#: Questions kept (each with every model's answer); records of further questions are counted, not kept,
#: and the page and the sheet say how many. A cap on questions, not records: the second model's answers
#: to the questions kept are never the ones left out.
MAX_QUESTIONS = 10_000
MAX_SAMPLES = MAX_QUESTIONS  # the name before questions were grouped
OUTCOMES = ("right", "partial", "wrong", "unscorable")


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def fraction(response: Mapping[str, Any]) -> float | None:
    """A response's score on 0–1 (a judge's scale such as 0-2 mapped onto it); None when unscored."""
    score = response.get("score")
    if not isinstance(score, int | float) or isinstance(score, bool):
        return None
    judge = judge_entry(response)
    kind = kind_of(judge)
    if kind is not None and kind.on_scale:
        scale = (judge_scale(judge) or "0-1").split("-")
        try:
            low, high = float(scale[0]), float(scale[-1])
            return (float(score) - low) / (high - low) if high > low else None
        except ValueError:
            return None
    return float(score)


def outcome_of(values: list[float | None]) -> str:
    """right (mean 1), wrong (mean 0 or below), partial, or unscorable (no score)."""
    scored = [v for v in values if v is not None]
    if not scored:
        return "unscorable"
    mean = sum(scored) / len(scored)
    return "right" if mean >= 1.0 else "wrong" if mean <= 0.0 else "partial"


def _verdicts(response: Mapping[str, Any]) -> str:
    """The judge's verdicts as short lines: the entry's first fields, each order's choice for pairwise and,
    with a panel, every judge's verdict and its reasons (the combined verdict's are the response's analysis)."""
    judge = judge_entry(response)
    if judge is None:
        return ""
    lines = [f"{key}: {value}" for key, value in shown_fields(judge)]
    for order in judge_orders(judge):
        lines.append("order " + ", ".join(f"{k}={v}" for k, v in order.items() if k in ("order", "choice", "value")))
    seats = panel_seats(judge)
    for seat, verdict in zip(seats, judge_verdicts(response), strict=False):
        said = verdict.verdict if verdict.verdict is not None else judge_status(seat) or "–"
        shown = f"{said:g}" if isinstance(said, float) else str(said)
        again = f" (repeats {', '.join(f'{r:g}' if isinstance(r, float) else str(r) for r in verdict.repeats)})"
        lines.append(f"{verdict.judge}: {shown}{again if verdict.repeats else ''}")
        if verdict.rationale:
            lines.append(f"  {verdict.rationale}")
    return "\n".join(lines)


#: A sample's texts the report shows (each a string-table number).
SampleText = Literal["content", "answer", "metric", "analysis", "error"]


class Sample(TypedDict):
    """One response as the report keeps it: texts are string-table numbers."""

    content: int
    score: float | None
    fraction: float | None
    outcome: str
    metric: int
    answer: int
    analysis: int
    error: int
    verdicts: int
    unsettled: bool


@dataclass
class Answer:
    """One model's responses to one question. Text fields are string-table numbers."""

    history: int  # the conversation before the question (a prefix-table number): models may differ in it
    responses: list[Sample]
    score: float | None  # mean of the responses' 0–1 scores; None when none was scored
    outcome: str


@dataclass
class Question:
    """One item and every model's answer to it (by model number)."""

    dataset: int
    session_id: str
    question: int
    reference: int
    answers: dict[int, Answer] = field(default_factory=dict)

    @property
    def spread(self) -> float:
        """Highest minus lowest model score (0 when fewer than two models scored it)."""
        scores = [a.score for a in self.answers.values() if a.score is not None]
        return max(scores) - min(scores) if len(scores) > 1 else 0.0

    @property
    def disagree(self) -> bool:
        """Whether the models' outcomes differ (a model with no answer does not count)."""
        return len({a.outcome for a in self.answers.values()}) > 1


@dataclass
class SampleCollector:
    """Keeps the records of up to :data:`MAX_QUESTIONS` questions, grouped by question; counts the rest."""

    strings: list[str] = field(default_factory=list)
    prefixes: list[tuple[tuple[int, int], ...]] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    samples: int = 0
    left_out: int = 0
    _string_ids: dict[str, int] = field(default_factory=dict, repr=False)
    _prefix_ids: dict[tuple[tuple[int, int], ...], int] = field(default_factory=dict, repr=False)
    _model_ids: dict[str, int] = field(default_factory=dict, repr=False)
    _question_ids: dict[tuple[str, int, int], int] = field(default_factory=dict, repr=False)
    _seen: dict[tuple[int, str, int], int] = field(default_factory=dict, repr=False)

    def text(self, value: Any) -> int:
        """The string-table number of ``value`` (as text), adding it when new."""
        text = _text(value)
        number = self._string_ids.get(text)
        if number is None:
            number = self._string_ids[text] = len(self.strings)
            self.strings.append(text)
        return number

    def _prefix(self, turns: tuple[tuple[int, int], ...]) -> int:
        number = self._prefix_ids.get(turns)
        if number is None:
            number = self._prefix_ids[turns] = len(self.prefixes)
            self.prefixes.append(turns)
        return number

    def model(self, name: str) -> int:
        number = self._model_ids.get(name)
        if number is None:
            number = self._model_ids[name] = len(self.models)
            self.models.append(name)
        return number

    def add(self, record: RecordDict, model: str, dataset: str) -> None:
        model_id = self.model(model)
        key = record_key(record)
        # The same item twice in one model's file pairs with the other model's in order (as the differences do).
        seen = self._seen.get((model_id, dataset, key), 0) + 1
        self._seen[(model_id, dataset, key)] = seen
        number = self._question_ids.get((dataset, key, seen))
        if number is None and len(self.questions) >= MAX_QUESTIONS:
            self.left_out += 1
            return
        self.samples += 1
        messages = [m for m in record.get("messages") or [] if isinstance(m, dict)]
        history = [(self.text(m.get("role")), self.text(m.get("content"))) for m in messages[:-1]]
        question = history.pop()[1] if history and self.strings[history[-1][0]] == "user" else self.text("")
        if number is None:
            number = self._question_ids[(dataset, key, seen)] = len(self.questions)
            self.questions.append(
                Question(
                    self.text(dataset),
                    _text(record.get("session_id")),
                    question,
                    self.text(reference_of(record)),
                )
            )
        raw = response_entries(record)
        responses: list[Sample] = []
        values = []
        for response in raw:
            value = fraction(response)
            values.append(value)
            responses.append(
                {
                    "content": self.text(response.get("content")),
                    "score": response.get("score") if value is not None else None,
                    "fraction": value,
                    "outcome": outcome_of([value]),
                    "metric": self.text(response.get("metric")),
                    "answer": self.text(response.get("answer")),
                    "analysis": self.text(response.get("analysis")),
                    "error": self.text(response.get("error")),
                    "verdicts": self.text(_verdicts(response)),
                    "unsettled": response.get("settled") is False,
                }
            )
        scored = [v for v in values if v is not None]
        self.questions[number].answers[model_id] = Answer(
            self._prefix(tuple(history)),
            responses,
            sum(scored) / len(scored) if scored else None,
            outcome_of(values),
        )
