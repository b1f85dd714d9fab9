"""``formatkit serve [--host H] [--port P] [--workers N] [--token-env VAR | --no-auth] [--max-upload-mb N]
[--max-files N] [--lang en|zh] ...``: the pre-flight check as an HTTP service (:mod:`formatkit.serve`) under
uvicorn.

Listening on anything but a loopback address needs a token (``--token-env VAR``, the name of the variable
holding it: a token is never an argument, where ``ps`` would show it) or an explicit ``--no-auth``; otherwise
it refuses to start (exit 2, one line saying why). The settings reach the application, in this process or in
each of ``--workers`` processes, as ``FORMATKIT_SERVE_*`` variables (:meth:`formatkit.serve.Settings.from_env`).
"""

from __future__ import annotations

import ipaddress
import os

import typer

from formatkit.cli._common import EXIT_USAGE, lang_option

__all__ = ["register"]

_LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is an address only this machine reaches (127.0.0.0/8, ::1, localhost)."""
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve to any interface


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (not loopback: needs a token)."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port to listen on."),
    workers: int = typer.Option(1, "--workers", min=1, help="Worker processes (each runs its own checks)."),
    token_env: str | None = typer.Option(
        None,
        "--token-env",
        metavar="VAR",
        help="Ask every /v1/ request for `Authorization: Bearer <token>`, the token being the value of VAR.",
    ),
    no_auth: bool = typer.Option(False, "--no-auth", help="Listen on a non-loopback address without a token."),
    max_upload_mb: float = typer.Option(
        20.0, "--max-upload-mb", min=0.001, help="Largest upload (all its files), in MB: larger gets 413."
    ),
    max_files: int = typer.Option(10, "--max-files", min=1, help="Most files in one upload: more gets 413."),
    lang: str | None = lang_option(),
    checks: int | None = typer.Option(
        None, "--checks", min=1, help="Checks run at once per worker (default: the cores shared by the workers)."
    ),
    queue_wait: float = typer.Option(
        10.0, "--queue-wait", min=0, help="Seconds a check waits for a free slot before 503 (with Retry-After)."
    ),
    time_limit: float = typer.Option(120.0, "--time-limit", min=0.1, help="Seconds a check may take before 503."),
    cors_origin: list[str] = typer.Option(
        [], "--cors-origin", metavar="ORIGIN", help="Let pages of this origin call the API (CORS is off without it)."
    ),
    upload_dir: str | None = typer.Option(
        None,
        "--upload-dir",
        metavar="DIR",
        help="Keep uploads here while checked (default: a private temp dir).",
    ),
) -> None:
    """Serve the checks over HTTP for an upload page or a platform: validate, fix, convert, the rules.
    Listens on 127.0.0.1:8000 unless told otherwise; the API is described at /openapi.json."""
    from formatkit.messages import locale_lang, ui
    from formatkit.serve import Settings

    language = lang or locale_lang()
    if token_env is not None and not os.environ.get(token_env):
        typer.echo(ui("serve.token_unset", language, env=token_env), err=True)
        raise typer.Exit(EXIT_USAGE)
    if token_env is None and not no_auth and not is_loopback(host):
        typer.echo(ui("serve.bind_refused", language, host=host), err=True)
        raise typer.Exit(EXIT_USAGE)
    settings = Settings(
        lang=language,
        max_upload_mb=max_upload_mb,
        max_files=max_files,
        checks=checks or max(1, Settings().checks // workers),
        queue_wait=queue_wait,
        time_limit=time_limit,
        cors_origins=tuple(cors_origin),
        upload_dir=upload_dir,
    )
    os.environ.update(settings.to_env(token_env))
    import uvicorn

    uvicorn.run("formatkit.serve:app", host=host, port=port, workers=workers, server_header=False)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
