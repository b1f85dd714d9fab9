"""The endpoint client: ``http`` (ChatClient: streaming, retries, concurrency), ``reply`` (a chat completion
body read into ChatResult), ``stream`` (SSE chunks folded into ChatResult), ``pacing`` (backoff, the
server's own waits, rpm), ``health`` (when an endpoint cannot serve), ``url`` (paths, printable URLs)."""
