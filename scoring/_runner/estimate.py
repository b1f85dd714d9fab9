"""The bill before paying: what a run would send, counted in requests and tokens, priced — with no request sent.

Prompt tokens are counted one of three ways, the best the setting allows, and the estimate says which
(``prompt_tokens_method``):

- ``tokenize``: the endpoint's own tokenizer, through its tokenize route (vLLM and SGLang serve ``POST
  /tokenize`` beside ``/v1``, taking the chat ``messages`` and applying the model's chat template): exact.
  These calls are free (no completion is asked); they are the only calls an estimate makes.
- ``tokenizer``: a tokenizer file the user names (``tokenizer.json`` of the model, read with the
  ``tokenizers`` package when it is installed), over the messages' text plus a fixed overhead per message.
- ``ratio``: characters per token, Chinese and Latin apart (:data:`CHARS_PER_TOKEN`), plus the same overhead:
  an approximation, said as one.

The worst case of the output is each request's ``max_tokens`` (``max_completion_tokens``); a request with
none has no worst case, and the estimate counts those requests instead of inventing a bound. Money is priced
from a price file the user gives (:func:`read_prices`)."""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from formatkit._core.messages import Msg
from formatkit._core.record import RecordDict
from scoring._client.body import read_body
from scoring._errors import MalformedResponseError, PricesError, ReplyTooLargeError
from scoring._runner.requests import max_tokens_of

__all__ = [
    "CHARS_PER_TOKEN",
    "MESSAGE_OVERHEAD",
    "Estimate",
    "EstimateMethod",
    "Prices",
    "PricesError",
    "count_estimate",
    "ratio_tokens",
    "read_prices",
    "tokenize_url",
]

EstimateMethod = Literal["tokenize", "tokenizer", "ratio"]

#: Characters per token, by script, for the ``ratio`` method: a Chinese (CJK) character is about 0.7 token in
#: the tokenizers of today's Chinese-capable models (Qwen, DeepSeek, GLM, GPT-4o), Latin text about 4
#: characters a token; digits, punctuation and spaces count with the Latin text.
CHARS_PER_TOKEN: dict[str, float] = {"cjk": 1.4, "latin": 4.0}
#: Tokens a chat template adds per message (role markers, separators), and once per request (the
#: assistant's opening), for the ``ratio`` and ``tokenizer`` methods.
MESSAGE_OVERHEAD = 4
REQUEST_OVERHEAD = 3

