"""``--estimate`` of ``run`` and ``eval``: the bill before paying, printed as text or ``--json``; nothing is sent
but the free calls to the endpoint's tokenize route (:mod:`scoring._runner.estimate`)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from formatkit.cli._common import fail_usage
from formatkit.cli._failures import say
from formatkit.cli._options import option

if TYPE_CHECKING:
    from scoring import Estimate, Prices


@dataclasses.dataclass(kw_only=True)
class EstimateArgs:
    """What a run would cost, before paying (``run``, ``eval``)."""

    estimate: bool = option(
        False,
        "--estimate",
        help="Send nothing: print the requests, prompt tokens (exact through the endpoint's tokenize route where it "
        "has one), the worst case of the output from max_tokens, and the cost with --prices.",
    )
    json: bool = option(False, "--json", help="With --estimate: print the estimate as JSON on stdout.")
    prices: Path | None = option(
        None,
        "--prices",
        metavar="FILE",
        help='With --estimate: JSON {"prompt": P, "output": Q, "currency": "CNY"} per million tokens (or per model).',
    )
    tokenizer: Path | None = option(
        None,
        "--tokenizer",
        metavar="FILE",
        help="With --estimate: the model's tokenizer.json, used where the endpoint has no tokenize route.",
    )

    def check(self) -> None:
        """The estimate's own options without --estimate are bad usage (exit 2)."""
        if not self.estimate:
            for given, name in ((self.json, "--json"), (self.prices, "--prices"), (self.tokenizer, "--tokenizer")):
                if given:
                    fail_usage(f"{name} goes with --estimate")

    def read_prices(self, model: str) -> Prices | None:
        if self.prices is None:
            return None
        from scoring import read_prices
        from scoring.errors import PricesError

        try:
            return read_prices(self.prices, model)
        except PricesError as exc:
            fail_usage(str(exc))

    def show(self, estimate: Estimate, lang: str | None) -> None:
        """The estimate on stdout as JSON (``--json``), else as lines on stderr."""
        if self.json:
            import orjson

            sys.stdout.write(orjson.dumps(estimate.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n")
            sys.stdout.flush()
            return
        for line in estimate_lines(estimate, lang, tokenizer=self.tokenizer):
            typer.echo(line, err=True)


def estimate_lines(estimate: Estimate, lang: str | None, *, tokenizer: Path | None = None) -> list[str]:
    """The estimate in words, in ``lang``."""
    from formatkit.messages import locale_lang
    from scoring._cli_support import CHARS_PER_TOKEN, MESSAGE_OVERHEAD

    method = {
        "tokenize": say("estimate.by_tokenize", lang),
        "tokenizer": say("estimate.by_tokenizer", lang, tokenizer=tokenizer, overhead=MESSAGE_OVERHEAD),
        "ratio": say(
            "estimate.by_ratio_tokenizer_failed" if tokenizer is not None else "estimate.by_ratio",
            lang,
            cjk=CHARS_PER_TOKEN["cjk"],
            latin=CHARS_PER_TOKEN["latin"],
            overhead=MESSAGE_OVERHEAD,
        ),
    }[estimate.prompt_tokens_method]
    lines = [
        say("estimate.requests", lang, estimate),
        say("estimate.prompt", lang, tokens=estimate.prompt_tokens, method=method),
        say("estimate.output", lang, tokens=estimate.max_output_tokens),
    ]
    if estimate.history_tokens or estimate.unbounded_history:
        lines.append(say("estimate.history", lang, tokens=estimate.history_tokens))
    if estimate.unbounded_requests:
        lines.append(say("estimate.unbounded", lang, count=estimate.unbounded_requests))
    if estimate.judge_requests:
        lines.append(say("estimate.judge", lang, count=estimate.judge_requests))
    if estimate.cost is not None:
        partial = estimate.unbounded_requests or estimate.unbounded_history
        key = "estimate.cost_partial" if partial else "estimate.cost"
        lines.append(say(key, lang, cost=f"{estimate.cost:.4f}", currency=estimate.currency, count=partial))
    lines.extend(say("estimate.note", lang, note=note.render(lang or locale_lang())) for note in estimate.notes)
    return lines
