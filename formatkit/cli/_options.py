"""Options shared by several commands, each defined once, in a group with what is built from it.

A group is a dataclass whose fields are the options (:func:`option` holds each one's flag, default and
help). A command takes a group by naming it in :func:`takes`::

    @takes(endpoint=EndpointArgs, requests=RunArgs)
    def run(source: str = typer.Argument(...), *, endpoint: EndpointArgs, requests: RunArgs) -> None:
        client_options = endpoint.endpoint_options("run")

``takes`` puts every field of the group into the command's signature, so typer shows and parses them as the
command's own options, and hands the command the group built from their values. **To give every command of
a group a new option, add one field to the group here** (and use it in the group's method that builds the
library's options); to give it to one more command, add the group to that command's ``takes``.

Groups: :class:`EndpointArgs` (run, eval: where and how requests go), :class:`RunArgs` (run, eval: what is
sent), :class:`JudgeArgs` (score, eval), :class:`ScoreArgs` (score, eval), :class:`ReportArgs` (report,
eval), :class:`VerdictArgs` (score, report, eval), :class:`IssueArgs` (validate, convert, eval: how many
issues are listed).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import re
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from formatkit.cli._common import check_judge_lang, fail_usage, judge_lang_metavar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from scoring import EndpointOptions, JudgeOptions, RunOptions, ScoreOptions
    from scoring.errors import EndpointUnavailableError

__all__ = [
    "EndpointArgs",
    "IssueArgs",
    "JudgeArgs",
    "ReportArgs",
    "RunArgs",
    "ScoreArgs",
    "VerdictArgs",
    "option",
    "parse_params",
    "read_api_key",
    "takes",
]

_OPTION = "typer_option"
_HEADER_NAME = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+")
_HEADER_VALUE = re.compile(r"[\x20-\x7e\t]*")
F = TypeVar("F", bound=Callable[..., Any])
L = TypeVar("L", bound="DataclassInstance")  # one of the library's options classes


def option(default: Any, *flags: str, **kwargs: Any) -> Any:
    """A group's field that is a command-line option: ``default`` (``...`` when required), its flags and
    typer's keyword arguments (``help``, ``min``, ``metavar``, ``hidden``...)."""
    info = typer.Option(default, *flags, **kwargs)
    if isinstance(default, list):
        return dataclasses.field(default_factory=list, metadata={_OPTION: info})
    if default is ...:
        return dataclasses.field(metadata={_OPTION: info})
    return dataclasses.field(default=default, metadata={_OPTION: info})


def takes(**groups: type) -> Callable[[F], F]:
    """Give a command the options of each group, built into the group's object under the parameter's name
    (see the module docstring). Two options of one name in a command are a bug, raised at import."""

    def decorate(command: F) -> F:
        signature = inspect.signature(command)
        hints = typing.get_type_hints(command)
        own = [
            p.replace(annotation=hints.get(p.name, p.annotation))
            for p in signature.parameters.values()
            if p.name not in groups
        ]
        added: list[inspect.Parameter] = []
        for group in groups.values():
            types = typing.get_type_hints(group)
            for f in _options_of(group):
                kind = inspect.Parameter.KEYWORD_ONLY
                added.append(inspect.Parameter(f.name, kind, default=f.metadata[_OPTION], annotation=types[f.name]))
        names = [p.name for p in own + added]
        doubled = {n for n in names if names.count(n) > 1}
        if doubled:
            raise TypeError(f"{command.__name__}: options defined twice: {sorted(doubled)}")

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for name, group in groups.items():
                kwargs[name] = group(**{f.name: kwargs.pop(f.name) for f in _options_of(group)})
            return command(*args, **kwargs)

        wrapper.__signature__ = signature.replace(parameters=own + added)  # type: ignore[attr-defined]
        return typing.cast(F, wrapper)

    return decorate


def _options_of(group: type) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(group) if _OPTION in f.metadata]


