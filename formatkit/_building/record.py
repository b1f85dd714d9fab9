"""The one builder of canonical records: a Draft (cells or a line, with their places) through the shared
rules into the record every later stage reads.

The readers' fast path (a row or line that passes every rule on cheap checks) builds its target turn with
the same :func:`build_target`, so both paths give the same bytes; ``fast=False`` on the reading API forces
the full path everywhere (the tests compare the two).
"""

from __future__ import annotations

from typing import cast

from formatkit._core.draft import Draft
from formatkit._core.issues import IssueSink
from formatkit._core.modes import Mode
from formatkit._core.record import MessageDict, MetaDict, Parameters, ReadSource, RecordDict, SourceDict
from formatkit._rules.common import check_target, target_is_clean
from formatkit._rules.parameters import check_parameters
from formatkit._rules.results import apply_results

__all__ = ["build_record", "build_target", "clean_target"]


def build_target(mode: Mode, reference: str | None, response: str | None, parameters: Parameters) -> MessageDict:
    """The target assistant turn: the reference (not in infer-only), and the collected response (scored)
    or one pending stub per sample (``n``)."""
    target: MessageDict = {"role": "assistant"}
    if mode != "infer-only" and reference is not None:
        target["reference_response"] = reference
    if mode == "scored" and response is not None:
        target["responses"] = [{"parameters": parameters, "content": response}]
    else:
        samples = parameters.get("n", 1)
        if type(samples) is int and samples > 1:  # bool is an int: n=True is one sample, as before
            target["responses"] = [{"parameters": parameters} for _ in range(samples)]
        else:
            target["responses"] = [{"parameters": parameters}]
    return target


def clean_target(mode: Mode, reference: str | None, response: str | None, parameters: Parameters) -> MessageDict | None:
    """The target turn, when the rules have nothing to say about it (the fast path); None otherwise (the
    caller then takes the full path). ``parameters`` must be a dict check_parameters returns unchanged."""
    if not target_is_clean(mode, reference, response):
        return None
    return build_target(mode, reference, response, parameters)


def build_record(draft: Draft, position: int, mode: Mode, sink: IssueSink) -> RecordDict:
    """Apply the shared rules and return the canonical record as plain data (meta included)."""
    if draft.canonical is not None:
        return _pass_through(draft.canonical, draft.source)
    check_target(draft, mode, sink)
    parameters = check_parameters(draft.parameters, draft.parameters_place, sink)
    messages: list[MessageDict] = []
    for message in draft.history:
        if message["role"] == "assistant" and message.get("content") is None:
            messages.append({"role": "assistant", "responses": [{"parameters": parameters}]})
        else:
            messages.append(message)
    messages.append(build_target(mode, draft.reference, draft.response, parameters))
    meta: MetaDict = {"dataset": draft.source.get("dataset"), "source": _source(draft.source)}
    if draft.meta:
        meta.update(draft.meta)
    session_id = draft.session_id if draft.session_id is not None else position
    record: RecordDict = {"session_id": session_id, "messages": messages, "meta": meta}
    if draft.results:
        apply_results(record, draft.results, sink, scored=mode == "scored")
    return record


def _pass_through(record: RecordDict, source: ReadSource) -> RecordDict:
    """A canonical input keeps its own meta; the dataset and source are filled in when absent."""
    meta: MetaDict = {**(record.get("meta") or {})}
    meta.setdefault("dataset", source.get("dataset"))
    meta.setdefault("source", _source(source))
    return {**record, "meta": meta}


def _source(source: ReadSource) -> SourceDict:
    return cast(SourceDict, {k: v for k, v in source.items() if k != "dataset" and v is not None})
