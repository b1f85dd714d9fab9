"""``formatkit judge-check SCORED --human LABELS`` as a library call: each judge's verdicts against people's.

``SCORED`` is a scored results file (canonical jsonl, as ``score`` or ``eval`` write it). ``LABELS`` is
one of:

* a jsonl of labels, one ``{"dataset"?, "session_id", "human"}`` a line: ``human`` a number on the
  judge's scale, or for a pairwise judge ``A`` (the model's response is better), ``B`` (the other one
  is), ``tie`` — ``win``/``loss``/``tie`` from the model's side too;
* a spreadsheet ``export`` wrote and a reviewer filled the ``human_score`` column of (a pairwise
  ``human_score`` counts by its sign, as the pairwise score does: above 0 a win, 0 a tie);
* a results file whose responses hold a ``human_score`` (``score`` of such a spreadsheet).

A label finds its record by dataset and session id (without a dataset, by session id when only one
dataset has it; a record renumbered by ``export`` by its ``original_session_id``). Each judge's verdict
is read with :func:`scoring._results.judge_verdicts` (the first sample of each record); a record the judge
gave no verdict counts as ``void`` and stays out of the pairs, and a verdict given on another text than the
response holds now (edited after judging: stale) is left out and counted as ``stale``.

Every label is checked like any input: a label off the judge's scale, not a number (or not A/B/tie for a
comparison), not finite, a second label for one response, or one matching no record is a problem naming its
place (the file and line, or the sheet's row); with any, :class:`~scoring._errors.BadLabelsError` is raised
and nothing computed, unless ``skip_bad_labels`` leaves them out (counted as ``skipped``). Statistics:
:mod:`scoring._judge_check.agreement`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from formatkit._core.judge_entry import stale_verdict_of
from formatkit._core.messages import Msg
from formatkit._core.record import RecordDict, target_responses
from scoring._errors import BadLabelsError, ResultsFileError
from scoring._judge_check.agreement import Agreement, Label, Weights, agreement, position_bias
from scoring._judges.scale import parse_scale
from scoring._report.figures.calibration import Calibration, JudgeKappa
from scoring._results import JudgeVerdict, compares, dataset_of, judge_verdicts, read_results, results_lines

__all__ = ["JudgeCheck", "JudgeStats", "judge_calibration", "judge_check"]

StrPath = str | os.PathLike[str]

_PAIRWISE_LABELS = {"a": "win", "win": "win", "b": "loss", "loss": "loss", "tie": "tie", "a=b": "tie", "平": "tie"}


@dataclass
class JudgeStats:
    """One judge's agreement with the labels, overall and per dataset."""

    judge: str
    overall: Agreement
    void: int
    swap_consistency: float | None
    self_consistency: float | None
    by_dataset: dict[str, JudgeStats] = field(default_factory=dict)
    position_bias: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        a = self.overall
        out: dict[str, Any] = {
            "judge": self.judge,
            "n": a.n,
            "agreement": _round(a.agreement),
            "kappa": _round(a.kappa),
            "kappa_ci": None if a.kappa_ci is None else [_round(a.kappa_ci[0]), _round(a.kappa_ci[1])],
            "kappa_weights": a.weights,
            "confusion": a.confusion,
            "void": self.void,
            "swap_consistency": _round(self.swap_consistency),
            "self_consistency": _round(self.self_consistency),
            "length_correlation": _round(a.length_correlation),
            "length_correlation_ci": [_round(v) for v in a.length_correlation_ci] if a.length_correlation_ci else None,
            "position_bias": self.position_bias,
        }
        if self.by_dataset:
            out["by_dataset"] = {name: stats.to_dict() for name, stats in self.by_dataset.items()}
        return out


@dataclass
class JudgeCheck:
    """What :func:`judge_check` found: each judge's stats (a panel's last, as ``panel``), the labels read
    and how many found no record."""

    judges: dict[str, JudgeStats]
    labels: int
    unmatched: int
    #: Labelled responses whose verdicts were given on another text (edited after judging): left out.
    stale: int = 0
    #: The labels that cannot be used, each a problem naming its place: left out (``skip_bad_labels``), or
    #: the reason the check was ``refused``.
    skipped: list[Msg] = field(default_factory=list)
    #: Labels could not be used and were not skipped: nothing was computed (``raise_bad_labels=False``).
    refused: bool = False

    @property
    def headline(self) -> JudgeStats | None:
        """The stats the summary leads with: the panel's, or the one judge's."""
        return list(self.judges.values())[-1] if self.judges else None

    def to_dict(self) -> dict[str, Any]:
        """``judge-check --json``: the headline judge's keys (n, agreement, kappa, kappa_ci, confusion,
        by_dataset, ...), ``labels`` and ``unmatched``, and ``judges`` (every judge) with a panel."""
        head = self.headline
        out: dict[str, Any] = head.to_dict() if head is not None else {"n": 0, "agreement": None, "kappa": None}
        out.setdefault("by_dataset", {})
        out["labels"] = self.labels
        out["unmatched"] = self.unmatched
        out["stale"] = self.stale
        out["skipped_labels"] = len(self.skipped)
        if len(self.judges) > 1:
            out["judges"] = {name: stats.to_dict() for name, stats in self.judges.items()}
        return out


