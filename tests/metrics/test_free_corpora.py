"""Free answers on real replies from other benchmarks (tests/corpora/free, issue #38): per category, formatkit
under the metric a user would pick and under ``auto`` makes no more errors than the best peer, and credits no
wrong reply that the best peer refuses. Peers' verdicts are stored (run from their own code at the versions the
README names); formatkit's are computed here, its figures before #38 (main 452c5f3) are stored as ``before``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from formatkit import MetaDict, RecordDict
from scoring import score_records

CORPORA = Path(__file__).resolve().parents[1] / "corpora" / "free"

#: corpus file → (the field that names its categories, the metrics scored: the one a user picks first).
SETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "yesno_zero_shot_cot.jsonl": ("task", ("choice", "auto", "exact")),
    "dyck_codex.jsonl": ("kind", ("exact", "auto")),
    "nq301_open_qa.jsonl": ("kind", ("exact", "auto")),
    "chinese_open_qa.jsonl": ("corpus", ("exact", "auto")),
}

#: (corpus, category, metric) → (right replies scored 0, wrong replies scored 1), after #38.
PINNED: dict[tuple[str, str, str], tuple[int, int]] = {
    ("yesno_zero_shot_cot.jsonl", "strategyqa", "choice"): (0, 0),
    ("yesno_zero_shot_cot.jsonl", "strategyqa", "auto"): (0, 0),
    ("yesno_zero_shot_cot.jsonl", "strategyqa", "exact"): (0, 0),
    ("yesno_zero_shot_cot.jsonl", "coin_flip", "choice"): (0, 0),
    ("yesno_zero_shot_cot.jsonl", "coin_flip", "auto"): (0, 0),
    ("yesno_zero_shot_cot.jsonl", "coin_flip", "exact"): (0, 0),
    ("dyck_codex.jsonl", "cot", "exact"): (0, 0),
    ("dyck_codex.jsonl", "cot", "auto"): (0, 0),
    ("dyck_codex.jsonl", "direct", "exact"): (0, 0),
    ("dyck_codex.jsonl", "direct", "auto"): (0, 0),
    # the annotators accepted answers that name no accepted answer ("Landover, Maryland" for the Washington
    # metropolitan area): no rule reading the reference credits those, peers neither
    ("nq301_open_qa.jsonl", "long", "exact"): (111, 0),
    ("nq301_open_qa.jsonl", "long", "auto"): (111, 0),
    ("nq301_open_qa.jsonl", "short", "exact"): (16, 0),
    ("nq301_open_qa.jsonl", "short", "auto"): (16, 0),
    # one category, Chinese open QA (short answers, yes/no, one choice item): the Sarajevo incident named in
    # other words (3), "统治了法国和欧洲大陆" (a list), "抱歉，您无法使用…", and under exact the choice item's "A、月亮"
    ("chinese_open_qa.jsonl", "all", "exact"): (7, 0),
    ("chinese_open_qa.jsonl", "all", "auto"): (6, 0),
}

_CACHE: dict[tuple[str, str], list[float | None]] = {}


def _cases(name: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (CORPORA / name).read_bytes().splitlines() if line.strip()]


def _record(i: int, case: dict[str, Any]) -> RecordDict:
    meta: MetaDict = {"dataset": "corpus"}
    if case.get("aliases"):
        meta["aliases"] = case["aliases"]
    return {
        "session_id": i,
        "meta": meta,
        "messages": [
            {"role": "user", "content": case["question"]},
            {"role": "assistant", "reference_response": case["reference"], "responses": [{"content": case["reply"]}]},
        ],
    }


def _scores(name: str, metric: str) -> list[float | None]:
    if (name, metric) not in _CACHE:
        outcome = score_records([_record(i, c) for i, c in enumerate(_cases(name))], metric=metric)
        _CACHE[name, metric] = [r["messages"][-1]["responses"][0].get("score") for r in outcome.records]
    return _CACHE[name, metric]


def _errors(cases: list[dict[str, Any]], verdicts: list[float | None]) -> tuple[set[str], set[str]]:
    missed = {c["id"] for c, v in zip(cases, verdicts, strict=True) if c["right"] and v != 1}
    credited = {c["id"] for c, v in zip(cases, verdicts, strict=True) if not c["right"] and v == 1}
    return missed, credited


def _params() -> list[Any]:
    return [
        pytest.param(name, category, metric, id=f"{name.split('.')[0]}-{category}-{metric}")
        for (name, category, metric) in PINNED
    ]


@pytest.mark.parametrize(("name", "category", "metric"), _params())
def test_formatkit_is_at_least_as_right_as_the_best_peer(name: str, category: str, metric: str) -> None:
    field, _ = SETS[name]
    cases = _cases(name)
    scores = _scores(name, metric)
    keep = [i for i, c in enumerate(cases) if c.get(field, "all") == category]
    sub = [cases[i] for i in keep]
    missed, credited = _errors(sub, [scores[i] for i in keep])
    assert (len(missed), len(credited)) == PINNED[name, category, metric], (sorted(missed), sorted(credited))
    peers = {p for c in sub for p in c["peers"]}
    best = min(
        (_errors(sub, [c["peers"].get(p) for c in sub]) for p in peers),
        key=lambda e: len(e[0]) + len(e[1]),
    )
    assert len(missed) + len(credited) <= len(best[0]) + len(best[1])
    assert credited <= best[1], "formatkit credits a wrong reply the best peer refuses"


@pytest.mark.parametrize("name", list(SETS))
def test_the_corpus_holds_what_its_readme_says(name: str) -> None:
    cases = _cases(name)
    assert len({c["id"] for c in cases}) == len(cases)
    counts = {
        "yesno_zero_shot_cot.jsonl": (240, 120),
        "dyck_codex.jsonl": (200, 106),
        "nq301_open_qa.jsonl": (394, 264),
        "chinese_open_qa.jsonl": (60, 26),
    }[name]
    assert (len(cases), sum(c["right"] for c in cases)) == counts
