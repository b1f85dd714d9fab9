"""A run's options as objects: where the requests go (:class:`EndpointOptions`) and what is run
(:class:`RunOptions`). ``formatkit run`` builds one of each from its command line, :func:`run_file` takes
them, and they travel down unchanged: the endpoint's ``limits``, ``retry`` and ``dialect`` to the
:class:`~scoring._client.http.ChatClient`, the run options to the job.

    run_file("set.jsonl", "out.jsonl", EndpointOptions(url, "qwen", limits=Limits(concurrency=32)),
             RunOptions(defaults={"temperature": 0}, limit=10))

Every field of :class:`RunOptions` may also be given to :func:`run_file` as a keyword of its own
(``limit=10``): :class:`RunFields` names them for the type checker.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypedDict

from scoring._client.options import Dialect, Limits, RetryPolicy
from scoring._runner.shard import Shard

if TYPE_CHECKING:
    from scoring._client.http import ChatClient
    from scoring._client.pool import AnyClient

__all__ = ["EndpointOptions", "RunFields", "RunOptions"]


@dataclass(frozen=True)
class EndpointOptions:
    """Where and how requests go.

    - ``base_url``: the OpenAI-compatible base URL (``http://127.0.0.1:8000/v1``; a ``?query`` is kept).
    - ``model``: the model name sent in every request.
    - ``api_key``: the key sent; when None, the one in the environment variable ``api_key_env``
      (``OPENAI_API_KEY`` by default, as ``formatkit run --api-key-env`` and ``JudgeOptions`` do; cleaned
      of the ``\\r`` a CRLF ``.env`` leaves), read when the client is made; ``api_key_env=None`` sends no key.
    - ``replicas``: more base URLs serving the same model (``formatkit run --base-url`` given again):
      requests spread over ``base_url`` and these by each one's free capacity, each with its own
      ``limits``, retries, rate-limit waits and stop rules; one that cannot serve is dropped and its
      requests go to the others (:mod:`scoring._client.pool`).
    - ``limits``, ``retry``, ``dialect``: handed to the client as they are (:mod:`scoring._client.options`:
      concurrency, rpm and timeouts; retries and backoff; streaming, headers, renamed and dropped parameters).
    """

    base_url: str
    model: str
    api_key: str | None = None
    api_key_env: str | None = "OPENAI_API_KEY"
    limits: Limits = field(default_factory=Limits)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    dialect: Dialect = field(default_factory=Dialect)
    replicas: tuple[str, ...] = ()

    @property
    def base_urls(self) -> tuple[str, ...]:
        """Every base URL requests go to: ``base_url``, then the ``replicas``."""
        return (self.base_url, *self.replicas)

    def key(self) -> str | None:
        """The key sent: ``api_key``, else the one in ``$api_key_env`` (None: none)."""
        if self.api_key is not None or not self.api_key_env:
            return self.api_key
        from scoring._client.http import clean_api_key

        return clean_api_key(os.environ.get(self.api_key_env))[0]

    def client(self, base_url: str | None = None) -> ChatClient:
        """A :class:`~scoring._client.http.ChatClient` for ``base_url`` (default: this endpoint's own,
        the first one; httpx is loaded here, not before)."""
        from scoring._client.http import ChatClient

        return ChatClient(
            base_url or self.base_url,
            self.model,
            api_key=self.key(),
            limits=self.limits,
            retry=self.retry,
            dialect=self.dialect,
        )

    def sender(self) -> AnyClient:
        """What a run sends through: :meth:`client` when there is one base URL, else an
        :class:`~scoring._client.pool.EndpointPool` of one client per base URL."""
        if not self.replicas:
            return self.client()
        from scoring._client.pool import EndpointPool

        return EndpointPool([self.client(url) for url in self.base_urls])

    def shares(self, processes: int) -> list[EndpointOptions]:
        """These options split over ``processes`` workers: each gets a share of the concurrency (at least
        1; so at most ``concurrency`` workers) and of ``rpm``."""
        count = max(1, min(processes, self.limits.concurrency))
        whole, extra = divmod(self.limits.concurrency, count)
        rpm = self.limits.rpm / count if self.limits.rpm else self.limits.rpm
        return [
            replace(self, limits=replace(self.limits, concurrency=whole + (k < extra), rpm=rpm)) for k in range(count)
        ]


@dataclass(frozen=True)
class RunOptions:
    """What a run sends, which records it takes, how it resumes and what it records.

    - ``defaults``: default request parameters (``{"temperature": 0}``); a record's own parameters win.
    - ``limit``: only the first N records (a smoke run; the output holds those N).
    - ``retry_empty``: ask an empty reply again up to N times (journaled empty replies are asked again too).
    - ``restart``: discard the run's journal and start from scratch (else a rerun resumes).
    - ``mode``: what the input is for, as ``formatkit run --mode`` (``infer-eval``: responses to fill).
    - ``shard``: only that part of the records (:class:`~scoring._runner.shard.Shard`; after ``limit``).
    - ``total``: how many records the input holds, when known beforehand (the progress shows it).
    - ``command``: the command line the run record keeps.
    - ``run_record``: write the run record (``OUT.run.json``) beside the output once it is written.
    - ``processes``: send from this many worker processes (past one core's ~20k streamed tokens a second;
      :mod:`scoring._client.processes`), each with a share of every endpoint's concurrency and ``rpm``;
      the records, journal, output and progress stay in this process. 1: no worker.
    """

    defaults: dict[str, object] | None = None
    limit: int | None = None
    retry_empty: int = 0
    restart: bool = False
    mode: str = "infer-eval"
    shard: Shard | None = None
    total: int | None = None
    command: str | None = None
    run_record: bool = True
    processes: int = 1


class RunFields(TypedDict, total=False):
    """The fields of :class:`RunOptions`, each a keyword of :func:`run_file` and :func:`plan_file`."""

    defaults: dict[str, object] | None
    limit: int | None
    retry_empty: int
    restart: bool
    mode: str
    shard: Shard | None
    total: int | None
    command: str | None
    run_record: bool
    processes: int
