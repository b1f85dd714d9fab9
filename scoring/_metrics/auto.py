"""``--metric auto``: pick each record's metric from its reference (and options), and say why.

A mixed upload (choice, numbers, math and free text in one file, a normal "综合" set) is scored record by
record: option letters or yes/no (a kind of its own, read as yes/no) → ``choice``; free text in either
language, or no reference → ``judge-needed`` (left unscored with the reason, never 0); a number, a short
answer or an expression → ``math`` when the dataset holds math expressions (its numbers and short answers
then get math's units, blanks and partial credit), else ``exact``. That last choice needs the dataset's
references first, which is why ``auto`` reads them in a pass of their own (:class:`AutoTally`); each dataset
keeps a summary of what was chosen and why.

This module sorts references into kinds (:func:`reference_kind`); which metric scores each kind, and why,
is read off the metric table (:mod:`scoring._metrics.registry`: ``auto_for``, ``auto_takes``, ``auto_reason``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from formatkit.messages import Msg
from scoring._metrics.base import Item
from scoring._metrics.choice import YES_NO, choice_key
from scoring._metrics.extract.choice import option_letters, reference_letters
from scoring._metrics.extract.numeric import reference_number
from scoring._metrics.normalize import DATE_OR_RANGE, normalize_text
from scoring._metrics.registry import JUDGE_NEEDED, MetricSpec, auto_specs

__all__ = ["JUDGE_NEEDED", "AutoTally", "MetricChoice", "choose_metric", "reference_kind"]

#: Strong signs of a math answer: LaTeX, powers, roots, intervals, inequalities, ±, unions.
_STRONG_MATH = re.compile(r"\\[a-zA-Z]+|\$|\^|√|π|∞|[<>≤≥≠±∓∪∩∈]|[([]\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*[)\]]")
#: Weaker signs: a fraction, an assignment (``x = 3``), a circled blank number.
_WEAK_MATH = re.compile(r"\d\s*/\s*\d|[a-zA-Z]\s*=\s*-?\d|[①②③④⑤⑥⑦⑧⑨⑩]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
#: A clause break inside Chinese prose: full-width comma/stop/semicolon/!/? between two CJK characters.
_CJK_CLAUSE = re.compile(r"[\u3400-\u9fff][，。；！？,;][\u3400-\u9fff]")
_WORD = re.compile(r"[A-Za-z]{2,}")
#: Two English sentences: a word, a full stop (or ! ?), then a capitalised word.
_TWO_SENTENCES = re.compile(r"[a-z]{2}[.!?]\s+[A-Z][a-z]")

#: Longest Chinese answer (in CJK characters) still compared as a short answer.
MAX_SHORT_CJK = 16
#: Longest English answer (in words) still compared as a short answer.
MAX_SHORT_WORDS = 10


def _is_free_text(ref: str) -> bool:
    cjk = len(_CJK.findall(ref))
    if cjk > MAX_SHORT_CJK or (cjk and _CJK_CLAUSE.search(ref)):
        return True
    return len(_WORD.findall(ref)) > MAX_SHORT_WORDS or _TWO_SENTENCES.search(ref) is not None or len(ref) > 200


def _letter_past_the_options(item: Item, ref: str) -> bool:
    """A letter reference beyond the options the question shows (``D`` with only A–C read, one lost in the
    PDF's text): still a choice item, which ``choice`` calls unscorable, never a short answer for ``math``'s
    partial credit (``C 和 D`` against ``D`` is no half answer)."""
    letters = reference_letters(ref)
    return letters is not None and len(letters) == 1 and bool(option_letters(item.question))


def reference_kind(item: Item) -> str:
    """``choice`` (option letters), ``yes-no``, ``number``, ``math``, ``short``, ``long`` (free text) or
    ``missing``."""
    ref = (item.reference or "").strip()
    if not ref:
        return "missing"
    key = choice_key(item)
    if key is not None and key[0] == YES_NO:
        return YES_NO  # read as yes/no: the marker's word, "No," opening the reply, negations as such
    if key is not None or _letter_past_the_options(item, ref):
        return "choice"
    if reference_number(ref) is not None:
        return "number"
    if not normalize_text(ref):
        return "short"  # ") ] >": an answer made of symbols (a bracket completion), compared as it is, no math
    if DATE_OR_RANGE.fullmatch(ref):
        return "short"  # 2023/01/05 is a date, not a division: exact, not math for the whole dataset
    cjk = len(_CJK.findall(ref))
    if _STRONG_MATH.search(ref) and cjk <= 40 and len(_WORD.findall(ref)) <= 2 * MAX_SHORT_WORDS:
        return "math"
    if _is_free_text(ref):
        return "long"
    if _WEAK_MATH.search(ref) and len(_WORD.findall(ref)) <= 1:
        return "math"  # "3/4 cup" is math; "winter 406/5 BC" is words around a year written as 406/5
    return "short"


@dataclass(frozen=True)
class MetricChoice:
    metric: str
    reason: str
    #: The reason as a catalogue message, when it has one (a printed line says it in ``--lang``; files keep
    #: ``reason``, in English).
    message: Msg | None = field(default=None, compare=False)

    def said(self, lang: str) -> str:
        """The reason in ``lang``."""
        return self.reason if self.message is None else self.message.render(lang)


_FREE_TEXT = MetricChoice(JUDGE_NEEDED, "the reference is free text: a judge is needed (--metric judge)")
_MISSING = MetricChoice(JUDGE_NEEDED, "there is no reference to compare with")


@dataclass(frozen=True)
class _Picks:
    """What ``auto`` may pick, read off the metric table (``auto_for``, ``auto_takes``, ``auto_reason``)."""

    #: A reference kind → the metric that scores it.
    by_kind: dict[str, MetricChoice]
    #: (the kinds a metric scores, the further kinds it takes over when the dataset holds those, the choice).
    takeovers: tuple[tuple[frozenset[str], frozenset[str], MetricChoice], ...]

    @classmethod
    def of(cls, specs: tuple[MetricSpec, ...]) -> _Picks:
        by_kind: dict[str, MetricChoice] = {}
        takeovers = []
        for spec in specs:
            choice = MetricChoice(spec.name, spec.auto_reason)
            for kind in spec.auto_for:
                by_kind.setdefault(kind, choice)
            if spec.auto_takes:
                takeovers.append((spec.auto_for, spec.auto_takes, choice))
        by_kind.setdefault("long", _FREE_TEXT)
        by_kind.setdefault("missing", _MISSING)
        return cls(by_kind, tuple(takeovers))


_PICKS: list[tuple[tuple[MetricSpec, ...], _Picks]] = []


def _picks() -> _Picks:
    specs = auto_specs()
    if not _PICKS or _PICKS[0][0] is not specs:
        _PICKS[:] = [(specs, _Picks.of(specs))]
    return _PICKS[0][1]


@dataclass
class AutoTally:
    """The kinds of one dataset's references (first pass), and the metric each record gets (second pass)."""

    kinds: Counter[str] = field(default_factory=Counter)
    chosen: Counter[str] = field(default_factory=Counter)

    def add(self, item: Item) -> None:
        """First pass: count the kind of ``item``'s reference."""
        self.kinds[reference_kind(item)] += 1

    def choose(self, item: Item) -> MetricChoice:
        """Second pass: the metric for ``item`` given its dataset's references."""
        pick = self._pick(reference_kind(item))
        self.chosen[pick.metric] += 1
        return pick

    def _pick(self, kind: str) -> MetricChoice:
        picks = _picks()
        for own, takes, choice in picks.takeovers:
            if kind in takes and any(self.kinds[k] for k in own):
                return choice
        pick = picks.by_kind.get(kind)
        if pick is None:
            return MetricChoice(JUDGE_NEEDED, f"no metric of the table scores a {kind} reference")
        return pick

    def summary(self) -> MetricChoice:
        """The dataset's metric (``mixed`` when its records differ) and the reason, with the counts."""
        chosen = self.chosen or self._planned()
        if not chosen:
            return MetricChoice(JUDGE_NEEDED, "no records")
        shown = ", ".join(f"{n} {k}" for k, n in self.kinds.most_common())
        if len(chosen) > 1:
            per_metric = ", ".join(f"{n} {m}" for m, n in chosen.most_common())
            return MetricChoice("mixed", f"chosen per record: {per_metric} (references: {shown})")
        (metric,) = chosen
        if metric == JUDGE_NEEDED:
            message = Msg("ui.auto.free_text", kinds=shown)
            return MetricChoice(JUDGE_NEEDED, message.render(), message)
        return MetricChoice(metric, f"chosen per record from the references ({shown})")

    def _planned(self) -> Counter[str]:
        """What :meth:`choose` would pick for the counted references (before the second pass)."""
        planned = Counter[str]()
        for kind, count in self.kinds.items():
            planned[self._pick(kind).metric] += count
        return planned


def choose_metric(items: Iterable[Item]) -> MetricChoice:
    """The summary of what ``auto`` chooses for a dataset's items."""
    tally = AutoTally()
    for item in items:
        tally.add(item)
    return tally.summary()
