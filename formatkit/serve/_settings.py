"""The settings of a served application: limits, token, language; given to :func:`create_app`, or read from
the environment (``FORMATKIT_SERVE_*``) when the application is imported as ``formatkit.serve:app``, which is
how ``formatkit serve --workers N`` hands them to each worker process."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["ENV_PREFIX", "Settings", "default_checks"]

ENV_PREFIX = "FORMATKIT_SERVE_"


def default_checks() -> int:
    """Checks run at once by default: one per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Settings:
    """What a served application allows. ``token``: the bearer token every ``/v1/`` request must carry
    (None: no token asked for); ``lang``: the language of answers that ask for none (``lang`` query,
    ``Accept-Language``); ``checks``: checks run at once, the others wait up to ``queue_wait`` seconds for a
    slot, then get 503 with ``Retry-After: retry_after``; ``time_limit``: seconds a check may take (then
    503); ``cors_origins``: origins a browser may call the API from (none: CORS off); ``upload_dir``: the
    folder uploads are kept in while they are checked (None: a private temporary folder of its own)."""

    token: str | None = None
    lang: str = "en"
    max_upload_mb: float = 20.0
    max_files: int = 10  # the platform's own limit: 10 files an upload
    checks: int = field(default_factory=default_checks)
    queue_wait: float = 10.0
    retry_after: int = 5
    time_limit: float = 120.0
    cors_origins: tuple[str, ...] = ()
    upload_dir: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings ``FORMATKIT_SERVE_*`` give: ``TOKEN_ENV`` (the name of the variable holding the token),
        ``LANG``, ``MAX_UPLOAD_MB``, ``MAX_FILES``, ``CHECKS``, ``QUEUE_WAIT``, ``TIME_LIMIT``, ``CORS_ORIGINS``
        (comma separated), ``UPLOAD_DIR``; the defaults for the others. ValueError for a value that is not one."""
        env = os.environ if environ is None else environ

        def get(name: str) -> str | None:
            value = env.get(ENV_PREFIX + name, "").strip()
            return value or None

        base = cls()
        token_env = get("TOKEN_ENV")
        token = env.get(token_env, "") if token_env else ""
        if token_env and not token:
            raise ValueError(f"{ENV_PREFIX}TOKEN_ENV={token_env}: that variable is not set (or empty)")
        origins = get("CORS_ORIGINS")
        return cls(
            token=token or None,
            lang=get("LANG") or base.lang,
            max_upload_mb=float(get("MAX_UPLOAD_MB") or base.max_upload_mb),
            max_files=int(get("MAX_FILES") or base.max_files),
            checks=int(get("CHECKS") or base.checks),
            queue_wait=float(get("QUEUE_WAIT") or base.queue_wait),
            retry_after=int(get("RETRY_AFTER") or base.retry_after),
            time_limit=float(get("TIME_LIMIT") or base.time_limit),
            cors_origins=tuple(o.strip() for o in origins.split(",") if o.strip()) if origins else (),
            upload_dir=get("UPLOAD_DIR"),
        )

    def to_env(self, token_env: str | None) -> dict[str, str]:
        """The ``FORMATKIT_SERVE_*`` variables that give these settings back through :meth:`from_env` (the
        token by the name of its variable, never its value)."""
        env = {
            "LANG": self.lang,
            "MAX_UPLOAD_MB": str(self.max_upload_mb),
            "MAX_FILES": str(self.max_files),
            "CHECKS": str(self.checks),
            "QUEUE_WAIT": str(self.queue_wait),
            "RETRY_AFTER": str(self.retry_after),
            "TIME_LIMIT": str(self.time_limit),
            "CORS_ORIGINS": ",".join(self.cors_origins),
            "TOKEN_ENV": token_env or "",
            "UPLOAD_DIR": self.upload_dir or "",
        }
        return {ENV_PREFIX + name: value for name, value in env.items()}
