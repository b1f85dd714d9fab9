"""What a file is for (mode) and which upload limits apply (profile)."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["MAX_FILES", "MAX_ROWS", "MODES", "PROFILES", "Mode", "Profile"]

Mode = Literal["infer-eval", "infer-only", "scored"]
Profile = Literal["platform", "none"]

MODES: tuple[str, ...] = get_args(Mode)
PROFILES: tuple[str, ...] = get_args(Profile)

#: Upload limits of the ``platform`` profile.
MAX_FILES = 10
MAX_ROWS = 1000
