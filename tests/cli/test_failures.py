"""The one table from exceptions to exit codes and messages (formatkit/cli/_failures.py).

The English messages are pinned byte for byte against the text each command printed from its own
``except`` ladder before the table (written out here as those f-strings were); the Chinese ones must
exist, differ and name the same fields (tests/formats/test_messages.py). Through the CLI: a failure is
one message and its exit code, in the language asked for.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from typer.testing import CliRunner

from formatkit.cli import app
from formatkit.cli._base import EXIT_INTERRUPTED, EXIT_TERMINATED
from formatkit.cli._failures import exits, failure_of, failures, say
from formatkit.errors import (
    InvalidFileError,
    OutputBusyError,
    OutputError,
    RepairError,
    RepairRefusedError,
    SheetReadBackError,
)
from formatkit.messages import Msg, catalogue
from scoring import RunSummary
from scoring.errors import (
    AnsweredSetError,
    BadLabelsError,
    EndpointUnavailableError,
    JudgeSetupError,
    JudgeUnavailableError,
    MergeError,
    MetricError,
    OtherModelResultsError,
    OutputLockedError,
    ResultsFileError,
    RunInterrupted,
    ScoringWorkerError,
)

ROOT = Path(__file__).parent.parent.parent
FIXTURES = ROOT / "fixtures"
COMMANDS = ("eval", "score", "run", "report", "export", "merge", "fix", "convert")


def test_every_row_has_its_message_in_every_language() -> None:
    for row in failures():
        if row.key is None:
            assert row.report, row  # a row that prints nothing prints the report
            continue
        english, chinese = catalogue("en")[f"ui.{row.key}"], catalogue("zh")[f"ui.{row.key}"]
        assert english != chinese, row.key


def test_a_subclass_is_never_hidden_by_its_base() -> None:
    """Rows are tried in order: a row after one that catches its base could never be reached."""
    rows = failures()
    for i, later in enumerate(rows):
        for earlier in rows[:i]:
            if earlier.command != later.command:
                continue
            hidden = [kind for kind in later.kinds if any(issubclass(kind, base) for base in earlier.kinds)]
            assert hidden == [], (later, earlier)


@pytest.mark.parametrize(
    ("command", "exc", "code"),
    [
        ("run", OutputLockedError("locked", pid=1), 2),
        ("run", EndpointUnavailableError("down"), 1),
        ("run", OSError("disk full"), 1),
        ("run", RunInterrupted(15), EXIT_TERMINATED),
        ("run", KeyboardInterrupt(), EXIT_INTERRUPTED),
        ("eval", OutputBusyError("busy"), 2),
        ("eval", JudgeSetupError("bad scale"), 2),
        ("eval", JudgeUnavailableError("judge down", status=None, hint="", bought=0, reused=0), 1),
        ("score", MetricError("no such metric"), 2),
        ("score", ScoringWorkerError("boom"), 1),
        ("report", ResultsFileError("not JSON"), 2),
        ("export", OutputBusyError("busy"), 2),
        ("export", OutputError("full"), 1),
        ("merge", MergeError(["a", "b"]), 1),
        ("fix", RepairError("cannot open"), 1),
        ("fix", RepairRefusedError(Msg("frag.fix_refused.styles", count=70_000, limit=64_000)), 1),
        ("convert", OutputBusyError("busy"), 2),
        ("output", OutputError("a folder"), 2),
        ("*", OutputBusyError("busy"), 2),
        ("*", OSError("read-only"), 1),
    ],
)
def test_each_command_maps_its_exceptions_to_its_exit_code(command: str, exc: BaseException, code: int) -> None:
    row = failure_of(command, exc)
    assert row is not None and row.code == code


def test_an_exception_no_row_names_propagates_unchanged() -> None:
    with pytest.raises(ValueError, match="not mine"), exits("run", "en"):
        raise ValueError("not mine")
    assert failure_of("merge", KeyboardInterrupt()) is None  # merge leaves Ctrl-C to typer


def test_exits_prints_the_message_and_ends_with_the_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended, exits("merge", "en", count=2, problems=lambda e: "\n  x"):
        raise MergeError(["x"])
    assert ended.value.code == 1
    assert capsys.readouterr().err == "formatkit merge: cannot merge 2 part(s); nothing was written:\n  x\n"


# What each command printed before the table, f-string for f-string (the old except ladders).
def _old_messages() -> list[tuple[str, BaseException | None, dict[str, object], str]]:
    judge = JudgeUnavailableError("judge 401", status=401, hint="check the key", bought=3, reused=2)
    endpoint = EndpointUnavailableError("all failed", hint="check the endpoint")
    journal, output = Path("out.jsonl.journal"), Path("out.jsonl")
    kept, hint = "2 record(s) finished in this run are kept in out.jsonl.journal", "check the endpoint (--base-url x)"
    rerun = "Rerun the same command to resume: nothing finished is sent again."
    locked = OutputLockedError("out.jsonl is being written by process 7", pid=7)
    sheet = SheetReadBackError.__new__(SheetReadBackError)
    Exception.__init__(sheet, "sheet")
    sheet.mode = "scored"
    labels = BadLabelsError([Msg("frag.label.out_of_scale", where="r.xlsx: sheet results, row 3, human_score",
                                 value="7", scale="0-2")])  # fmt: skip
    return [
        (
            "labels.refused",
            labels,
            {"command": "score", "problems": lambda exc: exc.listed("en")},
            "formatkit score: 1 label(s) cannot be used; nothing was computed or written:\n  r.xlsx: sheet results, "
            "row 3, human_score: the label 7 is outside the judge's scale 0-2\n  Correct them, or give "
            "--skip-bad-labels to leave them out.",
        ),
        ("run.locked", locked, {}, f"formatkit run: {locked}; nothing was sent."),
        (
            "run.stopped",
            endpoint,
            {"hint": lambda e: hint, "kept": kept, "output": output},
            f"formatkit run: stopped: {endpoint}\n  {hint}.\n  {kept}; "
            f"{output} was not written. Rerun the same command to resume: finished records are not sent again.",
        ),
        (
            "run.io_error",
            OSError(28, "No space left on device"),
            {"journal": journal},
            f"formatkit run: stopped by an I/O error: {OSError(28, 'No space left on device')}; finished records "
            f"are kept in {journal}; rerun to resume.",
        ),
        (
            "run.terminated",
            RunInterrupted(15),
            {"kept": kept},
            f"formatkit run: terminated (SIGTERM). {kept}; rerun to resume.",
        ),
        (
            "run.interrupted",
            KeyboardInterrupt(),
            {"kept": kept},
            f"formatkit run: interrupted. {kept}; rerun to resume.",
        ),
        ("run.kept_nothing", KeyboardInterrupt(), {"journal": journal}, f"nothing was journaled in {journal}"),
        ("run.kept", KeyboardInterrupt(), {"done": 2, "journal": journal}, kept),
        ("run.kept_errors", KeyboardInterrupt(), {"errors": 4}, " (4 more ended in error and will be retried)"),
        ("run.kept_attempts", KeyboardInterrupt(), {"attempts": 9}, ", after 9 HTTP attempt(s)"),
        ("eval.locked", locked, {}, f"formatkit eval: {locked}; nothing was sent."),
        (
            "eval.answered",
            AnsweredSetError({"seed_output_single_turn": 2}, "m"),
            {},
            "formatkit eval: these sets already hold replies that m did not make: seed_output_single_turn (2). eval "
            "answers sets; a results file among them would show up as another model beside m. Leave results files "
            "out of eval (put them beside it with formatkit report, or score them with formatkit score); nothing was "
            "sent.",
        ),
        (
            "eval.other_model",
            OtherModelResultsError("out", "m1", "m2"),
            {},
            "formatkit eval: out holds the results of model m1; evaluating m2 there would replace them. Give m2 its "
            "own -o folder (formatkit report then puts the two side by side), or --restart to replace them; nothing "
            "was sent.",
        ),
        (
            "eval.invalid",
            InvalidFileError.__new__(InvalidFileError),
            {},
            f"formatkit eval: the flow stopped: {InvalidFileError.__new__(InvalidFileError)}\n"
            f"  the issues above say what to fix.\n  {rerun}",
        ),
        (
            "eval.judge_stopped",
            judge,
            {"judge_hint": lambda e: e.hint or "check the judge endpoint"},
            f"formatkit eval: judging stopped: {judge}\n  check the key.\n  {rerun}",
        ),
        (
            "eval.run_stopped",
            endpoint,
            {"hint": lambda e: hint},
            f"formatkit eval: the run stopped: {endpoint}\n  {hint}.\n  {rerun}",
        ),
        ("eval.terminated", RunInterrupted(15), {}, f"formatkit eval: terminated (SIGTERM). {rerun}"),
        ("eval.interrupted", KeyboardInterrupt(), {}, f"formatkit eval: interrupted. {rerun}"),
        ("judge_hint", judge, {}, "check the judge endpoint"),
        (
            "score.judge_stopped",
            judge,
            {
                "hint": lambda e: "check the key in $JUDGE_KEY",
                "verdicts": lambda e: say("score.verdicts_kept", "en", e, journal=journal),
            },
            f"formatkit score: stopped: {judge}\n  check the key in $JUDGE_KEY.\n  {judge.bought} verdict(s) bought "
            f"in this run are kept in {journal} ({judge.reused} reused from it); the output was not written. "
            "Rerun the same command to resume: no verdict is bought twice.",
        ),
        (
            "score.worker_failed",
            ScoringWorkerError("Traceback ..."),
            {},
            f"formatkit score: {ScoringWorkerError('Traceback ...')}\nnothing was written.",
        ),
        (
            "score.interrupted",
            KeyboardInterrupt(),
            {"kept": f"the verdicts bought so far are kept in {journal}; "},
            f"formatkit score: interrupted; the verdicts bought so far are kept in {journal}; rerun the same "
            "command to resume.",
        ),
        (
            "score.terminated",
            RunInterrupted(15),
            {"kept": ""},
            "formatkit score: terminated (SIGTERM); rerun the same command to resume.",
        ),
        (
            "score.kept",
            KeyboardInterrupt(),
            {"journal": journal},
            f"the verdicts bought so far are kept in {journal}; ",
        ),
        (
            "export.read_back",
            sheet,
            {"output": "out.xlsx"},
            "formatkit export: the sheet for out.xlsx would be refused when read back in scored "
            "mode (the issues above), so nothing was written. Records with neither a reply nor an error "
            "have not run yet: finish the run first (rerun the same `formatkit run` or `eval` to resume).",
        ),
        ("export.not_written", OSError("full"), {}, f"formatkit export: {OSError('full')}; nothing was written"),
        ("merge.not_written", OutputError("o: is not a regular file"), {}, "formatkit merge: o: is not a regular file"),
        ("convert.not_written", OSError("full"), {}, f"formatkit convert: {OSError('full')}; nothing was written"),
        ("failed", MetricError("unknown metric 'x'"), {}, "formatkit: error: unknown metric 'x'"),
        (
            "api_key_cleaned",
            None,
            {"command": "run", "env": "KEY", "warning": "the API key ends in a carriage return"},
            "formatkit run: warning: $KEY: the API key ends in a carriage return",
        ),
        (
            "api_key_unset",
            None,
            {"command": "eval", "env": "KEY"},
            "formatkit eval: warning: --api-key-env KEY: that variable is not set (or empty); "
            "requests are sent without an API key",
        ),
        ("failed_nothing_written", OutputBusyError("busy"), {}, "formatkit: error: busy; nothing was written"),
        (  # new with #29 item 5: fix used to say "nothing written" and exit 0 (no message to keep)
            "fix.cannot_repair",
            RepairError("ParseError: unclosed token", source="in.xlsx", output="out.xlsx"),
            {},
            "formatkit fix: in.xlsx: could not be opened for repair (ParseError: unclosed token), though validate "
            "reads it; nothing was written to out.xlsx: open it in Excel or LibreOffice, save it again and fix "
            "the saved copy",
        ),
        (  # new with #29 item 2: fix used to run for minutes past a gigabyte (no message to keep)
            "fix.refused",
            RepairRefusedError(
                Msg("frag.fix_refused.merges", sheet="S", count=200_000, limit=10_000), source="in.xlsx"
            ),
            {"output": "out.xlsx", "why": lambda exc: exc.why.render("en")},
            'formatkit fix: in.xlsx: sheet "S" holds 200,000 merged ranges, more than fix rewrites (10,000): unmerge '
            "the cells (select all, Merge & Center off), save it and fix the saved copy; nothing was written to "
            "out.xlsx (validate reads it)",
        ),
    ]


@pytest.mark.parametrize(("key", "exc", "context", "old"), _old_messages(), ids=[entry[0] for entry in _old_messages()])
def test_the_english_message_is_what_the_command_printed_before(
    key: str, exc: BaseException | None, context: dict[str, object], old: str
) -> None:
    assert say(key, "en", exc, **context) == old


def test_every_message_of_the_table_is_pinned_above() -> None:
    pinned = {key for key, *_ in _old_messages()} | {"merge.refused"}  # merge.refused: through exits, above
    pinned |= {"proxy_unsupported"}  # new with #29, pinned in tests/cli/test_no_tracebacks.py
    assert {row.key for row in failures() if row.key is not None} <= pinned


def test_the_commands_catch_nothing_themselves() -> None:
    """No command has an except ladder of its own: what a failure means is the table's."""
    ladders = {}
    for name in COMMANDS:
        tree = ast.parse((ROOT / "formatkit" / "cli" / f"{name}.py").read_text(encoding="utf-8"))
        handlers = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler)]
        if name == "run":  # parse_shard: a bad --shard value is bad usage, before any work
            handlers = handlers[1:]
        if handlers:
            ladders[name] = handlers
    assert ladders == {}


