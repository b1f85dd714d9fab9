"""Reading a batch API's replies back into the set the batch file was written from.

``convert --from openai-batch RESULTS --set SET -o OUT.jsonl`` (and ``score --from openai-batch``): the
set is read as ``convert`` reads it, every record kept in order; each reply of the results files is
written into the response its ``custom_id`` names (:mod:`formatkit._rules.shapes.openai_batch`), as
``run`` writes a reply (``content``, ``usage``, ``model``, ``finish_reason``; a failed request's
``error``). An earlier assistant turn answered this way becomes that turn's content, so the next batch
asks the turn after it. A reply that names no pending turn of the set (another set, another batch, a
second reply) is an error at its line of the results file, and nothing is written.

A reply is recorded under the model it names (the model that answered). One that names another model
than its request asked for (where the set says: a set read from the batch file itself carries each
request's ``meta.model``; a dated snapshot of it, ``gpt-4o-2024-08-06`` for ``gpt-4o``, is the same
model) or, where the set does not say, than the first reply of the batch named, is a warning at its line
(``batch_other_model``): the replies are still read in, as they are what came back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from formatkit._api.conversion import check_output
from formatkit._api.validate import Checked, StrPath, _Run, check_path
from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.modes import Mode, Profile
from formatkit._core.record import RecordDict, ResponseDict, is_open, pending_turns
from formatkit._core.writers import atomic_writer, dumps_line, output_lock
from formatkit._reading.jsonl_lines import iter_json_lines
from formatkit._rules import jsonl as rules
from formatkit._rules.shapes.openai_batch import BatchReply, expand_samples, parse_custom_id, read_reply, session_digest

if TYPE_CHECKING:
    from formatkit._core.issue_models import FileReport

__all__ = ["BatchRead", "read_batch"]


class _ResultsRun:
    """A results file as the report sees a file: its issues and how many replies it gave."""

    def __init__(self, path: StrPath) -> None:
        self.path = check_path(path)
        self.name = str(path)
        self.sink = IssueSink(self.name)
        self.records = 0
        self.format = None

    def report(self) -> FileReport:
        from formatkit._core.issue_models import FileReport

        return FileReport.build(self.name, None, self.records, self.sink.issues)


@dataclass
class BatchCounts:
    """What reading the replies did: replies written in, how many were errors, turns still pending."""

    records: int = 0
    replies: int = 0
    errors: int = 0
    pending: int = 0


class BatchRead(Checked):
    """The checks of the set and of the results files, and :attr:`counts`."""

    counts: BatchCounts


def _fill(response: ResponseDict, reply: BatchReply) -> ResponseDict:
    """The response with the reply written in, in the order ``run`` writes one."""
    data: dict[str, object] = {"parameters": response.get("parameters") or {}}
    data.update((k, v) for k, v in response.items() if k not in ("parameters", "error"))
    if reply.error is not None:
        data["error"] = reply.error
        return data  # type: ignore[return-value]
    if reply.model is not None:
        data["model"] = reply.model
    if reply.usage is not None:
        data["usage"] = reply.usage
    data["content"] = reply.content
    if reply.reasoning_content is not None:
        data["reasoning_content"] = reply.reasoning_content
    if reply.finish_reason is not None:
        data["finish_reason"] = reply.finish_reason
    return data  # type: ignore[return-value]


def read_batch(
    results: Sequence[StrPath],
    set_path: StrPath,
    output: StrPath,
    *,
    mode: Mode = "infer-eval",
    profile: Profile = "none",
    sheet: str | None = None,
) -> BatchRead:
    """Write the records of ``set_path`` to ``output`` (canonical jsonl) with the replies of the batch
    ``results`` files in them. The outcome: ``.valid`` (nothing is written otherwise), ``.counts`` (replies
    written in, errors, turns still pending), ``.report()`` (the set's and the results files' issues)."""
    check_output(output, [set_path, *results])
    run = _Run(set_path, mode, profile, sheet=sheet)
    records: list[RecordDict] = []
    for record in run:
        expand_samples(record)
        records.append(record)
    runs: list[_Run] = [run]
    counts = BatchCounts()
    answered: set[tuple[int, int, int]] = set()
    first: tuple[str, int] | None = None  # the first reply's model and line (a batch runs on one model)
    for path in results:
        replies = _ResultsRun(path)
        runs.append(replies)  # type: ignore[arg-type]
        for line, value in iter_json_lines(replies.path, replies.sink):
            if not rules.check_object(value, line, replies.sink):
                continue
            reply = read_reply(value, line, replies.sink)
            if reply is None:
                continue
            replies.records += 1
            where = _place(reply.custom_id, records)
            if where is None or where in answered or not _open(records, where):
                key = "unknown_custom_id.twice" if where in answered else "unknown_custom_id"
                message = Msg(key, custom_id=reply.custom_id, set=str(set_path))
                replies.sink.add("unknown_custom_id", message, line=line, field="custom_id")
                continue
            answered.add(where)
            position, index, sample = where
            if reply.model is not None:
                first = _check_model(reply, records[position], first, line, replies.sink)
            message_ = records[position]["messages"][index]
            responses = message_["responses"]
            responses[sample] = _fill(responses[sample], reply)
            counts.replies += 1
            if reply.error is not None:
                counts.errors += 1
            elif index < len(records[position]["messages"]) - 1 and reply.content:
                # an earlier turn generated: its text is the history the next batch sends
                records[position]["messages"][index] = {
                    "role": "assistant",
                    "content": reply.content,
                    "responses": responses,
                }
    counts.records = len(records)
    counts.pending = sum(len(todo) for record in records for _, todo in pending_turns(record))
    outcome = BatchRead(runs, [])
    outcome.counts = counts
    if outcome.valid:
        with output_lock(output), atomic_writer(output) as handle:
            for record in records:
                handle.write(dumps_line(record))
    return outcome


def _place(text: str, records: list[RecordDict]) -> tuple[int, int, int] | None:
    """The (record, turn, sample) a custom_id names, when it is a response of ``records``."""
    found = parse_custom_id(text)
    if found is None or found.position >= len(records):
        return None
    record = records[found.position]
    if session_digest(record) != found.digest:
        return None
    messages = record["messages"]
    if found.message >= len(messages) or messages[found.message].get("role") != "assistant":
        return None
    responses = messages[found.message].get("responses") or []
    if found.sample >= len(responses):
        return None
    return found.position, found.message, found.sample


def _open(records: list[RecordDict], where: tuple[int, int, int]) -> bool:
    position, index, sample = where
    return is_open(records[position]["messages"][index]["responses"][sample])


def _same_model(named: str, requested: str) -> bool:
    """``named`` is ``requested`` or a dated snapshot of it (``gpt-4o-2024-08-06`` for ``gpt-4o``)."""
    return named == requested or (named.startswith(requested + "-") and named[len(requested) + 1 :][:1].isdigit())


def _check_model(
    reply: BatchReply, record: RecordDict, first: tuple[str, int] | None, line: int, sink: IssueSink
) -> tuple[str, int]:
    """Warn at ``line`` when the reply names another model than its request (the set's ``meta.model``)
    or, where the set does not say, than the batch's first reply; the first reply's model and line."""
    assert reply.model is not None
    meta = record.get("meta")
    requested = meta.get("model") if isinstance(meta, dict) else None
    if isinstance(requested, str) and requested:
        if not _same_model(reply.model, requested):
            message = Msg("batch_other_model", model=reply.model, requested=requested)
            sink.add("batch_other_model", message, line=line, field="response.body.model")
    elif first is not None and reply.model != first[0]:
        message = Msg("batch_other_model.batch", model=reply.model, first=first[0], line=first[1])
        sink.add("batch_other_model", message, line=line, field="response.body.model")
    return first if first is not None else (reply.model, line)
