"""The fast path of ``formatkit convert`` / ``validate`` (formatkit/cli/_fast.py, issue 22): it prints byte
for byte what typer's path prints, declines everything it does not fully know, imports neither typer nor
click nor rich, and its option table agrees with typer's command option by option."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main

from formatkit.cli import TYPER_ONLY, app
from formatkit.cli._base import echo
from formatkit.cli._common import _check_lang
from formatkit.cli._fast import COMMANDS, FastOption, parse, run

FIXTURES = Path(__file__).parents[2] / "fixtures"
SEED = sorted(str(p) for p in (FIXTURES / "seed").iterdir())
INVALID_EXCEL = sorted(str(p) for p in (FIXTURES / "invalid" / "excel").iterdir())
INVALID_JSONL = sorted(str(p) for p in (FIXTURES / "invalid" / "jsonl").iterdir())
VALID = sorted(str(p) for p in (FIXTURES / "valid").iterdir())
CODE = "import sys; from formatkit.cli import main; sys.argv[0] = 'formatkit'; main()"


# --- the option table against typer's command ----------------------------------------------------------


def _typer_params(command: str) -> list[Any]:
    group = typer.main.get_command(app)
    return list(group.commands[command].params)  # type: ignore[attr-defined]


def differences(fast: tuple[FastOption, ...], params: list[Any]) -> list[str]:
    """How the fast table and typer's parameters of one command disagree (empty: they agree)."""
    found: list[str] = []
    arguments = [p for p in params if p.param_type_name == "argument"]
    if [(p.name, p.nargs, p.required) for p in arguments] != [("paths", -1, True)]:
        found.append(f"arguments: {[(p.name, p.nargs, p.required) for p in arguments]}, the fast path reads PATH...")
    options = {p.name: p for p in params if p.param_type_name == "option"}
    table = {o.name: o for o in fast}
    for name in sorted(options.keys() - table.keys()):
        found.append(f"{name}: a typer option the fast table lacks")
    for name in sorted(table.keys() - options.keys()):
        found.append(f"{name}: in the fast table, not in typer's command")
    for name in sorted(options.keys() & table.keys()):
        p, o = options[name], table[name]
        annotation = p.type_descriptor.annotation
        default = p.default.value if isinstance(p.default, Enum) else p.default
        if (*p.opts, *p.secondary_opts) != o.flags:
            found.append(f"{name}: flags {p.opts + p.secondary_opts} vs {list(o.flags)}")
        if p.is_flag != (o.kind == "flag") or (p.is_flag and (annotation is not bool or p.secondary_opts)):
            found.append(f"{name}: flag {p.is_flag} vs kind {o.kind}")
        if p.multiple != o.multiple or p.count or p.nargs != 1:
            found.append(f"{name}: multiple {p.multiple} / count {p.count} / nargs {p.nargs} vs {o.multiple}")
        if p.required != o.required or default != o.default:
            found.append(f"{name}: required {p.required}, default {default!r} vs {o.required}, {o.default!r}")
        if p.envvar is not None or p.prompt is not None or p.is_eager:
            found.append(f"{name}: an envvar, a prompt or an eager option: the fast path reads none")
        enum = isinstance(annotation, type) and issubclass(annotation, Enum)
        choices = tuple(m.value for m in annotation) if enum else ()
        if choices != o.choices or (o.kind == "choice") != bool(choices):
            found.append(f"{name}: choices {choices} vs {o.choices}")
        if o.kind == "count" and (annotation is not int or p.min != 1 or p.max is not None):
            found.append(f"{name}: the fast path reads an integer >= 1; typer: {annotation} min {p.min} max {p.max}")
        if o.kind in ("text", "lang") and annotation not in (str, str | None):
            found.append(f"{name}: the fast path reads text; typer: {annotation}")
        callback = getattr(p.callback, "__wrapped__", p.callback)  # typer wraps it
        if (callback is _check_lang) != (o.kind == "lang") or (callback is not None and o.kind != "lang"):
            found.append(f"{name}: callback {callback} vs kind {o.kind}")
    return found


@pytest.mark.parametrize("command", ["convert", "validate"])
def test_the_fast_table_agrees_with_typer_option_by_option(command: str) -> None:
    assert differences(COMMANDS[command].options, _typer_params(command)) == []


