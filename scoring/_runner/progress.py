"""Progress of a run on stderr: a rich bar on a terminal, plain periodic lines otherwise.

Both show records done/total, the rate of this run, errors and the time left, and ``note(text)`` prints
a line the user must hear now (a long wait the server asked for, a stop under way) above the bar.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any, Protocol

from scoring._client.notice import in_language

__all__ = ["NullProgress", "PlainProgress", "Progress", "RichProgress", "format_seconds", "make_progress"]


class Progress(Protocol):
    def start(self, total: int | None) -> None: ...

    def advance(self, *, error: bool = False, resumed: bool = False) -> None: ...

    def stop(self) -> None: ...


def format_seconds(seconds: float | None) -> str:
    if seconds is None or seconds != seconds or seconds == float("inf"):
        return "?"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class _Counts:
    def __init__(self) -> None:
        self.total: int | None = None
        self.done = 0
        self.errors = 0
        self.this_run = 0
        self.started = time.monotonic()

    def count(self, error: bool, resumed: bool) -> None:
        self.done += 1
        self.errors += int(error)
        if not resumed:
            self.this_run += 1

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.this_run / elapsed if elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        if self.total is None or self.rate <= 0:
            return None
        return max(0, self.total - self.done) / self.rate


class NullProgress(_Counts):
    """Counts, shows nothing."""

    def start(self, total: int | None) -> None:
        self.total = total
        self.started = time.monotonic()

    def advance(self, *, error: bool = False, resumed: bool = False) -> None:
        self.count(error, resumed)

    def stop(self) -> None:
        return None


#: The units the catalogue names (``ui.progress.<unit>``); another is printed as given.
_UNITS = frozenset({"records", "responses"})


class PlainProgress(NullProgress):
    """One line every ``interval`` seconds (and at the end) on ``stream``."""

    def __init__(
        self,
        stream: IO[str] | None = None,
        *,
        interval: float = 10.0,
        label: str = "run",
        unit: str = "records",
        lang: str = "en",
    ) -> None:
        super().__init__()
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.label = label
        self.unit = unit
        self.lang = lang
        self._last = 0.0
        self._printed: tuple[int, int] | None = None

    def start(self, total: int | None) -> None:
        super().start(total)
        self._last = time.monotonic()

    def advance(self, *, error: bool = False, resumed: bool = False) -> None:
        super().advance(error=error, resumed=resumed)
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._line()

    def stop(self) -> None:
        if self._printed != (self.done, self.errors):  # the last periodic line may already say it all
            self._line()

    def note(self, text: str) -> None:
        print(f"{self.label}: {in_language(text, self.lang)}", file=self.stream, flush=True)

    def _line(self) -> None:
        self._printed = (self.done, self.errors)
        from formatkit.messages import ui

        total = "?" if self.total is None else str(self.total)
        share = f" ({100 * self.done / self.total:.1f}%)" if self.total else ""
        unit = ui(f"progress.{self.unit}", self.lang) if self.unit in _UNITS else self.unit
        fields = {"label": self.label, "done": self.done, "total": total, "unit": unit, "share": share}
        line = ui(
            "progress.line",
            self.lang,
            **fields,
            rate=f"{self.rate:.1f}",
            errors=self.errors,
            eta=format_seconds(self.eta),
        )
        print(line, file=self.stream, flush=True)


class RichProgress(NullProgress):
    """A live bar on the terminal (stderr)."""

    def __init__(self, *, label: str = "run", unit: str = "records", lang: str = "en") -> None:
        super().__init__()
        self.lang = lang
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self._bar = Progress(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}/s"),
            TextColumn("errors {task.fields[errors]}"),
            TextColumn("eta {task.fields[eta]}"),
            console=Console(stderr=True),
            transient=False,
        )
        self._task: Any = None
        self._label = label
        self._unit = unit
        self._shown = 0.0

    def start(self, total: int | None) -> None:
        super().start(total)
        self._bar.start()
        self._task = self._bar.add_task(self._unit, total=total, rate="0.0", errors=0, eta="?")

    def advance(self, *, error: bool = False, resumed: bool = False) -> None:
        super().advance(error=error, resumed=resumed)
        now = time.monotonic()
        if now - self._shown >= 0.1 or (self.total is not None and self.done >= self.total):
            self._shown = now
            self._refresh()

    def note(self, text: str) -> None:
        self._bar.console.print(f"{self._label}: {in_language(text, self.lang)}", markup=False, highlight=False)

    def _refresh(self) -> None:
        self._bar.update(
            self._task, completed=self.done, rate=f"{self.rate:.1f}", errors=self.errors, eta=format_seconds(self.eta)
        )

    def stop(self) -> None:
        if self._task is not None:
            self._refresh()
        self._bar.stop()


def make_progress(
    *,
    enabled: bool = True,
    interval: float = 10.0,
    stream: IO[str] | None = None,
    label: str = "run",
    unit: str = "records",
    lang: str = "en",
) -> Progress:
    """Rich on a terminal, plain lines otherwise, nothing when disabled (``label: done/total unit``); the
    plain lines in ``lang``."""
    if not enabled:
        return NullProgress()
    out = stream if stream is not None else sys.stderr
    if out.isatty():
        return RichProgress(label=label, unit=unit, lang=lang)
    return PlainProgress(out, interval=interval, label=label, unit=unit, lang=lang)