def parse_params(items: list[str]) -> dict[str, object]:
    """``KEY=VALUE`` pairs; a value is JSON when it parses as JSON, else the text as given.

    A key of the parameter table (docs/pages/reference/rules.md) must have a value of its type and range, as in a set:
    ``--param temperature=5`` would make the endpoint refuse every request. Other keys (``logit_bias``, a
    server's own options) are sent as given.
    """
    import orjson

    from formatkit.parameters import KNOWN_PARAMETERS

    params: dict[str, object] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            fail_usage(f"--param {item!r}: expected KEY=VALUE, e.g. --param temperature=0.7")
        if key in ("stream", "stream_options"):
            fail_usage(
                f"--param {item!r}: formatkit decides streaming itself (it streams by default and reads the "
                "whole reply); use --no-stream to send plain requests"
            )
        try:
            params[key] = orjson.loads(raw)
        except orjson.JSONDecodeError:
            params[key] = raw
        spec = KNOWN_PARAMETERS.get(key)
        problem = spec.problem(params[key]) if spec is not None else None
        if spec is not None and problem is not None:
            kind, _, allowed = problem.partition(":")
            fail_usage(f"--param {item!r}: {key} must be {allowed}" + (" (JSON)" if kind == "type" else ""))
    return params


def read_api_key(command: str, api_key_env: str, lang: str | None = None) -> str | None:
    """The key in ``$api_key_env``, cleaned (a CRLF ``.env`` leaves a ``\\r``), with a warning on stderr when
    it had to be cleaned or when a variable named with --api-key-env is not set (no key is then sent);
    the warnings in ``lang`` (None: the locale's)."""
    from formatkit.cli._failures import say
    from scoring._cli_support import clean_api_key
    from scoring.errors import EndpointSetupError

    try:
        api_key, warning = clean_api_key(os.environ.get(api_key_env))
    except EndpointSetupError as exc:  # a character no header can carry: refused before the first request
        fail_usage(f"${api_key_env}: {exc}")
    if warning:
        typer.echo(say("api_key_cleaned", lang, command=command, env=api_key_env, warning=warning), err=True)
    if api_key is None and api_key_env != "OPENAI_API_KEY":
        typer.echo(say("api_key_unset", lang, command=command, env=api_key_env), err=True)
    return api_key


def check_url(option_name: str, url: str) -> None:
    """Exit 2 with one line when ``url`` is no URL a request can go to (``http://[::1/v1``)."""
    from scoring._cli_support import check_base_url
    from scoring.errors import EndpointSetupError

    try:
        check_base_url(url)
    except EndpointSetupError as exc:
        fail_usage(f"{option_name} {exc}")


def pairs(option_name: str, items: list[str], example: str) -> dict[str, str]:
    """``K=V`` items of a repeatable option (the value may itself hold ``=``)."""
    result: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            fail_usage(f"{option_name} {item!r}: expected {example}")
        key, value = key.strip(), value.strip() if option_name != "--header" else value.lstrip()
        if option_name == "--header" and not (_HEADER_NAME.fullmatch(key) and _HEADER_VALUE.fullmatch(value)):
            fail_usage(
                f"--header {item!r}: HTTP carries header names of letters, digits and -_. and values of printable "
                "ASCII on one line; encode anything else as the server expects (e.g. percent-encoding)"
            )
        result[key] = value
    return result