@pytest.mark.parametrize("command", ["convert", "validate"])
def test_typer_parses_the_command_as_the_fast_path_assumes(command: str) -> None:
    """Options and paths in any order, nothing unknown let through, no settings that change how a word
    is read (a token_normalize_func, other help names, an envvar prefix)."""
    group = typer.main.get_command(app)
    cli = group.commands[command]  # type: ignore[attr-defined]
    assert (cli.allow_interspersed_args, cli.ignore_unknown_options, cli.allow_extra_args) == (True, False, False)
    assert cli.context_settings == {} and group.context_settings == {}
    assert [p.name for p in group.params] == ["version"]  # the group's only option, never before a fast command


def test_a_drift_between_the_two_is_found() -> None:
    """The check above can fail: a typer option the table lacks, a changed default, a new choice."""
    fast = COMMANDS["convert"].options
    params = _typer_params("convert")
    assert differences(fast[1:], params) == ["output: a typer option the fast table lacks"]
    changed = tuple(FastOption(o.name, o.flags, o.kind, 7, o.choices) if o.name == "max_issues" else o for o in fast)
    assert [d.split(":")[0] for d in differences(changed, params)] == ["max_issues"]
    fewer = tuple(FastOption(o.name, o.flags, o.kind, o.default, ("scored",)) if o.name == "mode" else o for o in fast)
    assert [d.split(":")[0] for d in differences(fewer, params)] == ["mode"]
    flagged = tuple(FastOption(o.name, ("--sheet", "-s"), o.kind) if o.name == "sheet" else o for o in fast)
    assert [d.split(":")[0] for d in differences(flagged, params)] == ["sheet"]


# --- what the fast path declines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "--help"],
        ["validate", "-h", "a.jsonl"],
        ["validate", "a.jsonl", "--jsn"],  # misspelt
        ["validate", "a.jsonl", "--no-meta"],  # convert's, not validate's
        ["convert", "a.jsonl", "--json", "-o", "x.jsonl"],  # validate's, not convert's
        ["convert", "a.jsonl"],  # no -o
        ["convert", "a.jsonl", "-o"],  # a missing value
        ["convert", "a.jsonl", "--output="],
        ["convert", "a.jsonl", "-ox.jsonl"],  # click reads it; the fast path does not
        ["convert", "a.jsonl", "-o", "-x.jsonl"],  # a value that looks like an option
        ["convert", "a.jsonl", "-o", "x.jsonl", "--output", "y.jsonl"],  # given twice
        ["validate", "a.jsonl", "--mode", "infer_eval"],  # a bad choice (the enum's name)
        ["validate", "a.jsonl", "--profile=Platform"],
        ["validate", "a.jsonl", "--lang", "fr"],
        ["validate", "a.jsonl", "--lang="],
        ["validate", "a.jsonl", "--max-issues", "0"],
        ["validate", "a.jsonl", "--max-issues", "5.0"],
        ["validate", "a.jsonl", "--max-issues", " 5"],
        ["validate", "a.jsonl", "--max-issues=-1"],
        ["validate", "a.jsonl", "--json=1"],
        ["validate", "a.jsonl", "--all", "--all"],
        ["validate", "--", "a.jsonl"],
        ["validate", "-", "a.jsonl"],
        ["validate"],
        ["validate", "--json"],
        ["validate", "a\udcff.jsonl"],  # a name that is not UTF-8
        ["--version"],
        ["Validate", "a.jsonl"],
        ["score", "a.jsonl", "-o", "x.jsonl"],
        [],
    ],
)
def test_the_fast_path_declines_what_it_does_not_fully_know(argv: list[str], capsys: Any) -> None:
    assert run(argv) is None
    assert capsys.readouterr() == ("", "")


def test_the_fast_path_reads_every_plain_form() -> None:
    options = COMMANDS["convert"].options
    parsed = parse(
        options,
        ["a.xlsx", "--output=o.jsonl", "--mode", "scored", "b.jsonl", "--profile=none", "--no-meta", "--sheet",
         "表1", "--lang", "zh_CN.UTF-8", "--max-issues", "12", "--all"],
    )  # fmt: skip
    assert parsed == (
        ["a.xlsx", "b.jsonl"],
        {"output": "o.jsonl", "mode": "scored", "profile": "none", "no_meta": True, "sheet": "表1", "lang": "zh",
         "max_issues": 12, "show_all": True, "to": None, "from_shape": None, "set_path": None, "model": None},
    )  # fmt: skip
    assert parse(COMMANDS["validate"].options, ["a.jsonl"]) == (
        ["a.jsonl"],
        {"mode": "infer-eval", "profile": "platform", "as_json": False, "sheet": None, "lang": None, "max_issues": 5,
         "show_all": False, "from_shape": None},
    )  # fmt: skip


