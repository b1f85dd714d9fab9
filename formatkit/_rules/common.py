"""The rules every input shape shares: the target turn under each mode, and the canonical build."""

from __future__ import annotations

from typing import Any

from formatkit._core.draft import Draft
from formatkit._core.issues import IssueSink
from formatkit._core.modes import Mode
from formatkit._rules.parameters import check_parameters
from formatkit._rules.results import apply_results, has_outcome

__all__ = ["build_record", "clean_target", "is_blank"]

#: Readers build a record straight away, without a Draft, when a row passes every rule on cheap checks
#: (:func:`clean_target` and the readers' ``_fast_*`` methods); anything else takes the full path. Tests
#: switch this off to check that both paths give the same bytes and the same issues.
FAST_PATHS = True


def is_blank(value: object) -> bool:
    """None, or text that is empty or only whitespace (full-width spaces included)."""
    return value is None or (isinstance(value, str) and (not value or value.isspace()))


def check_target(draft: Draft, mode: Mode, sink: IssueSink) -> None:
    """The reference answer and response of the target turn, as the mode requires."""
    has_reference = not is_blank(draft.reference)
    # A collected result whose inference failed has an error instead of a response (seed 001), and one
    # whose reply was empty has a score and an empty cell.
    has_response = not is_blank(draft.response) or has_outcome(draft.results)
    if mode == "infer-only":
        if has_reference:
            sink.add(
                "unused_reference",
                "A reference answer is given, but infer-only mode does not score, so it will not be used. "
                "Use --mode infer-eval to score against it, or leave it empty.",
                **draft.reference_place,
            )
    elif not has_reference:
        sink.add(
            "missing_reference",
            f"The reference answer is empty; {mode} mode scores against it. Fill it in, or use "
            "--mode infer-only to run inference without scoring.",
            **draft.reference_place,
        )
    if mode == "scored":
        if not has_response:
            sink.add(
                "missing_response",
                "The response is empty; scored mode scores responses already collected. Fill in the "
                "model's answer, or use --mode infer-eval to have formatkit run the model.",
                **draft.response_place,
            )
    elif has_response:
        sink.add(
            "unexpected_response",
            f"A response is already filled in, but {mode} mode generates it. Leave it empty, or use "
            "--mode scored to score the responses you collected.",
            **draft.response_place,
        )


def clean_target(
    mode: Mode, reference: str | None, response: str | None, parameters: dict[str, Any]
) -> dict[str, Any] | None:
    """The target turn as :func:`build_record` makes it, when :func:`check_target` has nothing to say about
    ``reference`` and ``response`` under ``mode``; None otherwise (the caller then takes the full path).
    ``parameters`` must be a dict :func:`check_parameters` returns unchanged."""
    has_reference = reference is not None and reference != "" and not reference.isspace()
    has_response = response is not None and response != "" and not response.isspace()
    if mode == "infer-eval":
        if not has_reference or has_response:
            return None
    elif mode == "scored":
        if not (has_reference and has_response):
            return None
    elif has_reference or has_response:
        return None
    target: dict[str, Any] = {"role": "assistant"}
    if mode != "infer-only" and reference is not None:
        target["reference_response"] = reference
    if mode == "scored" and response is not None:
        target["responses"] = [{"parameters": parameters, "content": response}]
    else:
        samples = parameters.get("n", 1)
        samples = samples if isinstance(samples, int) else 1
        target["responses"] = [{"parameters": parameters} for _ in range(max(1, samples))]
    return target


def build_record(draft: Draft, position: int, mode: Mode, sink: IssueSink) -> dict[str, Any]:
    """Apply the shared rules and return the canonical record as plain data (meta included)."""
    if draft.canonical is not None:
        return _pass_through(draft.canonical, draft.source)
    check_target(draft, mode, sink)
    parameters = check_parameters(draft.parameters, draft.parameters_place, sink)
    samples = parameters.get("n", 1) if isinstance(parameters.get("n", 1), int) else 1

    messages: list[dict[str, Any]] = []
    for message in draft.history:
        if message["role"] == "assistant" and message.get("content") is None:
            messages.append({"role": "assistant", "responses": [{"parameters": parameters}]})
        else:
            messages.append(message)

    target: dict[str, Any] = {"role": "assistant"}
    if mode != "infer-only" and draft.reference is not None:
        target["reference_response"] = draft.reference
    if mode == "scored" and draft.response is not None:
        target["responses"] = [{"parameters": parameters, "content": draft.response}]
    else:
        target["responses"] = [{"parameters": parameters} for _ in range(max(1, samples))]
    messages.append(target)

    meta: dict[str, Any] = {"dataset": draft.source.get("dataset"), "source": _source(draft.source)}
    if draft.meta:
        meta.update(draft.meta)
    session_id = draft.session_id if draft.session_id is not None else position
    record = {"session_id": session_id, "messages": messages, "meta": meta}
    if draft.results:
        apply_results(record, draft.results, sink, scored=mode == "scored")
    return record


def _pass_through(record: dict[str, Any], source: dict[str, Any]) -> dict[str, Any]:
    """A canonical input keeps its own meta; the dataset and source are filled in when absent."""
    meta = dict(record.get("meta") or {})
    meta.setdefault("dataset", source.get("dataset"))
    meta.setdefault("source", _source(source))
    return {**record, "meta": meta}


def _source(source: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in source.items() if k != "dataset" and v is not None}