@dataclasses.dataclass(kw_only=True)
class EndpointArgs:
    """Where and how the model's requests go (``run``, ``eval``)."""

    base_url: list[str] = option(
        ...,
        "--base-url",
        metavar="URL",
        help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (a ?query is kept). Repeat it for replicas "
        "of one model: requests go where there is free capacity, each with its own --concurrency and --rpm.",
    )
    model: str = option(..., "--model", help="Model name (or a platform's endpoint id).")
    api_key_env: str = option(
        "OPENAI_API_KEY", "--api-key-env", help="Environment variable holding the API key (unset: no key)."
    )
    concurrency: int = option(8, "--concurrency", min=1, help="Requests in flight at most.")
    rpm: float | None = option(None, "--rpm", min=0.001, help="Requests per minute at most.")
    max_retries: int = option(
        5, "--max-retries", min=0, help="Retries per request after the first try (rate limits are always waited out)."
    )
    timeout: float = option(
        60.0,
        "--timeout",
        min=0.001,
        help="Longest silence allowed, in seconds: to connect, or between two pieces of a reply.",
    )
    max_time: float | None = option(
        1800.0, "--max-time", min=0.001, help="Cap on one attempt as a whole, in seconds (a reply that trickles ends)."
    )
    min_rate: float = option(
        8.0,
        "--min-rate",
        min=0.0,
        help="Slowest reply allowed, in bytes a second over each --timeout seconds (0: no floor); a slower one is "
        "cut and retried, with replicas on another one.",
    )
    stream: bool = option(True, "--stream/--no-stream", help="Stream replies (SSE; default) or not.")
    header: list[str] = option(
        [], "--header", metavar="NAME=VALUE", help="Extra HTTP header for every request (repeatable)."
    )
    rename_param: list[str] = option(
        [],
        "--rename-param",
        metavar="OLD=NEW",
        help="Send parameter OLD as NEW, e.g. max_tokens=max_completion_tokens.",
    )
    drop_param: list[str] = option([], "--drop-param", metavar="KEY", help="Never send parameter KEY.")
    unavailable_after: int = option(
        3,
        "--unavailable-after",
        min=1,
        help="Stop when this many first requests fail the same way, or this many in a row fail endpoint-wide.",
    )
    backoff_base: float = option(0.5, "--backoff-base", hidden=True, min=0.0)
    rate_limit_window: float = option(60.0, "--rate-limit-window", hidden=True, min=0.0)
    #: The key read by :meth:`endpoint_options` (None: none was sent).
    api_key: str | None = dataclasses.field(default=None, init=False)

    def check(self) -> None:
        """Usage errors found without reading anything (exit 2)."""
        for url in self.base_url:
            if not url.startswith(("http://", "https://")):
                fail_usage(f"--base-url {url!r}: expected an http:// or https:// URL")
            check_url("--base-url", url)
        if len(set(self.base_url)) != len(self.base_url):
            fail_usage("--base-url: the same URL is given twice (give each replica once)")

    def endpoint_options(self, command: str, lang: str | None = None) -> EndpointOptions:
        """The library's options; reads the key from ``$api_key_env`` (warning on stderr as it must, in
        ``lang``)."""
        from scoring import Dialect, EndpointOptions, Limits, RetryPolicy

        self.check()
        headers = pairs("--header", self.header, "NAME=VALUE, e.g. --header api-key=...")
        renames = pairs(
            "--rename-param", self.rename_param, "OLD=NEW, e.g. --rename-param max_tokens=max_completion_tokens"
        )
        self.api_key = read_api_key(command, self.api_key_env, lang)

        def same(kind: type[L], **more: Any) -> L:
            """Options named as the library names them pass as they are (a field added to both passes too)."""
            given = {f.name: getattr(self, f.name) for f in dataclasses.fields(kind) if f.name in _NAMES}
            return kind(**{**given, **more})

        return same(
            EndpointOptions,
            base_url=self.base_url[0],
            replicas=tuple(self.base_url[1:]),
            api_key=self.api_key,
            limits=same(Limits),
            retry=same(RetryPolicy),
            dialect=same(Dialect, headers=headers, rename_params=renames, drop_params=tuple(self.drop_param)),
        )

    def stopped_hint(self, exc: EndpointUnavailableError) -> str:
        """What to check when the endpoint could not serve, worded from the options given."""
        from scoring._cli_support import public_url

        hint = exc.hint or "check the endpoint"
        if self.stream and exc.kind == "backend":
            # LiteLLM words a failing streaming path as a lost connection too: do not blame the network first.
            hint = (
                "the requests were streamed, and a gateway whose streaming path alone fails answers this way too: "
                f"try --no-stream; if plain requests fail as well, {hint}"
            )
        if exc.kind == "key":
            return hint + f" in ${self.api_key_env}" + (" (it is not set)" if self.api_key is None else "")
        urls = " ".join(f"--base-url {public_url(url)}" for url in self.base_url)
        hint += f" ({urls}, --model {self.model})"
        if self.api_key is None and exc.kind in ("refused", "other"):  # LiteLLM answers a missing key with 500
            hint += f"; no API key was sent: set ${self.api_key_env} if the endpoint needs one"
        status = getattr(exc, "status", None)
        if self.stream and exc.kind in ("down", "other") and (status is None or status >= 500):
            # A server whose streaming path is broken answers streamed requests with a 5xx (some gateways
            # word it as a lost connection) while plain requests work.
            hint += "; the requests were streamed: if the server's streaming path is what fails, try --no-stream"
        return hint