def test_a_repeatable_option_gives_its_values_in_order() -> None:
    """None of convert's or validate's options repeats today; one that does is read as typer reads it."""
    options = (FastOption("header", ("--header",), "text", (), multiple=True), FastOption("json", ("--json",), "flag"))
    assert parse(options, ["a", "--header", "x=1", "--header=y=2"]) == (["a"], {"header": ["x=1", "y=2"], "json": None})
    assert parse(options, ["a"]) == (["a"], {"header": [], "json": None})
    assert parse(options, ["a", "--json", "--json"]) is None


def test_a_shell_completion_request_goes_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_FORMATKIT_COMPLETE", "bash_complete")
    assert run(["validate", "a.jsonl"]) is None


# --- echo ----------------------------------------------------------------------------------------------


class _Stream(io.TextIOWrapper):
    def __init__(self, buffer: io.BytesIO, encoding: str, tty: bool) -> None:
        super().__init__(buffer, encoding=encoding)
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


@pytest.mark.parametrize("message", ["plain", "中文，全角", "\x1b[1;31mred\x1b[0m \x1b[?25l", ""])
@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
@pytest.mark.parametrize("tty", [False, True])
@pytest.mark.parametrize("err", [False, True])
def test_echo_writes_what_typer_echo_writes(
    message: str, encoding: str, tty: bool, err: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    def written(function: Any) -> bytes:
        buffer = io.BytesIO()
        stream = _Stream(buffer, encoding, tty)
        monkeypatch.setattr(sys, "stderr" if err else "stdout", stream)
        function(message, err=err)
        stream.flush()
        return buffer.getvalue()

    assert written(echo) == written(typer.echo)


# --- both paths as whole processes ---------------------------------------------------------------------


def formatkit(args: list[str], *, typer_only: bool, env: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    environ = {**os.environ, **(env or {}), TYPER_ONLY: "1" if typer_only else ""}
    done = subprocess.run([sys.executable, "-c", CODE, *args], capture_output=True, env=environ, timeout=120)
    return done.returncode, done.stdout, done.stderr


def assert_same(args: list[str], tmp_path: Path, *, fast: bool = True, env: dict[str, str] | None = None) -> int:
    """Run ``formatkit ARGS`` through the fast path and through typer; the same exit code, stdout, stderr
    and files written. ``fast``: whether the fast path takes it (else both are typer's)."""
    assert (parse(COMMANDS[args[0]].options, args[1:]) is not None) is fast
    seen = []
    for typer_only in (False, True):
        before = {p.name for p in tmp_path.iterdir()}
        code, out, err = formatkit(args, typer_only=typer_only, env=env)
        written = {}
        for path in sorted(tmp_path.iterdir()):
            if path.name not in before:
                written[path.name] = path.read_bytes()
                path.unlink()
        seen.append((code, out.decode(errors="replace"), err.decode(errors="replace"), written))
    assert seen[0] == seen[1]
    assert b"Traceback" not in seen[0][2].encode()
    return seen[0][0]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["validate", *SEED], 0),
        (["validate", *SEED, "--json"], 0),
        (["validate", *VALID, "--mode=infer-only", "--profile", "none"], 1),
        (["validate", *INVALID_EXCEL], 1),
        (["validate", *INVALID_EXCEL, "--all", "--lang", "zh"], 1),
        (["validate", *INVALID_JSONL, "--max-issues", "1", "--lang=zh-CN"], 1),
        (["validate", "--json", *INVALID_JSONL, "--mode", "scored"], 1),
        (["validate", "--json", "--lang", "zh", str(FIXTURES / "invalid" / "excel" / "duplicate_session_id.xlsx")], 1),
        (["validate", str(FIXTURES / "valid" / "excel_single_turn.xlsx"), "--sheet", "NoSuchSheet"], 1),
        (["validate", str(FIXTURES / "nothing-here.jsonl")], 2),
        (["validate", str(FIXTURES / "no\x1b[31mthing.jsonl")], 2),  # colour codes in a name: stripped alike
        (["validate", str(FIXTURES / "seed")], 2),
    ],
    ids=[
        "seed",
        "seed-json",
        "valid-infer-only",
        "invalid-excel",
        "invalid-excel-all-zh",
        "invalid-jsonl-max-1-zh",
        "invalid-jsonl-json-scored",
        "json-zh",
        "no-such-sheet",
        "no-such-file",
        "colour-codes-in-a-name",
        "folder",
    ],
)
def test_validate_prints_the_same_through_both_paths(args: list[str], code: int, tmp_path: Path) -> None:
    assert assert_same(args, tmp_path) == code


