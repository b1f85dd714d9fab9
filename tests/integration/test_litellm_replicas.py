"""Several gateways in one run (issue #30 item 1): two LiteLLM proxies, each in front of its own model server,
given as two ``--base-url``. The requests spread over both; when the server behind one proxy dies mid-run,
that proxy answers as LiteLLM does (a 500 saying its backend cannot be reached), formatkit drops it and the
other answers the rest: every record once, nothing bought twice beyond what was in flight on the dead one.

Marked ``gateway`` (run with ``pytest -m gateway tests/integration`` after ``pip install 'litellm[proxy]'``);
skipped when the proxy is not installed.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fakeserver import FakeOpenAI
from litellm_proxy import gateway_marks, running_proxy

from scoring import EndpointOptions, Limits, RetryPolicy, run_file

pytestmark = gateway_marks


def _config(replica: FakeOpenAI) -> str:
    return f"""
model_list:
  - model_name: pool
    litellm_params: {{model: openai/replica, api_key: sk-unused, api_base: "{replica.base_url}"}}
litellm_settings:
  telemetry: false
  num_retries: 0
  request_timeout: 30
"""


@pytest.fixture(scope="module")
def gateways(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[str], str, list[FakeOpenAI]]]:
    replicas = [FakeOpenAI().start(), FakeOpenAI().start()]
    key = "sk-" + secrets.token_hex(32)  # one key for both proxies, as one --api-key-env sends
    try:
        with contextlib.ExitStack() as stack:
            urls = [
                stack.enter_context(running_proxy(_config(r), tmp_path_factory.mktemp(f"litellm-{i}"), key=key))[0]
                for i, r in enumerate(replicas)
            ]
            yield urls, key, replicas
    finally:
        for replica in replicas:
            replica.release()
            replica.stop()


def _run(src: Path, out: Path, urls: list[str], key: str, notes: list[str]) -> Any:
    endpoint = EndpointOptions(
        urls[0],
        "pool",
        replicas=tuple(urls[1:]),
        api_key=key,
        limits=Limits(concurrency=3),
        retry=RetryPolicy(backoff_base=0.01),
    )
    return run_file(src, out, endpoint, progress=_Notes(notes))


def test_two_gateways_share_a_run_and_one_whose_backend_dies_is_dropped(
    gateways: tuple[list[str], str, list[FakeOpenAI]], tmp_path: Path
) -> None:
    urls, key, replicas = gateways
    alive, doomed = replicas
    for replica in replicas:
        replica.reset()
        replica.delay = 0.01
    doomed.hold_after(5)  # answers 5 through its gateway, then holds: requests surely in flight when it dies
    count = 60
    src, out = tmp_path / "set.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(b"".join(orjson.dumps({"prompt": f"题 {i}", "answer": str(i)}) + b"\n" for i in range(count)))
    notes: list[str] = []
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["summary"] = _run(src, out, urls, key, notes)
        except BaseException as exc:  # pragma: no cover - reported below
            outcome["error"] = exc

    worker = threading.Thread(target=run)
    worker.start()
    for _ in range(600_000):  # until the doomed server holds requests (a count, not a time)
        if doomed.requests > 5 or not worker.is_alive():
            break
        threading.Event().wait(0.001)
    held = doomed.requests - 5
    assert held >= 1
    doomed.go_down()  # the model server behind the second gateway dies; the gateway itself stays up
    worker.join(300)
    assert "error" not in outcome, outcome.get("error")
    summary = outcome["summary"]
    assert summary.finished == count and summary.with_errors == 0
    responses = [orjson.loads(line)["messages"][-1]["responses"][0] for line in out.read_bytes().splitlines()]
    assert [r["content"] for r in responses] == [f"题 {i}" for i in range(count)]
    by_gateway = Counter(r["endpoint"] for r in responses)
    figures = (by_gateway, urls, alive.requests, doomed.requests, held, summary.run_record["endpoints"])
    # the dead one's gateway delivered the replies its backend gave before dying — all 5, or fewer: LiteLLM once
    # lost 2 of them in CI as the backend went down (the gateway's doing; the run then buys those again)
    kept = by_gateway[urls[1]]
    assert 1 <= kept <= 5 and by_gateway[urls[0]] == count - kept, figures
    # nothing lost; bought twice at most what the dead one did not deliver
    assert alive.requests == count - kept
    assert doomed.requests <= 5 + 3
    endpoints = summary.run_record["endpoints"]
    assert endpoints[0]["dropped"] is None
    # out of use for now (proven down, or set aside as its requests failed while the other answered), to be
    # tried again later (issue #39)
    dropped = endpoints[1]["dropped"]
    assert ("cannot serve" in dropped or "set aside" in dropped) and endpoints[1]["replies"] == kept
    assert any(urls[1] in note and "tries it again" in note for note in notes)
    assert key not in orjson.dumps(summary.run_record).decode()


class _Notes:
    def __init__(self, notes: list[str]) -> None:
        self.notes = notes

    def start(self, total: int | None) -> None:
        pass

    def advance(self, *, resumed: bool = False, error: bool = False) -> None:
        pass

    def stop(self) -> None:
        pass

    def note(self, text: str) -> None:
        self.notes.append(text)
