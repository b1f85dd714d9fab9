"""Fan-out over replicas without a balancer of ours: one LiteLLM router in front of two model servers.

The recipe of docs/pages/guide/gateways.md: point ``--base-url`` at LiteLLM's proxy, whose ``model_list`` names
one model twice (two deployments: two replicas of one model server); the router spreads the requests over both.
Here the two replicas are two fake servers on 127.0.0.1 and the run is also split with ``--shard`` and merged,
as on two machines: every record is answered once, both replicas serve, and nothing is sent twice.

Marked ``gateway`` (run with ``pytest -m gateway tests/integration`` after ``pip install 'litellm[proxy]'``);
skipped when the proxy is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from fakeserver import FakeOpenAI
from litellm_proxy import gateway_marks, running_proxy
from typer.testing import CliRunner

from formatkit.cli import app

pytestmark = gateway_marks


def _config(replicas: list[FakeOpenAI]) -> str:
    deployments = "".join(
        f"""
  - model_name: pool
    litellm_params: {{model: openai/replica, api_key: sk-unused, api_base: "{replica.base_url}"}}"""
        for replica in replicas
    )
    return f"""
model_list:{deployments}
router_settings:
  routing_strategy: simple-shuffle
litellm_settings:
  telemetry: false
  num_retries: 0
  request_timeout: 30
"""


@pytest.fixture(scope="module")
def router(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, list[FakeOpenAI]]]:
    replicas = [FakeOpenAI().start(), FakeOpenAI().start()]
    try:
        with running_proxy(_config(replicas), tmp_path_factory.mktemp("litellm-router")) as (url, key):
            yield url, key, replicas
    finally:
        for replica in replicas:
            replica.stop()


def test_one_router_spreads_a_sharded_run_over_two_replicas(
    router: tuple[str, str, list[FakeOpenAI]], tmp_path: Path
) -> None:
    url, key, replicas = router
    for replica in replicas:
        replica.reset()
        replica.delay = 0.02
    count = 60
    src = tmp_path / "set.jsonl"
    src.write_bytes(b"".join(orjson.dumps({"prompt": f"题 {i}", "answer": str(i)}) + b"\n" for i in range(count)))
    parts = []
    for k in (1, 2):  # two "machines", each one part, both through the one router
        part = tmp_path / f"part{k}.jsonl"
        args = ["run", str(src), "-o", str(part), "--base-url", url, "--model", "pool", "--shard", f"{k}/2"]
        result = CliRunner(env={"FK_KEY": key}).invoke(app, [*args, "--api-key-env", "FK_KEY", "--concurrency", "6"])
        assert result.exit_code == 0, result.output
        parts.append(part)
    merged = tmp_path / "all.jsonl"
    result = CliRunner().invoke(app, ["merge", *map(str, parts), "-o", str(merged)])
    assert result.exit_code == 0, result.output
    records = [orjson.loads(line) for line in merged.read_bytes().splitlines()]
    assert [r["messages"][0]["content"] for r in records] == [f"题 {i}" for i in range(count)]
    assert all(r["messages"][-1]["responses"][0]["content"] == f"题 {i}" for i, r in enumerate(records))
    served = [replica.requests for replica in replicas]
    print(f"\nrequests per replica: {served}")  # figures for the note (-s)
    assert sum(served) == count  # each record once: nothing sent twice, nothing lost
    assert min(served) >= count // 6  # both replicas served a fair share
    record = orjson.loads((tmp_path / "part1.jsonl.run.json").read_bytes())
    assert key not in orjson.dumps(record).decode()