_CJK = re.compile(r"[\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def _texts(messages: Iterable[Any]) -> Iterator[str]:
    for message in messages:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            yield content
        elif isinstance(content, list):  # content parts: the text ones
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    yield part["text"]


def ratio_tokens(messages: list[Any]) -> int:
    """The prompt tokens of ``messages`` by :data:`CHARS_PER_TOKEN` and the template overheads."""
    total = 0.0
    for text in _texts(messages):
        cjk = len(_CJK.findall(text))
        total += cjk / CHARS_PER_TOKEN["cjk"] + (len(text) - cjk) / CHARS_PER_TOKEN["latin"]
    return round(total) + MESSAGE_OVERHEAD * len(messages) + REQUEST_OVERHEAD


@dataclass(frozen=True)
class Prices:
    """Money per million tokens, prompt and output apart, in ``currency``."""

    prompt: float
    output: float
    currency: str = ""

    def cost(self, prompt_tokens: int, output_tokens: int) -> float:
        return (prompt_tokens * self.prompt + output_tokens * self.output) / 1_000_000


#: The most a price file may hold (one entry per model of a large catalogue is a few hundred KiB).
MAX_PRICES_BYTES = 4 << 20
#: The most a tokenizer file may hold (the largest ``tokenizer.json`` of today's models is about 35 MB).
MAX_TOKENIZER_BYTES = 256 << 20
#: A price (per million tokens) above this is no price: a typo, or a number meant to overflow the bill.
MAX_PRICE = 1e9
#: A prompt's token count above this is no count (no model reads 100 million tokens at once).
MAX_PROMPT_TOKENS = 100_000_000
#: The most a tokenize route's reply may hold (the token ids of the longest prompt, as JSON).
MAX_TOKENIZE_REPLY = 64 << 20


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; OSError (with the reason) otherwise: a device
    (``/dev/zero``), a pipe or a larger file is refused before it is read past the bound."""
    import os

    with open(path, "rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        import stat

        if not stat.S_ISREG(mode):
            raise OSError(f"{path}: not a regular file")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"{path}: larger than {limit >> 20} MiB")
    return data


def read_prices(path: str | Path, model: str) -> Prices:
    """A price file: JSON, either one price ``{"prompt": 0.8, "output": 2.0, "currency": "CNY"}`` (per
    million tokens) or such an entry per model name (``{"qwen-plus": {...}, "gpt-4o": {...}}``). Read with a
    bound (:data:`MAX_PRICES_BYTES`, a regular file); each price finite, 0 to :data:`MAX_PRICE`."""
    try:
        data = orjson.loads(read_bounded(path, MAX_PRICES_BYTES))
    except (OSError, orjson.JSONDecodeError) as exc:
        raise PricesError(f"--prices {path}: cannot read it as JSON ({exc})") from None
    if isinstance(data, dict) and "prompt" not in data and model in data:
        data = data[model]
    if not isinstance(data, dict) or not all(
        isinstance(data.get(k), int | float) and not isinstance(data.get(k), bool) and 0 <= data[k] <= MAX_PRICE
        for k in ("prompt", "output")
    ):
        raise PricesError(
            f'--prices {path}: expected {{"prompt": P, "output": Q, "currency": "CNY"}} (P and Q per million tokens, '
            f"0 to {MAX_PRICE:g}), or such an entry under the model's name {model!r:.200}"
        )
    currency = data.get("currency")
    if currency is not None and not (isinstance(currency, str) and len(currency) <= 16 and currency.isprintable()):
        raise PricesError(f"--prices {path}: the currency is a short name such as CNY or USD")
    return Prices(float(data["prompt"]), float(data["output"]), str(data.get("currency") or ""))


@dataclass
class Estimate:
    """What a run would send: ``requests``, ``prompt_tokens`` (counted by ``prompt_tokens_method``), the worst
    case of the output (``max_output_tokens``, over the requests that set a ``max_tokens``) and the requests
    that set none (``unbounded_requests``: no worst case for them); ``cost`` with a price file."""

    requests: int = 0
    prompt_tokens: int = 0
    prompt_tokens_method: EstimateMethod = "ratio"
    max_output_tokens: int = 0
    unbounded_requests: int = 0
    #: Later turns of a conversation send back the replies the run writes first to the earlier turns: their
    #: worst case (the earlier turns' max_tokens) is prompt tokens not in ``prompt_tokens``; requests whose
    #: earlier turns set no max_tokens are counted in ``unbounded_history``.
    history_tokens: int = 0
    unbounded_history: int = 0
    records_with_work: int = 0
    already_finished: int = 0
    records: int = 0
    judge_requests: int = 0
    cost: float | None = None
    currency: str = ""
    #: Why a better method was not used (the tokenize route refused, no tokenizer package).
    notes: list[Msg] = field(default_factory=list)

    def price(self, prices: Prices) -> None:
        cost = prices.cost(self.prompt_tokens + self.history_tokens, self.max_output_tokens)
        if not math.isfinite(cost):  # bounded prices and counts cannot get here; a bill of "inf" is never said
            raise PricesError(f"the cost does not fit a number ({cost}): check the --prices file")
        self.cost = round(cost, 6)
        self.currency = prices.currency

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "requests": self.requests,
            "judge_requests": self.judge_requests,
            "prompt_tokens": self.prompt_tokens,
            "prompt_tokens_method": self.prompt_tokens_method,
            "max_output_tokens": self.max_output_tokens,
            "unbounded_requests": self.unbounded_requests,
            "history_tokens": self.history_tokens,
            "unbounded_history": self.unbounded_history,
            "records": self.records,
            "records_with_work": self.records_with_work,
            "already_finished": self.already_finished,
        }
        if self.cost is not None:
            out["cost"] = self.cost
            out["currency"] = self.currency
        if self.notes:
            out["notes"] = [str(note) for note in self.notes]
        return out


#: Counts the prompt tokens of a batch of request bodies (one number per body, in order).
BatchCounter = Callable[[list[dict[str, object]]], list[int]]


def count_estimate(
    pending: Iterable[tuple[RecordDict | None, int]],
    bodies: Callable[[RecordDict], Iterable[tuple[dict[str, object], int | None]]],
    counter: BatchCounter,
    method: EstimateMethod,
    *,
    batch: int = 256,
) -> Estimate:
    """Sum what ``pending`` (each record with its request count; None: finished) would send, the bodies of a
    record's requests from ``bodies``, their prompt tokens from ``counter`` (in batches of ``batch``)."""
    estimate = Estimate(prompt_tokens_method=method)
    waiting: list[dict[str, object]] = []

    def flush() -> None:
        if waiting:
            estimate.prompt_tokens += sum(counter(waiting))
            waiting.clear()

    for record, count in pending:
        estimate.records += 1
        if record is None:
            estimate.already_finished += 1
            continue
        if not count:
            continue
        estimate.records_with_work += 1
        for body, replayed in bodies(record):
            estimate.requests += 1
            if replayed is None:
                estimate.unbounded_history += 1
            else:
                estimate.history_tokens += replayed
            most = max_tokens_of(body)
            if most is None:
                estimate.unbounded_requests += 1
            else:
                estimate.max_output_tokens += most
            waiting.append(body)
            if len(waiting) >= batch:
                flush()
    flush()
    return estimate


def _messages(body: Mapping[str, object]) -> list[Any]:
    """A request body's messages (none when it has no list there)."""
    messages = body.get("messages")
    return list(messages) if isinstance(messages, list) else []


def ratio_counter(bodies: list[dict[str, object]]) -> list[int]:
    return [ratio_tokens(_messages(body)) for body in bodies]


def tokenizer_counter(path: str | Path) -> BatchCounter:
    """A counter from a ``tokenizer.json`` file (the ``tokenizers`` package); ImportError or OSError/ValueError
    when the package is missing or the file is not a tokenizer."""
    # the file first: a device or an oversized file is refused whether or not the package is installed
    text = read_bounded(path, MAX_TOKENIZER_BYTES).decode("utf-8", "replace")
    from tokenizers import Tokenizer  # type: ignore[import-not-found,unused-ignore]

    try:
        with _rust_panics_unprinted():
            tokenizer = Tokenizer.from_str(text)
    except BaseException as exc:  # the package's Rust panics are BaseException (pyo3's PanicException)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise ValueError(f"{type(exc).__name__}: {str(exc)[:300]}") from None

    def count(bodies: list[dict[str, object]]) -> list[int]:
        out = []
        for body in bodies:
            messages = _messages(body)
            texts = list(_texts(messages))
            try:
                with _rust_panics_unprinted():
                    encoded = tokenizer.encode_batch(texts, add_special_tokens=False) if texts else []
            except BaseException as exc:  # a pattern that backtracks past the regex engine's limit panics
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    raise
                raise TokenizerFailed(f"{type(exc).__name__}: {str(exc)[:300]}") from None
            out.append(sum(len(e.ids) for e in encoded) + MESSAGE_OVERHEAD * len(messages) + REQUEST_OVERHEAD)
        return out

    return count


@contextlib.contextmanager
def _rust_panics_unprinted() -> Iterator[None]:
    """The ``tokenizers`` package's Rust panic hook writes the panic and a backtrace straight to file
    descriptor 2: while the package runs, that descriptor points at a temporary file (the panic comes back as
    an exception, said as a note), then back at stderr. Nothing else writes meanwhile (no request is in flight
    during an estimate)."""
    import os
    import sys
    import tempfile

    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no descriptor 2 (an embedded interpreter): nothing to hide it from
        yield
        return
    try:
        with tempfile.TemporaryFile() as sink:
            os.dup2(sink.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved, 2)
    finally:
        os.close(saved)


class TokenizerFailed(RuntimeError):
    """The tokenizer file loaded but failed while counting (a Rust panic in the ``tokenizers`` package)."""


def tokenize_url(base_url: str) -> str:
    """The tokenize route beside an OpenAI-compatible base URL: ``http://h:8000/v1`` → ``http://h:8000/tokenize``
    (vLLM and SGLang serve it at the server's root)."""
    root, _, query = base_url.partition("?")
    root = root.rstrip("/")
    if root.endswith("/v1"):
        root = root[: -len("/v1")]
    return root + "/tokenize" + (f"?{query}" if query else "")


class TokenizeRefused(RuntimeError):
    """The endpoint has no usable tokenize route (404, an error, a reply without a count)."""


def tokenize_counter(
    url: str, model: str, headers: Mapping[str, str], *, concurrency: int = 16, timeout: float = 30.0
) -> BatchCounter:
    """A counter that asks the endpoint's tokenize route for each body (``{"model", "messages"}`` in,
    ``{"count": N}`` out, as vLLM answers); :class:`TokenizeRefused` when it cannot."""
    import httpx

    async def ask_all(bodies: list[dict[str, object]]) -> list[int]:
        gate = asyncio.Semaphore(concurrency)
        async with httpx.AsyncClient(timeout=timeout, headers=dict(headers)) as client:

            async def ask(body: dict[str, object]) -> int:
                payload = {"model": model, "messages": body.get("messages") or [], "add_generation_prompt": True}
                async with gate:
                    try:
                        async with client.stream("POST", url, content=orjson.dumps(payload)) as reply:
                            if reply.status_code != 200:
                                raise TokenizeRefused(f"{url}: HTTP {reply.status_code}")
                            raw = await read_body(reply, MAX_TOKENIZE_REPLY, what="the tokenize route's reply")
                    except (httpx.HTTPError, ReplyTooLargeError, MalformedResponseError) as exc:
                        raise TokenizeRefused(f"{url}: {type(exc).__name__}: {str(exc)[:200]}") from None
                try:
                    data = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    raise TokenizeRefused(f"{url}: the reply is not JSON") from None
                count = data.get("count") if isinstance(data, dict) else None
                if count is None:
                    tokens = data.get("tokens") if isinstance(data, dict) else None
                    if not isinstance(tokens, list):
                        raise TokenizeRefused(f"{url}: the reply holds no token count")
                    count = len(tokens)
                # a count is a whole number of tokens a prompt can hold: not -5, not 10**18, not true
                if type(count) is not int or not 0 < count <= MAX_PROMPT_TOKENS:
                    raise TokenizeRefused(f"{url}: the reply's count {str(count)[:40]} is no token count")
                return count

            return list(await asyncio.gather(*(ask(body) for body in bodies)))

    def count(bodies: list[dict[str, object]]) -> list[int]:
        return asyncio.run(ask_all(bodies))

    return count
