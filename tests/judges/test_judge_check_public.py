"""``judge-check`` on a public human-labelled set (PandaLM's test set, tests/corpora/judges/README.md): on
the judge verdicts the source publishes, agreement and κ equal the source's own published figures."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

CORPUS = Path(__file__).parents[1] / "corpora" / "judges" / "pandalm_testset_v1.csv"
OUTCOME = {"1": "win", "2": "loss", "0": "tie"}  # response 1 is the model's
LABEL = {"1": "A", "2": "B", "0": "tie"}
runner = CliRunner()


def _rows() -> list[dict[str, str]]:
    with CORPUS.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _record(idx: str, verdict: str) -> dict[str, Any]:
    outcome = OUTCOME[verdict]
    judge = {"metric": "pairwise", "model": "PandaLM-7B", "status": "scored", "outcome": outcome,
             "against": "response 2 of the test item"}  # fmt: skip
    response = {
        "content": f"response 1 of PandaLM test item {idx}",
        "score": {"win": 1.0, "tie": 0.0, "loss": -1.0}[outcome],
        "analysis": "PandaLM-7B's verdict",
        "metric": "pairwise",
        "judge": judge,
    }
    return {
        "session_id": int(idx),
        "messages": [{"role": "user", "content": f"PandaLM test item {idx}"},
                     {"role": "assistant", "reference_response": "-", "responses": [response]}],
        "meta": {"dataset": "pandalm-testset-v1"},
    }  # fmt: skip


def _check(tmp_path: Path, judge: str, human: str | None = None) -> dict[str, Any]:
    """judge-check --json with column ``judge`` as the verdicts and ``human`` (None: the annotators'
    majority) as the labels."""
    rows = _rows()
    scored, labels = tmp_path / "scored.jsonl", tmp_path / "labels.jsonl"
    scored.write_text("".join(json.dumps(_record(r["idx"], r[judge])) + "\n" for r in rows), encoding="utf-8")
    lines = []
    for r in rows:
        label = r[human] if human else Counter(r[f"annotator{i}"] for i in (1, 2, 3)).most_common(1)[0][0]
        lines.append(json.dumps({"session_id": int(r["idx"]), "human": LABEL[label]}) + "\n")
    labels.write_text("".join(lines), encoding="utf-8")
    result = runner.invoke(app, ["judge-check", str(scored), "--human", str(labels), "--json"])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def test_pandalm_7b_against_the_annotators_majority_gives_the_published_accuracy(tmp_path: Path) -> None:
    summary = _check(tmp_path, "pandalm_7b")
    assert summary["n"] == 999 and summary["labels"] == 999 and summary["unmatched"] == 0
    assert summary["kappa_weights"] == "none"  # pairwise: unweighted
    assert round(summary["agreement"] * 100, 2) == 66.77  # published: Accuracy 66.77
    confusion = summary["confusion"]
    humans: Counter[str] = Counter()
    for row in confusion.values():
        humans.update(row)
    assert dict(humans) == {"tie": 105, "win": 422, "loss": 472}  # published: 0: 105, 1: 422, 2: 472
    # macro precision / recall / F1 over the three labels, from the confusion matrix: published 57.38/57.50/57.43
    labels = ("win", "tie", "loss")
    precision = [confusion[c].get(c, 0) / sum(confusion[c].values()) for c in labels]
    recall = [confusion[c].get(c, 0) / humans[c] for c in labels]
    f1 = [2 * p * r / (p + r) for p, r in zip(precision, recall, strict=True)]
    assert [round(sum(x) / 3 * 100, 2) for x in (precision, recall, f1)] == [57.38, 57.50, 57.43]
    assert summary["kappa"] is not None and summary["kappa_ci"][0] < summary["kappa"] < summary["kappa_ci"][1]
    assert list(summary["by_dataset"]) == ["pandalm-testset-v1"]


@pytest.mark.parametrize(("first", "second", "published"), [(1, 2, 0.85), (1, 3, 0.88), (2, 3, 0.86)])
def test_the_annotators_kappa_is_the_published_one(tmp_path: Path, first: int, second: int, published: float) -> None:
    summary = _check(tmp_path, f"annotator{first}", f"annotator{second}")
    assert round(summary["kappa"], 2) == published
