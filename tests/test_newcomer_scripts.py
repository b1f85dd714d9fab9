"""The library used as a newcomer uses it: a script in a fresh folder, with no ``if __name__ == "__main__":``
guard, run as its own process against the loopback server (issue 18 item 2, issue 20 item 6).
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fakeserver import FakeOpenAI, last_user


def run_script(folder: Path, source: str, server: FakeOpenAI, **env: str) -> subprocess.CompletedProcess[str]:
    """``python script.py`` in ``folder`` (its own folder, as a user runs it), ``$URL`` naming the server."""
    script = folder / "script.py"
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "PYTHONPATH")}
    environment.update(URL=server.base_url, **env)
    return subprocess.run(
        [sys.executable, "script.py"], cwd=folder, env=environment, capture_output=True, text=True, timeout=120
    )


def test_scoring_math_never_runs_the_callers_script_again(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """The math metric's sympy worker was a multiprocessing spawn, which re-imports ``__main__``: this script
    ran 11 times and bought 110 requests for 10 records (24 s); now once, 10 requests."""
    with (tmp_path / "set.jsonl").open("w", encoding="utf-8") as handle:
        for i in range(10):  # binomial(...) is beyond the fast paths: sympy decides it
            handle.write(json.dumps({"prompt": f"binomial({i + 5},2)", "answer": str(math.comb(i + 5, 2))}) + "\n")
    fake_openai.responder = lambda body: "\\boxed{" + last_user(body) + "}"
    result = run_script(
        tmp_path,
        """
        import os, time
        from scoring import EndpointOptions, run_file, score_file

        with open("runs.log", "a") as log:
            log.write("ran\\n")
        out = f"out-{time.time_ns()}.jsonl"  # a name per run, as people write them
        summary = run_file("set.jsonl", out, EndpointOptions(os.environ["URL"], "my-model"), limit=10)
        done = score_file(out, "scored.jsonl", metric="math")
        print(summary.to_dict()["records"], done.scored_responses)
        """,
        fake_openai,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "runs.log").read_text() == "ran\n"
    assert fake_openai.requests == 10
    assert result.stdout.split() == ["10", "10"] and "Traceback" not in result.stderr
    scored = [json.loads(line) for line in (tmp_path / "scored.jsonl").read_text(encoding="utf-8").splitlines()]
    responses = [r["messages"][-1]["responses"][0] for r in scored]
    assert all(r["score"] == 1.0 and "sympy" in r["analysis"] for r in responses)


ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"
#: Every page a user reads: the README, the pages of the documentation site (docs/pages/), and the
#: benchmarks' page. Each ```python, ```bash and ```console block of them runs in a test.
DOCUMENTS = (README, *sorted((ROOT / "docs" / "pages").rglob("*.md")), ROOT / "benchmarks" / "README.md")
FIXTURES = ROOT / "fixtures"
#: The files the documents' examples name, as a newcomer would have them beside the script.
EXAMPLE_FILES = {
    "set.xlsx": FIXTURES / "seed" / "seed_excel_single_turn.xlsx",
    "set.jsonl": FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl",
    "a.xlsx": FIXTURES / "seed" / "seed_excel_multi_turn.xlsx",
    "b.jsonl": FIXTURES / "seed" / "seed_jsonl_multi_turn.jsonl",
    "answered.jsonl": FIXTURES / "responses" / "mmlu_pro.jsonl",
    "judged.jsonl": FIXTURES / "judge_check" / "scored.jsonl",
    "labels.jsonl": FIXTURES / "judge_check" / "labels.jsonl",
}
README_URL = "http://127.0.0.1:8000/v1"


def document_name(document: Path) -> str:
    return document.relative_to(ROOT).as_posix()


def blocks_of(document: Path, language: str) -> list[str]:
    """The fenced blocks of ``language`` in one document, in order."""
    text = document.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def doc_blocks(language: str) -> list[tuple[str, str]]:
    """Every block of ``language`` in the documents, with the name of the document that shows it."""
    found = [(document_name(d), block) for d in DOCUMENTS for block in blocks_of(d, language)]
    assert found, language
    return found


def readme_blocks(language: str) -> list[str]:
    blocks = blocks_of(README, language)
    assert blocks, language
    return blocks


PYTHON_BLOCKS = doc_blocks("python")


def newcomer_folder(tmp_path: Path) -> Path:
    for name, source in EXAMPLE_FILES.items():
        shutil.copyfile(source, tmp_path / name)
    return tmp_path


@pytest.mark.parametrize(
    ("document", "index"),
    [(name, i) for i, (name, _block) in enumerate(PYTHON_BLOCKS)],
    ids=[f"{name}:{i}" for i, (name, _block) in enumerate(PYTHON_BLOCKS)],
)
def test_every_python_example_runs_as_a_script(
    fake_openai: FakeOpenAI, tmp_path: Path, document: str, index: int
) -> None:
    """Each ```python block of the README and the docs, saved as it is (a module named in its first comment is saved
    under that name), against a server that demands the key in $OPENAI_API_KEY: the run_file example got a
    401 (EndpointOptions read no key), the ChatClient one was a SyntaxError (``async with`` outside a
    function), the Python API one a NameError (``records``)."""
    source = PYTHON_BLOCKS[index][1]
    folder = newcomer_folder(tmp_path)
    fake_openai.api_key = "sk-newcomer-0123456789"
    module = re.match(r"# (\w+)\.py\n", source)
    if module:  # a module for the command line: it must import, and the CLI example using it runs below
        (folder / f"{module.group(1)}.py").write_text(source, encoding="utf-8")
        source = f"import {module.group(1)}\n"
    result = run_script(
        folder, source.replace(README_URL, fake_openai.base_url), fake_openai, OPENAI_API_KEY=fake_openai.api_key
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_a_metric_module_in_the_current_folder_works_from_the_console_script(tmp_path: Path) -> None:
    """``formatkit score ... --metric mymetrics:fn`` with mymetrics.py in the current folder, as the docs
    show it: the console script does not put the current folder on the path (it was exit 2, 'cannot import')."""
    [module] = [b for _name, b in doc_blocks("python") if b.startswith("# mymetrics.py")]
    folder = newcomer_folder(tmp_path)
    (folder / "mymetrics.py").write_text(module, encoding="utf-8")
    [command] = [line for _name, b in doc_blocks("bash") for line in b.splitlines() if "mymetrics:" in line]
    console_script = Path(sys.executable).with_name("formatkit")
    args = [str(console_script), *shlex.split(command)[1:]]
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(args, cwd=folder, env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    scored = [json.loads(line) for line in (folder / "scored.jsonl").read_text(encoding="utf-8").splitlines()]
    metrics = {r["messages"][-1]["responses"][0]["metric"] for r in scored}
    assert metrics == {"mymetrics:mentions_reference"}


def test_a_metric_module_missing_everywhere_says_where_it_looked(tmp_path: Path) -> None:
    console_script = Path(sys.executable).with_name("formatkit")
    source = newcomer_folder(tmp_path) / "answered.jsonl"
    args = [str(console_script), "score", str(source), "-o", "s.jsonl", "--metric", "nosuchmodule:f"]
    result = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert f"in the current folder {tmp_path}" in result.stderr and "Traceback" not in result.stderr


def test_endpoint_options_read_the_key_as_the_cli_does(monkeypatch: pytest.MonkeyPatch) -> None:
    from scoring import EndpointOptions

    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env\r")  # a CRLF .env
    monkeypatch.setenv("MY_KEY", "sk-mine")
    assert EndpointOptions("http://h/v1", "m").key() == "sk-from-env"
    assert EndpointOptions("http://h/v1", "m", api_key_env="MY_KEY").key() == "sk-mine"
    assert EndpointOptions("http://h/v1", "m", api_key="sk-given").key() == "sk-given"
    assert EndpointOptions("http://h/v1", "m", api_key_env=None).key() is None
    monkeypatch.delenv("MY_KEY")
    assert EndpointOptions("http://h/v1", "m", api_key_env="MY_KEY").key() is None


def document_commands(document: Path) -> list[str]:
    """A document's ``formatkit`` command lines in order (continuations joined, optional ``[...]`` parts left
    out), without the ones that only show a synopsis (``...``)."""
    commands = []
    for block in blocks_of(document, "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s*\[[^\]]*\]", "", line.split("  #")[0]).strip()
            if line.startswith("formatkit ") and "..." not in line:
                commands.append(" ".join(line.split()))
    return commands


def at_the_server(args: list[str], url: str) -> list[str]:
    """Every endpoint a command names (``--base-url``, ``--judge-base-url``) replaced by the loopback server;
    the replicas of one option (given again) as the same server under a query of their own (a ?query is kept,
    and a URL given twice is refused)."""
    replaced: list[str] = []
    seen: dict[str, int] = {}
    for i, a in enumerate(args):
        option = args[i - 1] if i > 0 else ""
        if option in ("--base-url", "--judge-base-url"):
            seen[option] = seen.get(option, 0) + 1
            a = url if seen[option] == 1 else f"{url}?replica={seen[option]}"
        replaced.append(a)
    return replaced


#: The commands of each document that run in the slow test below (the others name files of your own, such as
#: gpt4o.scored.jsonl): a command that stops running, because a page changed, fails it.
COMMANDS_RUN = {
    "README.md": ["fix", "validate", "eval", "eval", "report", "export", "score", "export", "score", "judge-check"],
    "docs/pages/index.md": ["eval", "report", "export"],
    "docs/pages/guide/convert.md": ["convert"],
    "docs/pages/guide/run.md": ["run", "run"],
    "docs/pages/guide/score.md": ["score", "score", "report"],
    "docs/pages/guide/eval.md": ["eval"],
    "docs/pages/guide/gateways.md": ["eval", "run", "run", "run"],
    "docs/pages/guide/review.md": ["eval", "export", "score", "report", "judge-check"],
}


@pytest.mark.slow
@pytest.mark.parametrize("document", DOCUMENTS, ids=document_name)
def test_every_command_runs_as_written(fake_openai: FakeOpenAI, tmp_path: Path, document: Path) -> None:
    """Each `formatkit ...` line of a document, in order, in a fresh folder holding the fixtures, every endpoint
    it names being the loopback server (a metric module the docs show beside the data)."""
    (tmp_path / "fixtures").symlink_to(FIXTURES)
    [module] = [b for _name, b in doc_blocks("python") if b.startswith("# mymetrics.py")]
    (tmp_path / "mymetrics.py").write_text(module, encoding="utf-8")
    console_script = Path(sys.executable).with_name("formatkit")
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OPENAI_API_KEY")}
    ran = []
    for command in document_commands(document):
        args = at_the_server(shlex.split(command), fake_openai.base_url)
        if not (tmp_path / args[2]).exists():
            continue  # a synopsis naming your own files (gpt4o.scored.jsonl, results.jsonl)
        ran.append(args[1])
        result = subprocess.run(
            [str(console_script), *args[1:]], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120
        )
        expected = 1 if "invalid" in command else 0  # the docs show validate finding an error
        assert result.returncode == expected, f"{command}\n{result.stderr}"
        assert "Traceback" not in result.stderr, command
    assert ran == COMMANDS_RUN.get(document_name(document), [])
