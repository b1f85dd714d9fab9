"""The battles the ratings are fitted on, read from the models' aggregates (see
:mod:`scoring._report.figures.ratings`): one per question and pair of models on rule-scored sets (kept as
the set's grid of scores: its battles are counted by matrix products), one per
question and model against its opponent on pairwise judge sets."""

from __future__ import annotations

import os
from collections.abc import Mapping

from formatkit._core.judge_entry import against_of, judge_entry
from formatkit._core.record import RecordDict, response_entries
from scoring._judges.kinds import kind_of
from scoring._report.figures.aggregate import Aggregate
from scoring._report.figures.grid import grid_of
from scoring._report.figures.paired import values_by_question
from scoring._report.figures.ratings import Battles

__all__ = ["REFERENCE", "battles_of", "opponent_label", "resolve_opponent"]

#: The pairwise judge's default opponent: the record's reference answer.
REFERENCE = "reference answer"
_FILE_PREFIX = "response in "


def opponent_label(record: RecordDict) -> str | None:
    """What the record's pairwise verdict compared the model with: ``reference answer`` or ``response in
    FILE`` (the judge's ``against``, without the session it names); None when no response was judged
    pairwise."""
    for response in response_entries(record):
        judge = judge_entry(response)
        kind = kind_of(judge)
        if kind is not None and kind.versus:
            against = against_of(judge)
            if against is None:
                return REFERENCE
            return against.split(" (session_id", 1)[0]
    return None


def resolve_opponent(label: str, files: Mapping[str, str]) -> str:
    """A ``response in FILE`` opponent as the model of that file when the report read it (by path, else by
    file name); anything else as it is."""
    if not label.startswith(_FILE_PREFIX):
        return label
    path = label[len(_FILE_PREFIX) :]
    absolute = os.path.abspath(path)
    for file, model in files.items():
        if os.path.abspath(file) == absolute:
            return model
    name = os.path.basename(path)
    matches = {model for file, model in files.items() if os.path.basename(file) == name}
    return matches.pop() if len(matches) == 1 else label


def battles_of(models: Mapping[str, Aggregate], opponents: Mapping[tuple[str, str], str]) -> Battles:
    """Every battle of the report: ``opponents`` names each (model, pairwise dataset)'s opponent."""
    battles = Battles()
    for name in models:
        battles.player(name)
    datasets: dict[str, None] = {}
    for agg in models.values():
        datasets.update(dict.fromkeys(agg.datasets))
    for dataset in datasets:
        having = [(name, agg.datasets[dataset]) for name, agg in models.items() if dataset in agg.datasets]
        for name, stats in having:
            if not stats.is_pairwise:
                continue
            opponent = opponents.get((name, dataset), REFERENCE)
            anchor = opponent not in models
            for key, value in values_by_question(stats).items():
                battles.add(("q", dataset, key), name, opponent, value, "judge", b_anchor=anchor)
        grid = grid_of({name: models[name] for name, _ in having}, dataset, pairwise=False)
        if grid is not None and len(grid.names) > 1:
            battles.add_grid(dataset, grid)
    return battles