_NAMES = {f.name for f in dataclasses.fields(EndpointArgs) if _OPTION in f.metadata}


@dataclasses.dataclass(kw_only=True)
class RunArgs:
    """What is sent for each record, and how a run resumes (``run``, ``eval``)."""

    param: list[str] = option(
        [], "--param", metavar="KEY=VALUE", help="Default parameter (JSON value); the set's own parameters win."
    )
    logprobs: bool = option(False, "--logprobs", help="Ask for logprobs (as --param logprobs=true).")
    retry_empty: int = option(
        0, "--retry-empty", min=0, metavar="N", help="Ask an empty reply again up to N times (also on a rerun)."
    )
    restart: bool = option(False, "--restart", help="Discard the run's journal and start from scratch.")
    progress_interval: float = option(10.0, "--progress-interval", hidden=True, min=0.0)
    processes: int = option(
        1,
        "--processes",
        min=1,
        metavar="N",
        help="Send from N worker processes, each with a share of --concurrency: when the client, not the "
        "endpoint, is the bound (past ~20k streamed tokens/s); one output, journal and progress bar.",
    )

    def defaults(self) -> dict[str, object]:
        """The default parameters (exit 2 on a bad --param)."""
        defaults = parse_params(self.param)
        if self.logprobs:
            defaults.setdefault("logprobs", True)
        return defaults

    def run_options(self, **more: Any) -> RunOptions:
        """The library's options; ``more``: the command's own (defaults, limit, mode, shard, ...)."""
        from scoring import RunOptions

        return RunOptions(retry_empty=self.retry_empty, restart=self.restart, processes=self.processes, **more)