def test_a_failure_speaks_the_language_asked_for(tmp_path: Path) -> None:
    seed = FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl"
    args = ["score", str(seed), "-o", str(tmp_path / "out.jsonl"), "--metric", "no_such_metric"]
    english = CliRunner().invoke(app, args)
    chinese = CliRunner().invoke(app, [*args, "--lang", "zh"])
    assert english.exit_code == chinese.exit_code == 2
    assert english.stderr.startswith("formatkit: error: ")
    assert chinese.stderr.startswith("formatkit：错误：")
    assert english.stderr.removeprefix("formatkit: error: ") == chinese.stderr.removeprefix("formatkit：错误：")


def test_merge_refusal_lists_every_problem_under_one_line_in_the_locale_language(tmp_path: Path) -> None:
    part = tmp_path / "part.jsonl"
    part.write_bytes((FIXTURES / "seed" / "seed_jsonl_single_turn.jsonl").read_bytes())
    for env, options, head, problem in (
        (
            {"LANG": "C.UTF-8"},
            [],
            "formatkit merge: cannot merge 1 part(s); nothing was written:\n  ",
            ": no run record",
        ),
        ({"LANG": "zh_CN.UTF-8"}, [], "formatkit merge：无法合并 1 个部分；没有写入任何内容：\n  ", "：没有运行记录"),
        ({"LANG": "C.UTF-8"}, ["--lang", "zh"], "formatkit merge：无法合并 1 个部分", "：没有运行记录"),
    ):
        result = CliRunner(env=env).invoke(app, ["merge", str(part), "-o", str(tmp_path / "m.jsonl"), *options])
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith(head), result.stderr
        assert f"part.jsonl{problem}" in result.stderr  # the problems too speak the language (#29)


