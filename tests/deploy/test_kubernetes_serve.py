"""The shipped Kubernetes manifest of ``formatkit serve`` (docs/deploy/kubernetes-serve.yaml), checked as far as
can be without a cluster: filled in with envsubst as its header says, parsed as YAML, the Deployment and the
Service checked against each other and against the image (docs/deploy/Containerfile), and the container's
command run here, against this source tree, as the pod runs it (its environment, the token from the Secret):
it starts on all addresses with the token, answers /healthz (the probes), refuses /v1/ without the token,
and answers the validate document ``formatkit validate --json`` prints for a fixture. That run starts a
server with two workers, so it is marked ``deploy`` (CI runs ``pytest -m deploy`` as its own step)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import yaml
from uvicorn_process import running

ROOT = Path(__file__).parents[2]
DEPLOY = ROOT / "docs" / "deploy"
MANIFEST = "kubernetes-serve.yaml"
SECRET_VALUE = "a-token-from-the-secret"
BROKEN = ROOT / "fixtures" / "invalid" / "excel" / "date_cell.xlsx"


def fill(image: str) -> str:
    """The manifest as ``envsubst '$FORMATKIT_IMAGE' < kubernetes-serve.yaml`` gives it."""
    text = (DEPLOY / MANIFEST).read_text(encoding="utf-8")
    if shutil.which("envsubst"):
        done = subprocess.run(
            ["envsubst", "$FORMATKIT_IMAGE"],
            input=text,
            env={"FORMATKIT_IMAGE": image},
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout
    return text.replace("${FORMATKIT_IMAGE}", image)


def documents() -> dict[str, dict[str, Any]]:
    found = {doc["kind"]: doc for doc in yaml.safe_load_all(fill("registry.example.com/formatkit-serve:1")) if doc}
    assert sorted(found) == ["Deployment", "Service"]
    return found


def the_container(deployment: dict[str, Any]) -> dict[str, Any]:
    containers = deployment["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return dict(containers[0])


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_the_deployment_runs_the_image_with_its_token_from_a_secret() -> None:
    deployment = documents()["Deployment"]
    assert deployment["apiVersion"] == "apps/v1"
    container = the_container(deployment)
    assert container["image"] == "registry.example.com/formatkit-serve:1"
    command = container["command"]
    assert command[:2] == ["formatkit", "serve"]
    assert all(isinstance(word, str) for word in command)  # a number left unquoted would be no argument
    # listening on every address of the pod, so a token is asked for: the one the Secret holds, never a value
    assert option(command, "--host") == "0.0.0.0"
    variable = option(command, "--token-env")
    token = next(e for e in container["env"] if e["name"] == variable)
    assert "value" not in token
    assert token["valueFrom"]["secretKeyRef"] == {"name": "formatkit-serve-token", "key": "token"}
    # the port the command listens on is the container's, and the probes ask it for /healthz
    [port] = container["ports"]
    assert port["containerPort"] == int(option(command, "--port"))
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/healthz", "port": port["name"]}
    # as many checks at once as the cores it may use: workers x checks = the CPU limit
    workers, checks = int(option(command, "--workers")), int(option(command, "--checks"))
    assert workers * checks == int(container["resources"]["limits"]["cpu"])
    # an unprivileged user, the image's own (USER in the Containerfile), a read-only root with /tmp writable
    pod = deployment["spec"]["template"]["spec"]
    user = re.search(r"^USER (\d+):(\d+)$", (DEPLOY / "Containerfile").read_text(encoding="utf-8"), re.M)
    assert user is not None
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert str(pod["securityContext"]["runAsUser"]) == user.group(1)
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    tmp = next(m for m in container["volumeMounts"] if m["mountPath"] == "/tmp")
    assert any(v["name"] == tmp["name"] and "emptyDir" in v for v in pod["volumes"])


def test_the_service_reaches_the_pods_on_their_port() -> None:
    found = documents()
    deployment, service = found["Deployment"], found["Service"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert service["spec"]["selector"].items() <= labels.items()
    [port] = service["spec"]["ports"]
    names = {p["name"] for p in the_container(deployment)["ports"]}
    assert port["targetPort"] in names


@pytest.mark.deploy
def test_the_pod_command_serves_this_tree_with_the_token() -> None:
    container = the_container(documents()["Deployment"])
    command = list(container["command"])
    assert option(command, "--port") == "8000"
    command[command.index("--port") + 1] = "0"  # the pod's port may be taken here: the system picks one
    command[0] = str(Path(sys.executable).parent / "formatkit")  # this tree's formatkit (pip install -e)
    env = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    env[option(command, "--token-env")] = SECRET_VALUE  # the kubelet sets it from the Secret
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    with running(command, env) as server:
        assert httpx.get(f"{server.url}/healthz", timeout=30).status_code == 200
        assert httpx.get(f"{server.url}/", timeout=30).status_code == 200
        upload = {"file": (BROKEN.name, BROKEN.read_bytes())}
        refused = httpx.post(f"{server.url}/v1/validate", files=upload, timeout=60)
        assert refused.status_code == 401
        answered = httpx.post(
            f"{server.url}/v1/validate",
            files=upload,
            params={"lang": "zh"},
            headers={"Authorization": f"Bearer {SECRET_VALUE}"},
            timeout=60,
        )
        assert answered.status_code == 200, server.text()
    assert SECRET_VALUE not in server.text()  # the token is never logged
    expected = subprocess.run(
        [command[0], "validate", "--json", "--lang", "zh", BROKEN.name],
        cwd=BROKEN.parent,
        capture_output=True,
        check=False,
    )
    assert expected.returncode == 1  # the fixture is broken: its issues are what is compared
    assert orjson.loads(answered.content) == orjson.loads(expected.stdout)