@dataclasses.dataclass(kw_only=True)
class JudgeArgs:
    """The judge endpoint and prompt (``score``, ``eval``)."""

    judge_base_url: list[str] = option(
        [],
        "--judge-base-url",
        metavar="URL",
        help="OpenAI-compatible judge endpoint; repeat it for replicas of the judge model (as --base-url).",
    )
    judge_model: list[str] = option(
        [], "--judge-model", help="Judge model name; given again, a panel of judges at --judge-base-url."
    )
    judge_api_key_env: str = option(
        "OPENAI_API_KEY", "--judge-api-key-env", help="Environment variable holding the judge's key."
    )
    judge_scale: str = option("0-2", "--judge-scale", help="Absolute judge scale, e.g. 0-2 or 1-10.")
    judge_lang: str = option(
        "auto",
        "--judge-lang",
        metavar=judge_lang_metavar(),
        callback=check_judge_lang,
        help="Judge prompt language.",
    )
    judge_template: Path | None = option(None, "--judge-template", help="Your own judge prompt file.")
    judge_panel: Path | None = option(
        None,
        "--judge-panel",
        metavar="FILE",
        help="Judges at several endpoints: jsonl of model, base_url, api_key_env.",
    )
    judge_aggregate: str = option(
        "mean", "--judge-aggregate", metavar="mean|median|majority", help="How a panel's verdicts make one score."
    )
    judge_min_valid: int = option(
        1, "--judge-min-valid", min=1, metavar="K", help="A panel's score needs K valid verdicts, else it is void."
    )
    judge_repeats: int = option(
        1, "--judge-repeats", min=1, metavar="N", help="Ask each judge N times (self-consistency)."
    )
    judge_escalate: bool = option(
        False,
        "--judge-escalate",
        help="Ask the next judge only when the one before is void, flips or contradicts a rule.",
    )

    @property
    def given(self) -> bool:
        return bool(self.judge_base_url) or self.judge_panel is not None

    def check_together(self) -> None:
        """An endpoint without a model, or models without an endpoint (exit 2)."""
        if self.judge_panel is None and (not self.judge_base_url) != (not self.judge_model):
            fail_usage("--judge-base-url and --judge-model go together")

    def judge_options(self, *, command: str = "score", lang: str | None = None, **more: Any) -> JudgeOptions:
        """The library's options; ``more``: the command's own (concurrency, journal path, ...); a panel
        file's judge whose ``api_key_env`` is not set is said on stderr in ``lang``, as ``command``'s."""
        from formatkit.cli._failures import say
        from scoring import JudgeOptions, PanelJudge, read_panel
        from scoring._cli_support import clean_api_key, public_url, repeated_judge
        from scoring.errors import EndpointSetupError, JudgeSetupError

        for url in self.judge_base_url:  # what the judge's client would refuse, before anything is bought
            check_url("--judge-base-url", url)
        if len(set(self.judge_base_url)) != len(self.judge_base_url):
            fail_usage("--judge-base-url: the same URL is given twice (give each replica once)")
        run_url = self.judge_base_url[0] if self.judge_base_url else None
        panel: tuple[PanelJudge, ...] = ()
        if self.judge_panel is not None:
            if self.judge_model:
                fail_usage("--judge-panel names the judges: give it or --judge-model, not both")
            try:
                panel = read_panel(self.judge_panel)
            except JudgeSetupError as exc:
                fail_usage(str(exc))
        elif len(self.judge_model) > 1:
            panel = tuple(PanelJudge(model) for model in self.judge_model)
        twice = repeated_judge(panel, run_url)
        if twice is not None:
            first, again = twice
            judge = panel[again - 1]
            url = public_url(judge.base_url or run_url or "")  # without credentials
            if self.judge_panel is not None:
                key, named = "judge_panel.twice", str(self.judge_panel)
            else:
                key, named = "judge_model.twice", ""
            fail_usage(say(key, lang, file=named, first=first, again=again, model=judge.model, url=url))
        if self.judge_panel is not None:
            for n, judge in enumerate(panel, 1):
                if judge.api_key_env and not os.environ.get(judge.api_key_env):
                    warning = say(
                        "judge_panel.key_unset",
                        lang,
                        command=command,
                        file=str(self.judge_panel),
                        number=n,
                        model=judge.model,
                        env=judge.api_key_env,
                    )
                    typer.echo(warning, err=True)
        if self.judge_aggregate not in ("mean", "median", "majority"):
            fail_usage(f"--judge-aggregate {self.judge_aggregate!r}: expected mean, median or majority")
        # what the judges' clients would refuse, before anything is bought
        endpoints = {(j.base_url or run_url, j.api_key_env or self.judge_api_key_env) for j in panel}
        if run_url is not None and not panel:
            endpoints.add((run_url, self.judge_api_key_env))
        for where, key_env in sorted(endpoints, key=str):
            if where is None:
                fail_usage(f"{self.judge_panel}: a judge without a base_url needs --judge-base-url")
            check_url("--judge-base-url", where)
            try:
                clean_api_key(os.environ.get(key_env))
            except EndpointSetupError as exc:
                fail_usage(f"${key_env}: {exc}")
        return JudgeOptions(
            judge_base_url=run_url,
            judge_replicas=tuple(self.judge_base_url[1:]),
            judge_model=panel[0].model if panel else (self.judge_model[0] if self.judge_model else None),
            judge_api_key_env=self.judge_api_key_env,
            judge_scale=self.judge_scale,
            judge_lang=self.judge_lang,
            judge_template=self.judge_template,
            judge_panel=panel,
            judge_aggregate=self.judge_aggregate,  # type: ignore[arg-type]  # checked above
            judge_min_valid=self.judge_min_valid,
            judge_repeats=self.judge_repeats,
            judge_escalate=self.judge_escalate,
            **more,
        )


