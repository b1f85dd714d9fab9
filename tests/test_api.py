"""The public API: every exported name resolves, and the command line starts without heavy imports."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import formatkit


@pytest.mark.parametrize("name", formatkit.__all__)
def test_every_export_resolves(name: str) -> None:
    assert getattr(formatkit, name) is not None


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = formatkit.no_such_name


def test_cli_start_up_does_not_import_heavy_libraries() -> None:
    """`formatkit validate` must start fast: pandas, httpx, sympy and openpyxl load only where needed."""
    code = (
        "import sys; from formatkit.cli import app; "
        "print(','.join(m for m in ('pandas', 'httpx', 'sympy', 'openpyxl', 'numpy') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == ""


def test_scoring_exports_the_runner_lazily() -> None:
    """`import scoring` stays light for the rule metrics; the runner API loads httpx when first asked for."""
    program = (
        "import sys, scoring\n"
        "before = 'httpx' in sys.modules\n"
        "from scoring import ChatClient, Runner, RunSummary\n"
        "print(before, 'httpx' in sys.modules, Runner.__module__, ChatClient.__module__, RunSummary.__module__)"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.split() == [
        "False",
        "True",
        "scoring._runner.runner",
        "scoring._client.http",
        "scoring._runner.job",
    ]


#: The documented faces of the two packages (docs/pages/guide/python.md; docs/pages/reference/api.md lists them
#: all). A name added or removed is a change of the public contract: update the docs and this list together.
DOCUMENTED = {
    "formatkit": [
        "__version__", "BatchRead", "CODES", "convert", "export_excel", "FileReport", "fix_file", "FixResult",
        "Issue", "iter_dicts", "iter_records", "Message", "MessageDict", "Meta", "MetaDict", "Mode", "pending_turns",
        "Profile", "read_batch", "Record", "record_to_dict", "RecordDict", "reference_of", "Report", "Response",
        "response_of", "ResponseDict", "score_entries", "SHAPES", "ShapeWritten", "SourceDict", "SourceLocation",
        "target_responses", "target_turn", "Usage", "UsageDict", "validate_file", "validate_files", "write_shape",
    ],
    "scoring": [
        "Aggregate", "aggregate", "ChatClient", "ChatResult", "collect_results", "Dialect", "EndpointOptions",
        "Estimate", "estimate_evaluation", "estimate_file", "EvalOptions", "EvalOutcome", "evaluate",
        "FileScoreOutcome", "Item", "ItemScore", "judge_check", "judge_verdicts", "JudgeCheck", "JudgeOptions",
        "JudgeVerdict", "Limits", "merge_parts", "MetricChoice", "METRICS", "MetricSpec", "PanelJudge", "Prices",
        "read_panel", "read_prices", "RecordOutcome", "RetryPolicy", "review_fields", "run_file", "Runner",
        "RunOptions", "RunSummary", "score_file", "score_records", "score_response", "ScoreOptions", "ScoreOutcome",
        "Shard", "write_report",
    ],
}  # fmt: skip

#: The public submodules (each with its own ``__all__``) and their names: what the command line may import
#: besides the two packages themselves (pyproject.toml's import-linter contracts hold it to that).
SUBMODULES = {
    "formatkit.codes": [
        "Code", "CODES", "describe", "Severity",
    ],
    "formatkit.errors": [
        "FormatkitError", "InvalidFileError", "OutputBusyError", "OutputError", "RepairError", "RepairRefusedError",
        "SheetReadBackError", "SmallFileError", "UnreadablePathError",
    ],
    "formatkit.files": [
        "SheetRows", "csv_rows", "fixed_suffix", "sheet_rows",
    ],
    "formatkit.messages": [
        "catalogue", "coverage", "DEFAULT_LANG", "escape_controls", "languages", "locale_lang", "Msg", "resolve_lang",
        "ui",
    ],
    "formatkit.parameters": [
        "KNOWN_PARAMETERS", "ParameterSpec",
    ],
    "formatkit.schema": [
        "build_schema", "render", "SCHEMA_NAMES", "write_all",
    ],
    "formatkit.serve": ["Settings", "app", "create_app"],
    "scoring.errors": [
        "AnsweredSetError", "BadLabelsError", "ClientError", "EndpointSetupError", "EndpointUnavailableError",
        "JudgeSetupError",
        "JudgeUnavailableError",
        "MalformedResponseError", "MergeError", "MetricError", "OtherModelResultsError", "OutputLockedError",
        "PermanentRequestError", "PricesError", "ProxyUnsupportedError", "ReplyTooLargeError", "RequestNotSent",
        "ResultsFileError", "RetriesExhaustedError", "RetryableStatusError", "RunInterrupted", "ScoringWorkerError",
        "StreamError", "TransientError",
    ],
    "scoring.report": [
        "CollectedResults", "diff_text", "holm", "min_detectable_difference", "render_judge_check", "render_report",
        "render_summary", "save_report",
    ],
}  # fmt: skip


@pytest.mark.parametrize("package", sorted(DOCUMENTED))
def test_exported_names_are_exactly_the_documented_ones(package: str) -> None:
    module = __import__(package)
    assert sorted(module.__all__) == sorted(DOCUMENTED[package])
    import types

    # nothing public is reachable but the exports (lazy ones appear once used) and the CLI subpackage
    public = {n for n, v in vars(module).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    assert public - set(module.__all__) <= {"lazy_getattr", "TYPE_CHECKING", "annotations"}, public - set(
        module.__all__
    )


@pytest.mark.parametrize("package", sorted(DOCUMENTED))
def test_every_submodule_is_private(package: str) -> None:
    import pkgutil

    module = __import__(package)
    names = [info.name for info in pkgutil.iter_modules(module.__path__)]
    public = sorted(name.rpartition(".")[2] for name in SUBMODULES if name.startswith(package + "."))
    assert [name for name in names if not name.startswith("_")] == sorted(
        (["cli"] if package == "formatkit" else []) + public
    )


@pytest.mark.parametrize("name", sorted(SUBMODULES))
def test_public_submodules_export_exactly_their_documented_names(name: str) -> None:
    import importlib

    module = importlib.import_module(name)
    assert module.__doc__
    assert sorted(module.__all__) == sorted(SUBMODULES[name])
    for export in module.__all__:
        assert getattr(module, export) is not None, export


def test_every_error_a_caller_catches_is_in_its_package_errors_module() -> None:
    """One home per error: each exception class exported anywhere in the two faces is in their errors module."""
    import importlib

    import formatkit.errors
    import scoring.errors

    homes = {"formatkit": formatkit.errors, "scoring": scoring.errors}
    for name, names in [*DOCUMENTED.items(), *SUBMODULES.items()]:
        module = importlib.import_module(name)
        for export in names:
            value = getattr(module, export)
            if isinstance(value, type) and issubclass(value, BaseException):
                home = homes[name.partition(".")[0]]
                assert getattr(home, export, None) is value, f"{name}.{export} is not in {home.__name__}"


@pytest.mark.parametrize("name", ["formatkit._cli_support", "scoring._cli_support"])
def test_the_cli_support_faces_hold_what_only_the_cli_calls(name: str) -> None:
    """The command line's own helpers are in one private module per package: each resolves, none is also a
    public name (a name is public or the CLI's, not both), and the CLI calls each (an unused one goes)."""
    import importlib
    from pathlib import Path

    module = importlib.import_module(name)
    package = name.partition(".")[0]
    public = set(DOCUMENTED[package]).union(*(names for sub, names in SUBMODULES.items() if sub.startswith(package)))
    assert not set(module.__all__) & public
    cli = "\n".join(p.read_text(encoding="utf-8") for p in Path(formatkit.__file__).parent.joinpath("cli").glob("*.py"))
    for export in module.__all__:
        assert getattr(module, export) is not None, export
        imported = rf"from {re.escape(name)} import (?:\([^)]*|[^\n(]*)\b{export}\b"  # one line, or in parentheses
        assert re.search(imported, cli), f"the CLI does not call {export}"


def test_one_name_per_file_operation() -> None:
    """No operation is public twice (``X`` and ``X_checked``): each returns what a caller needs."""
    names = [n for names in (*DOCUMENTED.values(), *SUBMODULES.values()) for n in names]
    assert not [n for n in names if n.endswith("_checked")]
    assert {"check_files", "run_conversion"}.isdisjoint(names)


def test_write_shape_and_read_batch_give_their_outcome(tmp_path: Path) -> None:
    """The one name of each operation returns what it found and did, the report on request."""
    from formatkit import BatchRead, ShapeWritten, read_batch, write_shape

    seed = Path(__file__).parent.parent / "fixtures" / "seed" / "seed_jsonl_single_turn.jsonl"
    written = write_shape([seed], tmp_path / "inspect.jsonl", "inspect")
    assert isinstance(written, ShapeWritten) and written.valid and written.report().valid
    assert written.lines == written.records == len((tmp_path / "inspect.jsonl").read_text().splitlines()) == 2

    results = tmp_path / "results.jsonl"
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "4"}, "finish_reason": "stop"}]}
    reply = {"custom_id": "not-of-this-set", "response": {"status_code": 200, "body": body}, "error": None}
    results.write_text(json.dumps(reply) + "\n", encoding="utf-8")
    read = read_batch([results], seed, tmp_path / "answered.jsonl")
    assert isinstance(read, BatchRead) and not read.valid and not (tmp_path / "answered.jsonl").exists()
    assert (read.counts.records, read.counts.replies, read.counts.pending) == (2, 0, 2)
    assert [issue.code for issue in read.report().all_issues()] == ["unknown_custom_id"]