def _old_summary_lines(summary: RunSummary, out: Path) -> list[str]:
    """run's summary as it was printed before the catalogue (formatkit/cli/run.py, verbatim)."""
    lines = [
        f"run: {summary.records} records written to {out}: {summary.finished} finished, "
        f"{summary.with_errors} with errors",
        f"  this run: {summary.requests} requests for {summary.sent_records} records"
        + (f" ({summary.attempts} HTTP attempts with the retries)" if summary.attempts > summary.requests else "")
        + f"; {summary.resumed} taken from the journal; {summary.nothing_to_do} had nothing to send",
    ]
    if summary.errors_by_kind:
        kinds = ", ".join(f"{kind} {count}" for kind, count in summary.errors_by_kind.most_common())
        lines.append(f"  errors by kind: {kinds}")
    if summary.empty_replies or summary.cut_off:
        lines.append(
            f"  replies: {summary.empty_replies} empty (no content: nothing to score), "
            f"{summary.cut_off} cut off at the token limit (finish_reason: length)"
        )
        if summary.empty_replies:
            lines.append(
                "  rerun with --retry-empty N to ask the empty ones again "
                "(a reasoning model may need a larger max_tokens)"
            )
    tokens = summary.tokens
    lines.append(
        f"  tokens: prompt {tokens['prompt_tokens']}, completion {tokens['completion_tokens']}, "
        f"total {tokens['total_tokens']}"
    )
    if summary.stale_journal_entries:
        lines.append(
            f"  note: {summary.stale_journal_entries} journal entries did not match the input or settings "
            "(changed since) and were ignored"
        )
    lines.extend(f"  note: {note}" for note in summary.notes)
    if summary.with_errors:
        lines.append("  rerun the same command to retry the records that ended in error")
    return lines


