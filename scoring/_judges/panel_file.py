"""``--judge-panel FILE``: the judges of a panel that spans several endpoints, one per line or entry.

The file is JSON (an array of objects, or ``{"judges": [...]}``) or jsonl (one object a line)::

    {"model": "qwen2.5-7b-instruct", "base_url": "http://127.0.0.1:4000/v1", "api_key_env": "GATEWAY_KEY"}
    {"model": "deepseek-chat", "base_url": "https://api.deepseek.com/v1", "api_key_env": "DEEPSEEK_API_KEY"}

``model`` is required; ``base_url`` and ``api_key_env`` default to ``--judge-base-url`` and
``--judge-api-key-env``. The order is the panel's: with ``--judge-escalate`` the first judge decides.

A judge is its model at its endpoint: one listed twice (the same model at the same ``base_url``, the
default endpoint standing for a missing one) would count its verdict twice in every aggregate, so the
panel is refused naming both entries (:func:`repeated_judge`; ``--judge-repeats`` asks a judge more
than once, and says so). The same model at two endpoints is two judges (replicas of one judge go in
``--judge-base-url`` instead). An ``api_key_env`` that is not set sends that judge's requests without a key;
the command says so, naming the judge, as ``--api-key-env`` does for ``run``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from scoring._errors import JudgeSetupError
from scoring._judges.options import PanelJudge

__all__ = ["read_panel", "repeated_judge"]

_KEYS = frozenset({"model", "base_url", "api_key_env"})


def read_panel(path: str | Path) -> tuple[PanelJudge, ...]:
    """The judges named in ``path``; :class:`JudgeSetupError` saying where, for a file that is not one."""
    from formatkit._core.errors import SmallFileError
    from formatkit._core.smallfile import read_small_file

    where = Path(path)
    try:
        data = read_small_file(where)
    except SmallFileError as exc:
        raise JudgeSetupError(f"--judge-panel {exc}") from exc
    try:
        entries: Any = orjson.loads(data)
    except orjson.JSONDecodeError:
        entries = []
        for n, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            try:
                entries.append(orjson.loads(line))
            except orjson.JSONDecodeError as exc:
                raise JudgeSetupError(f"{where}:{n}: not JSON ({exc})") from exc
    if isinstance(entries, dict):
        entries = entries.get("judges")
    if isinstance(entries, dict):
        entries = [entries]
    if not isinstance(entries, list) or not entries:
        raise JudgeSetupError(f'{where}: expected judges, e.g. [{{"model": "judge-a", "base_url": "..."}}]')
    return tuple(_judge(where, n, entry) for n, entry in enumerate(entries, 1))


def _judge(where: Path, n: int, entry: Any) -> PanelJudge:
    if not isinstance(entry, dict) or not isinstance(entry.get("model"), str) or not entry["model"].strip():
        raise JudgeSetupError(f'{where}: judge {n} needs a "model" (a name)')
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise JudgeSetupError(
            f"{where}: judge {n}: unknown key(s) {', '.join(unknown)} (expected {', '.join(sorted(_KEYS))})"
        )
    for key in ("base_url", "api_key_env"):
        if key in entry and not isinstance(entry[key], str):
            raise JudgeSetupError(f'{where}: judge {n}: "{key}" must be text')
    return PanelJudge(entry["model"].strip(), entry.get("base_url"), entry.get("api_key_env"))


def repeated_judge(panel: tuple[PanelJudge, ...], default_url: str | None) -> tuple[int, int] | None:
    """The first judge (1-based) that is an earlier one again, and that earlier one: the same model at the
    same endpoint (a missing ``base_url`` is ``default_url``; a trailing ``/`` does not count)."""
    seen: dict[tuple[str, str | None], int] = {}
    for n, judge in enumerate(panel, 1):
        url = judge.base_url or default_url
        key = (judge.model, url.rstrip("/") if url else None)
        if key in seen:
            return seen[key], n
        seen[key] = n
    return None
