"""The shipped Kubernetes manifests (docs/jobs/kubernetes-eval-*.yaml), checked as far as can be without a
cluster: filled in with envsubst as their header says, parsed as YAML, their Job fields checked, and each
pod's command line run as the pod would run it (JOB_COMPLETION_INDEX set, the container's environment)
against the fake server; the merged parts equal one machine's eval. The pods' runs start formatkit a dozen
times, so they are marked ``jobs`` (CI runs ``pytest -m jobs`` as its own step, with the Slurm array)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from fakeserver import FakeOpenAI
from typer.testing import CliRunner

from formatkit.cli import app

JOBS = Path(__file__).parents[2] / "docs" / "jobs"
PARTS = 3
#: the variables the header's envsubst names, and only those
NAMES = ("FORMATKIT_IMAGE", "FORMATKIT_CLAIM", "FORMATKIT_INPUT", "FORMATKIT_OUT", "FORMATKIT_PARTS",
         "FORMATKIT_BASE_URL", "FORMATKIT_MODEL", "FORMATKIT_OPTIONS")  # fmt: skip


def write_set(path: Path) -> Path:
    """Two datasets, Chinese included: 11 records."""
    lines = [
        orjson.dumps({"prompt": f"题目 {i}：1+{i}=？", "answer": str(1 + i), "meta": {"dataset": "算术"}})
        for i in range(8)
    ]
    lines += [
        orjson.dumps({"prompt": f"q{i} (A) yes (B) no", "answer": "A", "meta": {"dataset": "choice"}}) for i in range(3)
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def fill(name: str, values: dict[str, str]) -> str:
    """The manifest as ``envsubst '$FORMATKIT_IMAGE ...' < NAME`` gives it (Python's equivalent where
    gettext's envsubst is not installed)."""
    text = (JOBS / name).read_text(encoding="utf-8")
    if shutil.which("envsubst"):
        listed = " ".join(f"${n}" for n in NAMES)
        done = subprocess.run(["envsubst", listed], input=text, env=values, capture_output=True, text=True, check=True)
        return done.stdout
    return re.sub(
        r"\$\{(\w+)\}|\$(\w+)", lambda m: values.get(m[1] or m[2], m[0]) if (m[1] or m[2]) in NAMES else m[0], text
    )


def container(manifest: dict[str, Any]) -> dict[str, Any]:
    containers = manifest["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return dict(containers[0])


def pod_env(spec: dict[str, Any], **extra: str) -> dict[str, str]:
    """The container's environment as the kubelet sets it (the secret's key empty), formatkit on PATH."""
    env = {e["name"]: e["value"] for e in spec["env"] if "value" in e}
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return {**env, "OPENAI_API_KEY": "", "PATH": path, "LANG": "C.UTF-8", **extra}


def run_pod(spec: dict[str, Any], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = spec["command"]
    # Kubernetes expands $(NAME) in a command for the container's variables: the shell's $((...)) is no such name
    assert not set(re.findall(r"\$\((\w+)\)", " ".join(command))) & set(env)
    return subprocess.run(command, env=env, capture_output=True, text=True, check=False)


def records(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_bytes().splitlines():
        record = orjson.loads(line)
        for message in record["messages"]:
            for response in message.get("responses") or []:
                response.pop("latency_ms", None)
                response.pop("ttft_ms", None)
        out.append(record)
    return out


@pytest.fixture
def values(fake_openai: FakeOpenAI, tmp_path: Path) -> dict[str, str]:
    return {
        "FORMATKIT_IMAGE": "registry.example.com/formatkit:1",
        "FORMATKIT_CLAIM": "eval-data",
        "FORMATKIT_INPUT": str(write_set(tmp_path / "set.jsonl")),
        "FORMATKIT_OUT": str(tmp_path / "sharded"),
        "FORMATKIT_PARTS": str(PARTS),
        "FORMATKIT_BASE_URL": fake_openai.base_url,
        "FORMATKIT_MODEL": "fake",
        "FORMATKIT_OPTIONS": "--concurrency 2",
    }


def test_the_parts_job_is_an_indexed_job_of_n_pods(values: dict[str, str]) -> None:
    manifest = yaml.safe_load(fill("kubernetes-eval-parts.yaml", values))
    assert manifest["kind"] == "Job" and manifest["apiVersion"] == "batch/v1"
    spec = manifest["spec"]
    assert spec["completionMode"] == "Indexed"
    assert spec["completions"] == spec["parallelism"] == PARTS
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    part = container(manifest)
    assert part["image"] == values["FORMATKIT_IMAGE"]
    script = part["command"][-1]
    assert "JOB_COMPLETION_INDEX + 1" in script and "--shard" in script
    # the key comes from a secret, never from the file
    key = next(e for e in part["env"] if e["name"] == "OPENAI_API_KEY")
    assert key["valueFrom"]["secretKeyRef"]["name"] == "formatkit-api-key"
    assert "value" not in key
    # the shared volume, mounted where the paths point
    assert pod["volumes"][0]["persistentVolumeClaim"]["claimName"] == "eval-data"
    assert part["volumeMounts"][0]["name"] == pod["volumes"][0]["name"]


@pytest.mark.jobs
def test_each_pod_runs_its_part_and_the_merge_job_equals_one_machine(
    values: dict[str, str], fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    part = container(yaml.safe_load(fill("kubernetes-eval-parts.yaml", values)))
    for index in range(PARTS):  # the pods, each with its index, in any order
        done = run_pod(part, pod_env(part, JOB_COMPLETION_INDEX=str(PARTS - 1 - index)))
        assert done.returncode == 0, done.stderr
    out = Path(values["FORMATKIT_OUT"])
    shards = [orjson.loads((out / f"part.{k}" / "run.json").read_bytes())["shard"]["part"] for k in (1, 2, 3)]
    assert shards == ["1/3", "2/3", "3/3"]
    assert fake_openai.requests == 11  # each record asked once over the three pods
    merge = container(yaml.safe_load(fill("kubernetes-eval-merge.yaml", values)))
    done = run_pod(merge, pod_env(merge))
    assert done.returncode == 0, done.stderr
    whole = tmp_path / "whole"
    result = CliRunner(env={"OPENAI_API_KEY": ""}).invoke(
        app,
        ["eval", values["FORMATKIT_INPUT"], "-o", str(whole), "--base-url", fake_openai.base_url, "--model", "fake"],
    )
    assert result.exit_code == 0, result.output
    assert records(out / "scored.jsonl") == records(whole / "scored.jsonl")
    report = orjson.loads((out / "report.json").read_bytes())
    assert report["overall"] == orjson.loads((whole / "report.json").read_bytes())["overall"]
    assert (out / "report.xlsx").stat().st_size > 0  # as eval writes it


@pytest.mark.jobs
def test_the_pods_take_several_base_urls_and_the_options(
    values: dict[str, str], fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    replica = FakeOpenAI().start()
    try:
        several = values | {
            "FORMATKIT_BASE_URL": f"{fake_openai.base_url} {replica.base_url}",
            "FORMATKIT_OPTIONS": "--concurrency 1 --param temperature=0",
        }
        part = container(yaml.safe_load(fill("kubernetes-eval-parts.yaml", several)))
        for index in range(PARTS):
            done = run_pod(part, pod_env(part, JOB_COMPLETION_INDEX=str(index)))
            assert done.returncode == 0, done.stderr
        assert fake_openai.requests + replica.requests == 11 and min(fake_openai.requests, replica.requests) > 0
        assert all(body.get("temperature") == 0 for body in fake_openai.bodies + replica.bodies)
        assert fake_openai.max_in_flight == 1 and replica.max_in_flight == 1
    finally:
        replica.stop()


@pytest.mark.jobs
def test_the_merge_job_refuses_a_missing_part(values: dict[str, str], fake_openai: FakeOpenAI) -> None:
    part = container(yaml.safe_load(fill("kubernetes-eval-parts.yaml", values)))
    assert run_pod(part, pod_env(part, JOB_COMPLETION_INDEX="0")).returncode == 0
    merge = container(yaml.safe_load(fill("kubernetes-eval-merge.yaml", values)))
    done = run_pod(merge, pod_env(merge))
    assert done.returncode == 2  # a part's directory that is not there: named, nothing merged
    assert "part.2: no such file or directory" in done.stderr
    assert not (Path(values["FORMATKIT_OUT"]) / "scored.jsonl").exists()