@pytest.mark.parametrize("busy", [False, True])
def test_runs_summary_is_what_it_was_in_english_and_chinese_with_lang_zh(busy: bool) -> None:
    from formatkit.cli.run import summary_lines

    summary = RunSummary(records=11, finished=9, with_errors=2, resumed=3, nothing_to_do=1, sent_records=7)
    summary.requests, summary.attempts = 8, 12 if busy else 8
    summary.tokens.update(prompt_tokens=100, completion_tokens=50, total_tokens=150)
    if busy:
        summary.errors_by_kind.update({"http_500": 2, "timeout": 1})
        summary.empty_replies, summary.cut_off, summary.stale_journal_entries = 1, 2, 3
        summary.notes.append("the endpoint refused streaming; plain requests were sent")
    out = Path("答案.jsonl")
    assert summary_lines(summary, out, "en") == _old_summary_lines(summary, out)
    chinese = summary_lines(summary, out, "zh")
    assert len(chinese) == len(_old_summary_lines(summary, out))
    assert chinese[0] == "run：11 条记录已写入 答案.jsonl：9 条完成，2 条有错误"


def test_the_other_lines_are_what_they_were_in_english() -> None:
    from scoring import MetricChoice
    from scoring._runner.job import DryRunPlan

    plan = DryRunPlan(first_request=None, requests=4, records_with_work=3, already_finished=2, records=5)
    assert say("run.dry_run", "en", plan) == (
        f"dry run: would send {plan.requests} request(s) for {plan.records_with_work} record(s) "
        f"({plan.already_finished} of {plan.records} already finished in the journal); nothing was sent"
    )
    pick = MetricChoice("judge", "the reference is free text")
    assert say("eval.judge_needed", "en", pick, dataset="问答") == (
        f"formatkit eval: 问答: a judge is needed — {pick.reason}; left unscored "
        "(give --judge-base-url and --judge-model to judge them)"
    )
    assert say("score.judge_needed", "en", pick, dataset="qa") == (
        f"formatkit score: qa: a judge is needed — {pick.reason}; left unscored"
    )
    assert say("score.nothing_scored", "en") == "formatkit score: no response could be scored"
    assert say("report.unscored", "en", dataset="qa") == (
        "formatkit report: qa: no response has been scored; run `formatkit score` on it first "
        "and report the file it writes"
    )
    assert say("wrote", "en", output="a, b") == "wrote a, b"
    why = say("export.why_infer_eval", "en")
    assert say("export.wrote", "en", rows=3, output="o.xlsx", mode="infer-eval", why=why) == (
        "wrote 3 rows to o.xlsx (input read in infer-eval mode "
        "(not every target turn has a reply: some inference failed or has not run))"
    )
    assert say("export.why_infer_only", "en") == " (some target turns have no reference)"
    assert say("export.note", "en", note="n") == "formatkit export: n"
    assert say("merge.merged", "en", None, parts=3, output="m.jsonl", records=11) == (
        "merged 3 parts into m.jsonl: 11 records in input order"
    )