def _round(value: float | None) -> float | None:
    """Four decimals; None for none, and for a value JSON cannot hold (NaN, ±inf)."""
    return None if value is None or not math.isfinite(value) else round(value, 4)


def _session(record: Mapping[str, Any]) -> Any:
    meta = record.get("meta")
    if isinstance(meta, dict) and meta.get("original_session_id") is not None:
        return meta["original_session_id"]
    return record.get("session_id")


@dataclass(frozen=True)
class _Label:
    dataset: str | None
    session: Any
    human: Any
    where: str


def _labels(path: StrPath) -> list[_Label]:
    """The labels of ``path`` (a jsonl of labels or of records with ``human_score``, or a spreadsheet)."""
    out: list[_Label] = []
    if Path(path).suffix.lower() != ".jsonl":
        from formatkit import iter_dicts

        stem = Path(path).stem
        for n, record in enumerate(iter_dicts(path, mode="scored", profile="none"), 1):
            out += _record_labels(record, stem, _cell(path, record, n))
        return out
    stem = Path(path).stem
    for read in results_lines(path):
        where = f"{path}: line {read.number}"
        if read.problem == "not_json":
            raise ResultsFileError(f"{where} is not JSON ({read.detail})")
        if read.record is not None:
            out += _record_labels(read.record, stem, where)
            continue
        line = read.data
        if not isinstance(line, dict) or "session_id" not in line or "human" not in line:
            raise ResultsFileError(f'{where}: expected {{"dataset"?, "session_id", "human"}}')
        dataset = line.get("dataset")
        out.append(_Label(str(dataset) if dataset is not None else None, line["session_id"], line["human"], where))
    return out


def _cell(path: StrPath, record: RecordDict, n: int) -> str:
    """Where a sheet's record holds its ``human_score``: the sheet and row of its target turn."""
    meta = record.get("meta")
    source = meta.get("source") if isinstance(meta, dict) else None
    rows = source.get("rows") if isinstance(source, dict) else None
    if isinstance(rows, list) and rows:
        sheet = source.get("sheet") if isinstance(source, dict) else None
        return f"{path}: {f'sheet {sheet}, ' if sheet else ''}row {rows[-1]}, human_score"
    return f"{path}: record {n}"


def _record_labels(record: RecordDict, stem: str, where: str) -> list[_Label]:
    responses = target_responses(record)
    human = cast(Mapping[str, Any], responses[0]).get("human_score") if responses else None
    if human is None:
        return []
    meta = record.get("meta")
    dataset = dataset_of(record, stem) if isinstance(meta, dict) and meta.get("dataset") else None
    return [_Label(dataset, _session(record), human, where)]


def _human(value: Any, verdict: JudgeVerdict | None, where: str) -> Label | Msg:
    """A label as the judge's verdicts are (a number on the scale, or win/tie/loss for a comparison), or
    the problem that keeps it out (named by its place ``where``)."""
    shown = repr(value) if not isinstance(value, str) else f'"{value[:40]}"'
    if verdict is not None and compares(verdict.kind):
        if isinstance(value, int | float) and not isinstance(value, bool):
            if not math.isfinite(value):
                return Msg("frag.label.not_finite", where=where, value=shown)
            if not -1 <= value <= 1:
                return Msg("frag.label.out_of_scale", where=where, value=shown, scale="-1..1")
            return "win" if value > 0 else "loss" if value < 0 else "tie"
        label = _PAIRWISE_LABELS.get(str(value).strip().casefold())
        if label is None:
            return Msg("frag.label.not_pairwise", where=where, value=shown)
        return label
    if isinstance(value, bool):
        return Msg("frag.label.not_a_number", where=where, value=shown)
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return Msg("frag.label.not_a_number", where=where, value=shown)
    if not math.isfinite(number):
        return Msg("frag.label.not_finite", where=where, value=shown)
    scale = _scale(verdict)
    if scale is not None and not scale[0] <= number <= scale[1]:
        return Msg("frag.label.out_of_scale", where=where, value=shown, scale=f"{scale[0]:g}-{scale[1]:g}")
    return number


