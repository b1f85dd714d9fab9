"""The rules every input shape shares: the target turn under each mode."""

from __future__ import annotations

from formatkit._core.draft import Draft
from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._core.modes import Mode
from formatkit._rules.results import has_outcome

__all__ = ["check_target", "is_blank", "target_is_clean"]


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
                Msg("unused_reference"),
                **draft.reference_place,
            )
    elif not has_reference:
        sink.add(
            "missing_reference",
            Msg("missing_reference", mode=mode),
            **draft.reference_place,
        )
    if mode == "scored":
        if not has_response:
            sink.add(
                "missing_response",
                Msg("missing_response"),
                **draft.response_place,
            )
    elif has_response:
        sink.add(
            "unexpected_response",
            Msg("unexpected_response", mode=mode),
            **draft.response_place,
        )


def target_is_clean(mode: Mode, reference: str | None, response: str | None) -> bool:
    """True when :func:`check_target` would have nothing to say about ``reference`` and ``response``
    under ``mode`` (no collected results involved): the cheap check of the fast path."""
    has_reference = reference is not None and reference != "" and not reference.isspace()
    has_response = response is not None and response != "" and not response.isspace()
    if mode == "infer-eval":
        return has_reference and not has_response
    if mode == "scored":
        return has_reference and has_response
    return not has_reference and not has_response
