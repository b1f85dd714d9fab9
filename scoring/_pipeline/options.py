"""How a file is scored (:class:`ScoreOptions`, for :func:`~scoring._pipeline.score_file.score_file`) and
how a whole evaluation runs (:class:`EvalOptions`, for :func:`~scoring._pipeline.evaluate.evaluate`).

    score_file("answered.jsonl", "scored.jsonl", ScoreOptions(metric="math", workers=4))
    evaluate(["set.xlsx"], "eval/", EndpointOptions(url, "qwen"), EvalOptions(limit=5, judge=JudgeOptions(...)))

As with :class:`~scoring._runner.options.RunOptions`, every field may also be given to the call as a
keyword of its own (``score_file(IN, OUT, metric="math")``); :class:`ScoreFields` and :class:`EvalFields`
name them for the type checker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from formatkit._core.modes import Mode, Profile
from formatkit._core.record import Parameters
from scoring._judges.options import JudgeOptions
from scoring._metrics.registry import AUTO
from scoring._runner.shard import Shard

__all__ = ["EvalFields", "EvalOptions", "ScoreFields", "ScoreOptions"]


@dataclass(frozen=True)
class ScoreOptions:
    """How the responses of a file are scored.

    - ``metric``: ``auto``, a rule metric, a judge metric (``judge``, ``pairwise``, ``math-judge``) or a
      custom ``module:function``.
    - ``math_timeout``: the math metric's time limit per item, in seconds (sympy).
    - ``model_name``: names the model that answered, for responses that do not name one (responses
      collected elsewhere; the runner writes its own).
    - ``void_as_zero``: the summary counts a void judge verdict (no readable verdict) as the lowest score
      instead of leaving it out (the written records keep their null score either way).
    - ``workers``: rule metrics are scored by that many worker processes (the output is byte for byte
      one process's); judges always run in this process.
    - ``dataset_metrics``: dataset -> rule metric, declared for ``auto``: the records of a dataset named
      there are scored with its metric (``prefix`` and ``keywords``, which ``auto`` never picks by itself).
    - ``skip_bad_labels``: a reviewed sheet's ``human_score`` off the scale or not finite is left out (the
      machine's score stays) instead of refusing the sheet (:class:`~scoring._errors.BadLabelsError`).
    """

    metric: str = AUTO
    math_timeout: float = 2.0
    model_name: str | None = None
    void_as_zero: bool = False
    workers: int = 1
    dataset_metrics: dict[str, str] | None = None
    skip_bad_labels: bool = False


class ScoreFields(TypedDict, total=False):
    """The fields of :class:`ScoreOptions`, each a keyword of :func:`score_file`."""

    metric: str
    math_timeout: float
    model_name: str | None
    void_as_zero: bool
    workers: int
    dataset_metrics: dict[str, str] | None
    skip_bad_labels: bool


@dataclass(frozen=True)
class EvalOptions:
    """What an evaluation (validate, convert, run, score, report) does beyond where it sends requests.

    - ``judge``: the judge endpoint and options (:class:`~scoring._judges.options.JudgeOptions`); with a
      judge endpoint, the free text ``auto`` leaves for a judge is judged. None: left unscored.
    - ``limit``: only the first N records of each dataset (a smoke run that touches every set).
    - ``mode``, ``profile``: how the sets are validated (as ``formatkit validate --mode/--profile``);
      ``profile`` defaults to ``"none"``: an evaluation runs the sets, it does not upload them.
    - ``defaults``, ``restart``, ``retry_empty``: as :class:`~scoring._runner.options.RunOptions`'s.
    - ``math_timeout``, ``void_as_zero``: as :class:`ScoreOptions`'s (for the summary and the reports too).
    - ``dimensions``: dataset -> capability dimension, for the reports.
    - ``dataset_metrics``: as :class:`ScoreOptions`'s (a rule metric declared per dataset for ``auto``).
    - ``shard``: run and score only that part of the records (after ``limit``); ``formatkit merge`` puts
      the directories of all parts back together.
    - ``command``: the command line ``run.json`` records.
    - ``processes``: as :class:`~scoring._runner.options.RunOptions`'s (the run's worker processes).
    """

    judge: JudgeOptions | None = None
    limit: int | None = None
    mode: Mode = "infer-eval"
    profile: Profile = "none"
    defaults: Parameters | None = None
    restart: bool = False
    retry_empty: int = 0
    math_timeout: float = 2.0
    dimensions: dict[str, str] | None = None
    #: The language of the text and Markdown reports' words (None: English; JSON keeps English keys).
    lang: str | None = None
    void_as_zero: bool = False
    dataset_metrics: dict[str, str] | None = None
    shard: Shard | None = None
    command: str | None = None
    processes: int = 1


class EvalFields(TypedDict, total=False):
    """The fields of :class:`EvalOptions`, each a keyword of :func:`evaluate`."""

    judge: JudgeOptions | None
    limit: int | None
    mode: Mode
    profile: Profile
    defaults: Parameters | None
    restart: bool
    retry_empty: int
    math_timeout: float
    dimensions: dict[str, str] | None
    lang: str | None
    void_as_zero: bool
    dataset_metrics: dict[str, str] | None
    shard: Shard | None
    command: str | None
    processes: int