def _scale(verdict: JudgeVerdict | None) -> tuple[float, float] | None:
    """The judge's scale (low, high): 0..1 for a kind on no scale of its own (the math judge: right or
    wrong); None when no judge gave a verdict to go by, or its scale does not parse."""
    if verdict is None:
        return None
    if verdict.scale is None:
        return 0.0, 1.0
    try:
        found = parse_scale(verdict.scale)
    except ValueError:
        return None
    return found.low, found.high


@dataclass
class _Pairs:
    judge: list[Label] = field(default_factory=list)
    human: list[Label] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    void: int = 0
    swaps: list[bool] = field(default_factory=list)
    sides: list[float] = field(default_factory=list)
    repeats: list[bool] = field(default_factory=list)
    kind: str = ""

    def add(self, verdict: JudgeVerdict, human: Label, length: int) -> None:
        self.kind = verdict.kind
        if verdict.verdict is None:
            self.void += 1
            return
        self.judge.append(verdict.verdict)
        self.human.append(human)
        self.lengths.append(length)
        if verdict.orders_disagree is not None:
            self.swaps.append(not verdict.orders_disagree)
            first, second = verdict.order_values or (0.0, 0.0)  # the side it leaned to: first − second
            self.sides.append(first - second)
        if len(verdict.repeats) > 1:
            self.repeats.append(len(set(verdict.repeats)) == 1)

    def stats(self, name: str, seed: int, resamples: int) -> JudgeStats:
        weights: Weights = "none" if compares(self.kind) else "quadratic"
        measured = agreement(self.judge, self.human, self.lengths, weights=weights, seed=seed, resamples=resamples)
        swap = sum(self.swaps) / len(self.swaps) if self.swaps else None
        self_consistency = sum(self.repeats) / len(self.repeats) if self.repeats else None
        bias = position_bias([not same for same in self.swaps], self.sides, seed=seed, resamples=resamples)
        return JudgeStats(name, measured, self.void, swap, self_consistency, position_bias=bias)


def judge_check(
    scored: StrPath,
    human: StrPath,
    *,
    seed: int = 0,
    resamples: int = 1000,
    skip_bad_labels: bool = False,
    raise_bad_labels: bool = True,
) -> JudgeCheck:
    """Check every judge of ``scored`` against the labels of ``human`` (see the module's docstring).

    Raises :class:`~scoring._errors.BadLabelsError` (every problem, each at its place; nothing computed) for
    labels that cannot be used, unless ``skip_bad_labels`` (they are left out) or not ``raise_bad_labels``
    (a :class:`JudgeCheck` that is ``refused``, its problems in ``skipped``, is returned);
    :class:`~scoring._errors.ResultsFileError` for a file that is neither results nor labels, or a label
    without a dataset that more than one dataset's session could take; :class:`~formatkit.InvalidFileError`
    for a spreadsheet that does not read in scored mode."""
    by_key, datasets_of = _results_by_key(scored)
    labels = _labels(human)
    usable, problems, unmatched = _matched(labels, by_key, datasets_of)
    if problems and not skip_bad_labels:
        if not raise_bad_labels:
            return JudgeCheck({}, len(labels), unmatched, 0, problems, refused=True)
        raise BadLabelsError(problems)
    overall, per_dataset, stale = _paired(usable)
    judges: dict[str, JudgeStats] = {}
    for name, pairs in overall.items():
        stats = pairs.stats(name, seed, resamples)
        stats.by_dataset = {
            dataset: part.stats(name, seed, resamples) for dataset, part in sorted(per_dataset[name].items())
        }
        judges[name] = stats
    return JudgeCheck(judges, len(labels), unmatched, stale, problems)


#: A label that can be used: its dataset, the record and response it labels, its human value for each verdict
#: (or the one value when the response has none), and the response's verdicts.
_Usable = tuple[str, RecordDict, dict[str, Any], list[Label | Msg], list[JudgeVerdict]]


def _results_by_key(scored: StrPath) -> tuple[dict[tuple[str, Any], RecordDict], dict[Any, list[str]]]:
    """The records of ``scored`` by (dataset, session) (the first of each), and the datasets of each session."""
    stem = Path(scored).stem
    by_key: dict[tuple[str, Any], RecordDict] = {}
    datasets_of: dict[Any, list[str]] = {}
    for record in read_results(scored):
        name = dataset_of(record, stem)
        key = (name, _session(record))
        by_key.setdefault(key, record)
        datasets_of.setdefault(key[1], []).append(name)
    return by_key, datasets_of