@dataclasses.dataclass(kw_only=True)
class ScoreArgs:
    """How rule metrics score (``score``, ``eval``)."""

    math_timeout: float = option(2.0, "--math-timeout", min=0.01, help="Per-item time limit for sympy (seconds).")
    dataset_metric: list[str] = option(
        [],
        "--dataset-metric",
        metavar="DATASET=METRIC",
        help="Score DATASET with rule METRIC where auto would choose (e.g. 客服话术=keywords; repeatable).",
    )

    def dataset_metrics(self) -> dict[str, str] | None:
        """The --dataset-metric pairs, each naming a rule metric (exit 2 otherwise)."""
        from scoring._cli_support import metric_names

        declared = pairs("--dataset-metric", self.dataset_metric, "DATASET=METRIC, e.g. 客服话术=keywords")
        rules = metric_names("rule")
        for dataset, metric in declared.items():
            if metric not in rules:
                fail_usage(
                    f"--dataset-metric {dataset}={metric}: METRIC is one of the rule metrics: {', '.join(rules)}"
                )
        return declared or None

    def warn_undeclared(self, datasets: Iterable[str], lang: str | None) -> None:
        """A --dataset-metric naming no dataset of the input (a typo falls back to auto): said on stderr."""
        from formatkit.cli._failures import say

        seen = set(datasets)
        for dataset in self.dataset_metrics() or {}:
            if dataset not in seen:
                known = ", ".join(sorted(seen))
                typer.echo(say("dataset_metric_unknown", lang, dataset=dataset, known=known), err=True)

    def score_options(self, **more: Any) -> ScoreOptions:
        """The library's options; ``more``: the command's own (metric, workers, ...)."""
        from scoring import ScoreOptions

        return ScoreOptions(math_timeout=self.math_timeout, dataset_metrics=self.dataset_metrics(), **more)


@dataclasses.dataclass(kw_only=True)
class ReportArgs:
    """How results are grouped in a report (``report``, ``eval``)."""

    dimensions: Path | None = option(None, "--dimensions", help='JSON file: {"dataset": "dimension"}.')

    def mapping(self) -> dict[str, str] | None:
        """The --dimensions file read and checked (exit 2 when it is not a map of names to names)."""
        path = self.dimensions
        if path is None:
            return None
        import orjson

        from formatkit._cli_support import read_small_file
        from formatkit.errors import SmallFileError

        try:
            data = orjson.loads(read_small_file(path))
        except SmallFileError as exc:
            fail_usage(f"--dimensions {exc}")
        except orjson.JSONDecodeError as exc:
            fail_usage(f'{path}: not JSON ({exc}); write {{"dataset": "dimension", ...}}')
        if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            fail_usage(f'{path}: expected a JSON object of dataset names to dimension names, {{"gsm8k": "推理数学"}}')
        return dict(data)


@dataclasses.dataclass(kw_only=True)
class VerdictArgs:
    """How judge verdicts count in a summary or report (``score``, ``report``, ``eval``)."""

    void_as_zero: bool = option(
        False, "--void-as-zero", help="Count a void judge verdict (no readable verdict) as the lowest score."
    )


@dataclasses.dataclass(kw_only=True)
class IssueArgs:
    """How many issues are listed (``validate``, ``convert``, ``eval``)."""

    max_issues: int = option(5, "--max-issues", min=1, help="Places listed per issue code.")
    show_all: bool = option(False, "--all", help="List every issue, not only the first of each code.")

    @property
    def shown(self) -> int | None:
        """How many issues of each code to list: ``--max-issues N``, or all of them with ``--all``."""
        return None if self.show_all else self.max_issues
