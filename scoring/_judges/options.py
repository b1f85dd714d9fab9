"""Options of the LLM-judge metrics (``--metric judge|pairwise|math-judge``), shared by the CLI and the judges.

The ``score`` command fills this dataclass from its ``--judge-*`` options and hands it to
``scoring._judges.judge_records``; the field names are a contract with the judge implementation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["JudgeLang", "JudgeOptions"]

#: ``auto`` (each record's language, detected) or a language of formatkit's table of languages
#: (:data:`formatkit._core.messages.LANGUAGES`: ``en``, ``zh``, …).
JudgeLang = str


@dataclass(frozen=True)
class JudgeOptions:
    """How to reach and use the judge model.

    ``journal_path`` is where the judges keep their resumable journal: the output path + ``.journal``.
    ``judge_fallback`` (with ``--metric math``) sends only the items the rule-based math metric could not
    settle to the math judge.
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
    #: More base URLs serving the judge model (``--judge-base-url`` given again): the judge's requests
    #: spread over ``judge_base_url`` and these as a run's over its replicas (:mod:`scoring._client.pool`).
    judge_replicas: tuple[str, ...] = ()