@pytest.mark.parametrize("command", ["validate", "convert"])
def test_chinese_on_an_ascii_stream_is_utf8_not_a_traceback(command: str, tmp_path: Path) -> None:
    """PYTHONIOENCODING=ascii: the report is written in UTF-8 as typer.echo writes (the report's own lines
    were print()ed and raised UnicodeEncodeError halfway), alike through both paths."""
    args = [command, *INVALID_JSONL[:6], "--lang", "zh"]
    if command == "convert":
        args += ["-o", str(tmp_path / "out.jsonl")]
    assert assert_same(args, tmp_path, env={"PYTHONIOENCODING": "ascii"}) == 1
    _, out, err = formatkit(args, typer_only=False, env={"PYTHONIOENCODING": "ascii"})
    assert "个文件" in (out if command == "validate" else err).decode("utf-8")


def test_validate_in_the_locale_s_language_prints_the_same(tmp_path: Path) -> None:
    args = ["validate", *INVALID_JSONL[:6]]
    assert assert_same(args, tmp_path, env={"LANG": "zh_CN.UTF-8"}) == 1


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["convert", *SEED[2:4], "-o", "{tmp}/out.jsonl"], 0),
        (["convert", SEED[0], "--output={tmp}/out.jsonl", "--no-meta", "--profile", "none", "--lang", "zh"], 0),
        (["convert", "--mode", "scored", SEED[4], "--output", "{tmp}/out.jsonl"], 0),
        (["convert", *INVALID_EXCEL[:8], "-o", "{tmp}/out.jsonl", "--max-issues", "2"], 1),
        (["convert", *INVALID_JSONL[:8], "-o", "{tmp}/out.jsonl", "--all", "--lang", "zh"], 1),
        (["convert", SEED[2], "-o", "{tmp}"], 2),  # a folder
        (["convert", SEED[2], "-o", SEED[2]], 2),  # an input
        (["convert", SEED[2], "-o", "{tmp}/out.xlsx"], 2),  # a spreadsheet's name
        (["convert", SEED[2], "-o", "{tmp}/a-file/out.jsonl"], 1),  # under a file: the machine refuses
        (["convert", str(FIXTURES / "nothing-here.xlsx"), "-o", "{tmp}/out.jsonl"], 2),
    ],
    ids=[
        "two-files",
        "no-meta-zh",
        "scored",
        "invalid-excel-max-2",
        "invalid-jsonl-all-zh",
        "output-a-folder",
        "output-an-input",
        "output-xlsx",
        "output-under-a-file",
        "no-such-file",
    ],
)
def test_convert_prints_and_writes_the_same_through_both_paths(args: list[str], code: int, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert assert_same(args, tmp_path) == code


def test_names_with_chinese_and_spaces_and_an_empty_name_print_the_same(tmp_path: Path) -> None:
    source = tmp_path / "评测 集（一）.jsonl"
    source.write_bytes(Path(SEED[3]).read_bytes())
    bad = tmp_path / "坏 的.jsonl"
    bad.write_bytes(Path(INVALID_JSONL[0]).read_bytes())
    assert assert_same(["validate", str(source), str(bad), "--lang", "zh"], tmp_path) == 0
    assert assert_same(["convert", str(source), "-o", str(tmp_path / "输出 文件.jsonl")], tmp_path) == 0
    assert assert_same(["validate", ""], tmp_path) == 2


def test_an_output_another_command_writes_is_refused_the_same(tmp_path: Path, held: Any) -> None:
    out = tmp_path / "out.jsonl"
    held(out)
    assert assert_same(["convert", SEED[2], "-o", str(out)], tmp_path) == 2


@pytest.mark.parametrize(
    "args",
    [
        ["convert", "--help"],
        ["validate", "--lang", "fr", SEED[2]],
        ["validate", "--mode", "bad", SEED[2]],
        ["convert", SEED[2]],
        ["validate"],
    ],
    ids=["help", "bad-lang", "bad-mode", "no-output", "no-paths"],
)
def test_what_the_fast_path_declines_is_typer_s_as_before(args: list[str], tmp_path: Path) -> None:
    assert assert_same(args, tmp_path, fast=False) == (0 if "--help" in args else 2)


# --- what the fast path imports ------------------------------------------------------------------------

_IMPORTS = (
    "import sys\n"
    "from formatkit.cli import main\n"
    "sys.argv[0] = 'formatkit'\n"
    "try:\n"
    "    main()\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    "found = sorted({m.split('.')[0] for m in sys.modules} & {'typer', 'click', 'rich', 'pydantic'})\n"
    "sys.stderr.write(f'\\n{code} {found}')\n"
)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # clean files are said so without building a Report, so pydantic (~65 ms) is not imported; a
        # warning, or --json, needs the report
        (["convert", SEED[2], "-o", "{tmp}/out.jsonl", "--profile", "none"], "0 []"),
        (["convert", *SEED[:2], "-o", "{tmp}/out.jsonl", "--profile", "none"], "0 []"),
        (["convert", str(FIXTURES / "invalid" / "jsonl" / "blank_line.jsonl"), "-o", "{tmp}/o"], "0 ['pydantic']"),
        (["validate", *SEED[:4]], "0 []"),  # clean files: a line each from the run, no Report
        (["validate", *SEED], "0 ['pydantic']"),  # canonical files are checked against the pydantic models
        (["validate", *SEED, "--json", "--lang", "zh"], "0 ['pydantic']"),
        (["validate", "--help"], "0 ['pydantic', 'typer']"),  # typer's own path
    ],
    ids=["convert", "convert-two", "convert-warning", "validate", "validate-canonical", "validate-json-zh", "help"],
)
def test_the_fast_path_imports_neither_typer_nor_click_nor_rich(args: list[str], expected: str, tmp_path: Path) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    done = subprocess.run([sys.executable, "-c", _IMPORTS, *args], capture_output=True, text=True, timeout=120)
    assert done.stderr.rsplit("\n", 1)[-1] == expected, done.stderr


