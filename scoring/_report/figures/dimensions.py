"""A ``--dimensions`` map held against the datasets it groups.

A dataset the map does not name is a dimension of its own, and every dimension weighs the same in the
overall: a dataset name misspelled in the map (``gsm8kk``) silently made a dimension of the real dataset
and moved the overall. The check tells apart what is almost surely a misspelling (an unnamed dataset whose
name is close to a key naming no dataset) from what a team's shared map legitimately holds (entries for
datasets of other runs) and from datasets left to stand alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from formatkit._core.suggest import suggestion

__all__ = ["DimensionsCheck", "check_dimensions"]


@dataclass(frozen=True)
class DimensionsCheck:
    """``misspelled``: (the map's key, the dataset it surely means) pairs; ``unused``: the map's other keys
    naming no dataset of the results; ``alone``: the datasets the map leaves to a dimension of their own
    (their ``meta.dimension`` aside, which the records carry themselves)."""

    misspelled: list[tuple[str, str]] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
    alone: list[str] = field(default_factory=list)


def check_dimensions(mapping: Mapping[str, str], datasets: Mapping[str, str | None]) -> DimensionsCheck:
    """Hold ``mapping`` (dataset → dimension) against the ``datasets`` of the results (each with the
    dimension its records name themselves, ``meta.dimension``, or None or its own name when they name none)."""
    names = sorted(datasets)
    unused = [key for key in mapping if key not in datasets]
    alone = [name for name in names if name not in mapping]
    misspelled: list[tuple[str, str]] = []
    for key in list(unused):
        meant = suggestion(key, [name for name in alone if name not in {m for _, m in misspelled}])
        if meant is not None:
            misspelled.append((key, meant))
            unused.remove(key)
    taken = {meant for _, meant in misspelled}
    return DimensionsCheck(misspelled, unused, [n for n in alone if n not in taken and datasets[n] in (None, n)])
