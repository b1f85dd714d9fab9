"""The image of ``formatkit serve`` (docs/deploy/Containerfile), built without a container engine: its steps
carried out here, in order, as a builder would carry them out, in a fresh folder standing for the image's
file system. ``ENV`` and ``WORKDIR`` are kept, ``COPY`` copies from this source tree, ``RUN`` runs its shell
line (``python`` is this machine's, in a clean venv made by the file's own RUN step: nothing of the
developer's environment is used). Then the image's ``ENTRYPOINT`` + ``CMD`` is started with its token and its
``HEALTHCHECK`` run against it, and the installed server answers the validate document of a fixture.

Installing formatkit and its dependencies into a clean venv takes a minute or more, so the test is marked
``deploy`` (CI runs ``pytest -m deploy`` as its own step)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson
import pytest
from uvicorn_process import running

ROOT = Path(__file__).parents[2]
CONTAINERFILE = ROOT / "docs" / "deploy" / "Containerfile"
#: The image's own folders: where they stand in the fresh folder (every other path is the system's).
IMAGE_PATHS = ("/src", "/opt/formatkit")
BROKEN = ROOT / "fixtures" / "invalid" / "excel" / "date_cell.xlsx"


def instructions(text: str) -> list[tuple[str, str]]:
    """The file's instructions as (keyword, rest), lines joined at a trailing backslash, comments dropped."""
    found: list[tuple[str, str]] = []
    held = ""
    for line in text.splitlines():
        if not held and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            held += line[:-1] + " "
            continue
        whole, held = held + line, ""
        keyword, _, rest = whole.strip().partition(" ")
        found.append((keyword.upper(), rest.strip()))
    return found


@dataclass
class Build:
    """The image being built in ``root``: its environment, working folder and recorded settings."""

    root: Path
    env: dict[str, str] = field(default_factory=dict)
    workdir: str = "/"
    settings: dict[str, str] = field(default_factory=dict)

    def place(self, path: str) -> Path:
        """Where a path of the image is: the image's own folders under ``root``."""
        assert path.startswith(IMAGE_PATHS), f"{path}: not one of the image's folders {IMAGE_PATHS}"
        return self.root / path.lstrip("/")

    def mapped(self, value: str) -> str:
        """A value of ENV with the image's folders in it moved under ``root`` (PATH's entries too)."""
        return re.sub(
            r"(?<![\w/])(" + "|".join(map(re.escape, IMAGE_PATHS)) + r")\b", lambda m: str(self.place(m[1])), value
        )

    def expand(self, value: str) -> str:
        return re.sub(r"\$\{?(\w+)\}?", lambda m: self.env.get(m[1], ""), value)

    def step(self, keyword: str, rest: str) -> None:
        if keyword == "FROM":
            assert re.fullmatch(r"python:3\.\d+-slim", rest), rest  # an official Python image: python is there
        elif keyword == "ENV":
            for pair in shlex.split(rest):
                name, _, value = pair.partition("=")
                self.env[name] = self.expand(self.mapped(value))
        elif keyword == "WORKDIR":
            self.workdir = rest
            self.place(rest).mkdir(parents=True, exist_ok=True)
        elif keyword == "COPY":
            *sources, target = shlex.split(rest)
            assert not any(s.startswith("--") for s in sources), "COPY from another stage or with options"
            destination = self.place(target if target.startswith("/") else f"{self.workdir}/{target}")
            for source in sources:
                origin = ROOT / source
                assert origin.exists(), f"COPY {source}: not in the source tree"
                if origin.is_dir():
                    shutil.copytree(origin, destination, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
                else:
                    destination.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(origin, destination / origin.name)
        elif keyword == "RUN":
            done = subprocess.run(
                ["sh", "-c", rest], cwd=self.place(self.workdir), env=self.env, capture_output=True, text=True
            )
            assert done.returncode == 0, f"RUN {rest}\n{done.stdout}\n{done.stderr}"
        else:
            assert keyword in ("USER", "EXPOSE", "HEALTHCHECK", "ENTRYPOINT", "CMD"), keyword
            self.settings[keyword] = rest


def build(root: Path) -> Build:
    image = Build(root, env={"PATH": os.environ["PATH"], "HOME": str(root / "home")})
    for keyword, rest in instructions(CONTAINERFILE.read_text(encoding="utf-8")):
        image.step(keyword, rest)
    return image


def test_the_containerfile_installs_the_tree_never_the_index() -> None:
    steps = instructions(CONTAINERFILE.read_text(encoding="utf-8"))
    installs = [
        found for keyword, rest in steps if keyword == "RUN" for found in re.findall(r"pip install\b[^&;|]*", rest)
    ]
    # formatkit comes from the copied tree (the project named formatkit on PyPI is someone else's)
    assert installs and all(re.search(r"\s\./\s*$", words) for words in installs), installs
    assert not any(re.search(r"\bformatkit\b", words) for words in installs), installs
    copied = [shlex.split(rest)[0] for keyword, rest in steps if keyword == "COPY"]
    assert {"formatkit/", "scoring/"} <= set(copied)
    command = json.loads(dict(steps)["ENTRYPOINT"]) + json.loads(dict(steps)["CMD"])
    assert command[:2] == ["formatkit", "serve"] and "--token-env" in command


@pytest.mark.deploy
def test_the_image_builds_in_a_clean_venv_and_serves(tmp_path: Path) -> None:
    image = build(tmp_path / "image")
    venv = Path(image.env["VENV"])
    assert venv.is_relative_to(image.root)
    assert (venv / "bin" / "formatkit").is_file()
    # nothing installed from the developer's tree in place: the venv's formatkit is a copy of it
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import formatkit; print(formatkit.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        env=image.env,
        cwd=tmp_path,  # not this tree's folder, whose formatkit/ python would import first
    )
    assert Path(found.stdout.strip()).is_relative_to(venv)
    command = json.loads(image.settings["ENTRYPOINT"]) + json.loads(image.settings["CMD"])
    command[command.index("--port") + 1] = "0"
    token = "token-of-the-image-test"
    env = {**image.env, command[command.index("--token-env") + 1]: token}
    with running(command, env, cwd=str(tmp_path)) as server:
        port = server.url.rsplit(":", 1)[1]
        health = image.settings["HEALTHCHECK"]
        probe = json.loads(health[health.index("CMD") + 3 :].strip())
        probe = [word.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for word in probe]
        assert subprocess.run(probe, env=image.env, capture_output=True, check=False).returncode == 0
        upload = {"file": (BROKEN.name, BROKEN.read_bytes())}
        answer = httpx.post(
            f"{server.url}/v1/validate", files=upload, headers={"Authorization": f"Bearer {token}"}, timeout=60
        )
        assert answer.status_code == 200, server.text()
        page = httpx.get(f"{server.url}/", timeout=30)
        assert page.status_code == 200 and 'id="files"' in page.text  # the page itself, not the placeholder
    expected = subprocess.run(
        [str(venv / "bin" / "formatkit"), "validate", "--json", BROKEN.name],
        cwd=BROKEN.parent,
        env={**image.env, "LANG": "C.UTF-8"},
        capture_output=True,
        check=False,
    )
    assert orjson.loads(answer.content) == orjson.loads(expected.stdout)
