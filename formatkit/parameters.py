"""The table of inference parameters a set may carry (docs/pages/reference/rules.md, "Known parameters"):
each known key with its type and range. :data:`KNOWN_PARAMETERS` maps a key to its :class:`ParameterSpec`,
whose ``problem(value)`` says what is wrong with a value (None when it is fine)."""

from formatkit._rules.parameters import KNOWN_PARAMETERS, ParameterSpec

__all__ = ["KNOWN_PARAMETERS", "ParameterSpec"]
