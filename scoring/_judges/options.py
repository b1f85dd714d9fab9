"""Options of the LLM-judge metrics (``--metric judge|pairwise|math-judge``), shared by the CLI and the judges.

The ``score`` command fills this dataclass from its ``--judge-*`` options and hands it to
``scoring._judges.judge_records``; the field names are a contract with the judge implementation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["AGGREGATES", "Aggregate", "JudgeLang", "JudgeOptions", "PanelJudge"]

#: How a panel's verdicts make one score (``--judge-aggregate``).
Aggregate = Literal["mean", "median", "majority"]
AGGREGATES: tuple[Aggregate, ...] = ("mean", "median", "majority")

#: ``auto`` (each record's language, detected) or a language of formatkit's table of languages
#: (:data:`formatkit._core.messages.LANGUAGES`: ``en``, ``zh``, …).
JudgeLang = str


@dataclass(frozen=True)
class PanelJudge:
    """One judge of a panel: its model, and (when it is not the run's ``judge_base_url``) its endpoint and
    the environment variable holding its key. A line of a ``--judge-panel`` file."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = None


@dataclass(frozen=True)
class JudgeOptions:
    """How to reach and use the judge model.

    ``journal_path`` is where the judges keep their resumable journal: the output path + ``.journal``.
    ``judge_fallback`` (with ``--metric math``) sends only the items the rule-based math metric could not
    settle to the math judge.

    A panel (several judges in one run): ``judge_panel`` names each judge (``--judge-model`` given more
    than once: the models, all at ``judge_base_url``; ``--judge-panel FILE``: a model, base URL and key
    variable each). Each response is put to every judge ``judge_repeats`` times; ``judge_aggregate``
    (``mean``, ``median``, ``majority``) makes the score of at least ``judge_min_valid`` valid verdicts
    (fewer: the response's verdict is void). ``judge_escalate``: the judges are asked in turn, the next
    only when the one before gave no verdict, its two orders disagreed (pairwise) or it contradicted a
    settled rule score; the last verdict given decides.
    """

    judge_base_url: str | None = None
    judge_model: str | None = None
    judge_api_key_env: str = "OPENAI_API_KEY"
    judge_scale: str = "0-2"
    judge_lang: JudgeLang = "auto"
    judge_template: Path | None = None
    against: Path | None = None
    judge_fallback: bool = False
    concurrency: int = 8
    max_retries: int = 5
    timeout: float = 120.0
    journal_path: Path | None = None
    judge_panel: tuple[PanelJudge, ...] = ()
    judge_aggregate: Aggregate = "mean"
    judge_min_valid: int = 1
    judge_repeats: int = 1
    judge_escalate: bool = False
    #: More base URLs serving the judge model (``--judge-base-url`` given again): the judge's requests
    #: spread over ``judge_base_url`` and these as a run's over its replicas (:mod:`scoring._client.pool`).
    judge_replicas: tuple[str, ...] = ()

    def judges(self) -> tuple[PanelJudge, ...]:
        """The judges of the run, in order: the panel, or the one ``judge_model`` (none without a model);
        a panel judge without its own endpoint or key variable takes the run's."""
        named = self.judge_panel or ((PanelJudge(self.judge_model),) if self.judge_model else ())
        return tuple(
            PanelJudge(j.model, j.base_url or self.judge_base_url, j.api_key_env or self.judge_api_key_env)
            for j in named
        )

    @property
    def configured(self) -> bool:
        """A judge is given (an endpoint, or a panel): ``auto`` then sends it what the rules cannot settle
        (and a judge without its model is a setup error then, not a silent rule score)."""
        return bool(self.judge_base_url or self.judge_panel)

    @property
    def is_panel(self) -> bool:
        """More than one verdict per response (several judges, repeats) or escalation: the panel's record."""
        return len(self.judge_panel) > 1 or self.judge_repeats > 1 or self.judge_escalate
