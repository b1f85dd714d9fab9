"""The public API: every exported name resolves, and the command line starts without heavy imports."""

from __future__ import annotations

import subprocess
import sys

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
        "from scoring import ChatClient, Runner, RunJob\n"
        "print(before, 'httpx' in sys.modules, Runner.__module__, ChatClient.__module__, RunJob.__module__)"
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
        "CODES", "FileReport", "FixResult", "FormatkitError", "InvalidFileError", "Issue", "Message", "Meta", "Mode",
        "OutputError", "Profile", "Record", "Report", "Response", "SourceLocation", "UnreadablePathError",
        "Usage", "__version__", "convert", "export_excel", "fix_file", "iter_dicts", "iter_records", "record_to_dict",
        "validate_file", "validate_files", "Checked", "check_files", "check_output", "run_conversion",
        "MessageDict", "MetaDict", "RecordDict", "ResponseDict", "SourceDict", "UsageDict", "pending_turns",
        "reference_of", "response_of", "score_entries", "target_responses", "target_turn",
        "SHAPES", "BatchRead", "ShapeWritten", "read_batch", "read_batch_checked", "write_shape", "write_shape_checked",
    ],
    "scoring": [
        "METRICS", "RULE_METRICS", "Aggregate", "Aggregator", "ChatClient", "ChatResult", "ChoiceExtraction",
        "DatasetStats", "EndpointUnavailableError", "FileScoreOutcome", "Item", "ItemScore", "JudgeOptions",
        "MetricChoice", "MetricError", "MetricSpec", "RecordOutcome", "RuleFunction", "RunJob", "RunSummary",
        "Runner", "ScoreOutcome", "Scorer", "SympyGuard", "accepted_answers", "aggregate", "answers_equal",
        "boxed_contents", "choose_metric", "choose_metrics", "exact_match", "extract_choice",
        "extract_math_answer", "extract_number", "extract_yes_no", "item_from_record", "math_credit",
        "math_equal", "normalize_text", "option_letters", "parse_choice_reference", "parse_number",
        "parse_yes_no", "record_score", "reference_number", "score_choice", "score_exact", "score_file",
        "score_math", "score_records", "score_response", "strip_think", "EndpointOptions", "run_file",
        "evaluate", "EvalOutcome", "write_report", "collect_results", "JudgeUnavailableError",
        "Shard", "merge_parts", "MergeError", "Limits", "RetryPolicy", "Dialect", "RunOptions", "ScoreOptions",
        "EvalOptions", "AUTO", "metric_names", "DryRunPlan", "plan_file", "journal_path",
        "make_progress", "safe_command", "clean_api_key", "public_url", "check_base_url", "distinct_files",
        "Repeat", "Estimate", "Prices", "PricesError", "estimate_file", "read_prices", "estimate_evaluation",
        "CHARS_PER_TOKEN",
        "MESSAGE_OVERHEAD",
        "PanelJudge", "read_panel",
        "JudgeCheck", "judge_check", "JudgeVerdict", "judge_verdicts", "review_fields",
    ],
}  # fmt: skip

#: The public submodules (each with its own ``__all__``) and their names: what the command line may import
#: besides the two packages themselves (pyproject.toml's import-linter contracts hold it to that).
SUBMODULES = {
    "formatkit.codes": ["CAUSES", "CODES", "Code", "Severity", "describe"],
    "formatkit.errors": [
        "FormatkitError", "InvalidFileError", "OutputBusyError", "OutputError", "RepairError", "RepairRefusedError",
        "SheetReadBackError", "SmallFileError", "UnreadablePathError",
    ],
    "formatkit.files": [
        "TERMINATED", "SheetRows", "check_path", "csv_rows", "fixed_suffix", "output_lock", "read_small_file",
        "sheet_rows",
    ],
    "formatkit.messages": [
        "DEFAULT_LANG", "Msg", "catalogue", "escape_controls", "languages", "locale_lang", "resolve_lang", "ui",
    ],
    "formatkit.parameters": ["KNOWN_PARAMETERS", "ParameterSpec"],
    "formatkit.schema": ["SCHEMA_NAMES", "build_schema", "render", "write_all"],
    "formatkit.serve": ["Settings", "app", "create_app"],
    "scoring.errors": [
        "ClientError", "EndpointSetupError", "EndpointUnavailableError", "JudgeSetupError", "JudgeUnavailableError",
        "MalformedResponseError", "MergeError", "MetricError", "OutputLockedError", "PermanentRequestError",
        "PricesError",
        "ProxyUnsupportedError", "ReplyTooLargeError", "RequestNotSent", "ResultsFileError", "RetriesExhaustedError",
        "RetryableStatusError", "RunInterrupted", "ScoringWorkerError", "StreamError", "TransientError",
    ],
    "scoring.report": [
        "SAMPLE_FORMATS", "CollectedResults", "judge_summary_lines", "render_report", "render_summary", "save_report",
        "terminal_width", "diff_text", "holm", "min_detectable_difference", "render_judge_check",
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