def test_a_full_disk_is_the_same_one_line_through_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], full_disk: None
) -> None:
    """The disk fills while the output is written: exit 1 and one line naming the output, by either path."""
    from formatkit.cli import main

    out = tmp_path / "out.jsonl"
    seen = []
    for typer_only in ("", "1"):
        monkeypatch.setenv(TYPER_ONLY, typer_only)
        monkeypatch.setattr(sys, "argv", ["formatkit", "convert", SEED[2], "-o", str(out)])
        capsys.readouterr()
        with pytest.raises(SystemExit) as exited:
            main()
        seen.append((exited.value.code, capsys.readouterr()))
    assert seen[0] == seen[1]
    assert (
        seen[0][0] == 1
        and seen[0][1].err
        == f"formatkit convert: {out}: cannot write it (No space left on device); nothing was written\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_closed_pipe_ends_both_paths_alike() -> None:
    """What typer's main does when stdout is a closed pipe (exit 1, not a word), the fast path does."""
    for args in (["validate", "--json", SEED[2]], ["validate", SEED[2]]):
        seen = []
        for typer_only in ("", "1"):
            read, write = os.pipe()
            os.close(read)
            env = {**os.environ, TYPER_ONLY: typer_only}
            done = subprocess.run([sys.executable, "-c", CODE, *args], stdout=write, capture_output=False,
                                  stderr=subprocess.PIPE, env=env, timeout=120)  # fmt: skip
            os.close(write)
            seen.append((done.returncode, done.stderr))
        assert seen[0] == seen[1] == (1, b"")


def test_python_dash_m_formatkit_cli_runs_the_command(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "formatkit.cli", "validate", *SEED], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "6 file(s) valid" in done.stdout, done.stdout + done.stderr