def _matched(
    labels: list[_Label],
    by_key: dict[tuple[str, Any], RecordDict],
    datasets_of: dict[Any, list[str]],
) -> tuple[list[_Usable], list[Msg], int]:
    """The labels matched to their records: the usable ones, the problems of the others (each at its place),
    and how many labels matched no record."""
    problems: list[Msg] = []
    usable: list[_Usable] = []
    seen: dict[tuple[str, Any], str] = {}
    unmatched = 0
    for label in labels:
        dataset = label.dataset
        if dataset is None:
            names = datasets_of.get(label.session, [])
            if len(names) > 1:
                raise ResultsFileError(
                    f"{label.where}: session {label.session!r} is in {len(names)} datasets "
                    f"({', '.join(names[:3])}): say which with a dataset key"
                )
            dataset = names[0] if names else None
        found = by_key.get((dataset, label.session)) if dataset is not None else None
        responses = target_responses(found) if found is not None else []
        if found is None or dataset is None or not responses:
            unmatched += 1
            problems.append(
                Msg("frag.label.no_record", where=label.where, dataset=dataset or "?", session=repr(label.session))
            )
            continue
        first = seen.get((dataset, label.session))
        if first is not None:
            problems.append(
                Msg(
                    "frag.label.duplicate", where=label.where, dataset=dataset, session=repr(label.session), first=first
                )
            )
            continue
        seen[(dataset, label.session)] = label.where
        response = cast(dict[str, Any], responses[0])
        verdicts = judge_verdicts(response, found)
        values = [_human(label.human, verdict, label.where) for verdict in verdicts] or [
            _human(label.human, None, label.where)
        ]
        bad = next((value for value in values if isinstance(value, Msg)), None)
        if bad is not None:
            problems.append(bad)
            continue
        usable.append((dataset, found, response, values, verdicts))
    return usable, problems, unmatched


def _paired(usable: list[_Usable]) -> tuple[dict[str, _Pairs], dict[str, dict[str, _Pairs]], int]:
    """The (verdict, human) pairs of each judge, overall and by dataset, from the fresh verdicts; and how many
    responses had a stale verdict left out."""
    overall: dict[str, _Pairs] = {}
    per_dataset: dict[str, dict[str, _Pairs]] = {}
    stale = 0
    for dataset, _record, response, values, verdicts in usable:
        content = response.get("content")
        length = len(content) if isinstance(content, str) else 0
        fresh = [(v, h) for v, h in zip(verdicts, values, strict=False) if v.stale is None]
        if len(fresh) < len(verdicts) or (not verdicts and stale_verdict_of(response) is not None):
            stale += 1
        for verdict, value in fresh:
            assert not isinstance(value, Msg)
            overall.setdefault(verdict.judge, _Pairs()).add(verdict, value, length)
            per_dataset.setdefault(verdict.judge, {}).setdefault(dataset, _Pairs()).add(verdict, value, length)
    return overall, per_dataset, stale


def judge_calibration(paths: list[str], human: StrPath, *, min_kappa: float = 0.4) -> Calibration:
    """``report --human``: each file's judges checked against ``human`` (bad labels left out), a judge's κ where
    most labels met it, a dataset's its judge's there; a judged dataset no label reached: n 0 (not checked)."""
    out = Calibration(min_kappa)
    for path in paths:
        check = judge_check(path, human, skip_bad_labels=True)
        for name, stats in check.judges.items():
            if name not in out.judges or stats.overall.n > out.judges[name].n:
                out.judges[name] = _kappa(stats)
                if stats is check.headline:
                    out.datasets.update({dataset: _kappa(part) for dataset, part in stats.by_dataset.items()})
        for record in read_results(path):
            responses = target_responses(record)
            verdicts = judge_verdicts(responses[0], record) if responses else []
            if verdicts and dataset_of(record, Path(path).stem) not in out.datasets:
                out.datasets[dataset_of(record, Path(path).stem)] = JudgeKappa(verdicts[-1].judge, 0, None, None)
                out.judges.setdefault(verdicts[-1].judge, JudgeKappa(verdicts[-1].judge, 0, None, None))
    return out


def _kappa(stats: JudgeStats) -> JudgeKappa:
    return JudgeKappa(stats.judge, stats.overall.n, stats.overall.kappa, stats.overall.kappa_ci)
