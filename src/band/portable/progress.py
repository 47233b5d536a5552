"""Progress for long commands (export, import, replay): bars from ``rich`` on a terminal
(the ``portable`` extra), else one readable line per step and every few seconds."""

from __future__ import annotations

import sys
import time
from typing import Any, Protocol, TextIO

__all__ = ["LineProgress", "Progress", "progress_for"]


class Progress(Protocol):
    """One step at a time: ``start`` a step (a total when known; it ends the step before),
    ``advance`` it, and ``finish`` once at the end of the run."""

    def start(self, label: str, total: int | None = None) -> None: ...
    def advance(self, count: int = 1) -> None: ...
    def finish(self) -> None: ...


class LineProgress:
    """A line when a step starts, every ``every`` seconds while it runs, and when it ends."""

    def __init__(self, stream: TextIO | None = None, every: float = 2.0) -> None:
        self.stream = stream or sys.stderr
        self.every = every
        self.label, self.count, self._last = "", 0, 0.0
        self.total: int | None = None
        self._running = False

    def _say(self, note: str = "") -> None:
        of = f"/{self.total}" if self.total is not None else ""
        print(f"{self.label}: {self.count}{of}{note}", file=self.stream, flush=True)
        self._last = time.monotonic()

    def start(self, label: str, total: int | None = None) -> None:
        self.finish()
        self.label, self.total, self.count, self._running = label, total, 0, True
        self._say()

    def advance(self, count: int = 1) -> None:
        self.count += count
        if time.monotonic() - self._last >= self.every:
            self._say()

    def finish(self) -> None:
        if self._running:
            self._running = False
            self._say(" done")


class _RichProgress:
    def __init__(self, rich_progress: Any) -> None:
        self._p = rich_progress
        self._task: Any = None
        self._p.start()

    def start(self, label: str, total: int | None = None) -> None:
        self._task = self._p.add_task(label, total=total)

    def advance(self, count: int = 1) -> None:
        if self._task is not None:
            self._p.advance(self._task, count)

    def finish(self) -> None:
        self._p.stop()


def progress_for(stream: TextIO | None = None, *, bars: bool | None = None) -> Progress:
    """Bars when ``rich`` is installed and ``stream`` is a terminal (or ``bars`` is true)."""
    stream = stream or sys.stderr
    if bars is None:
        bars = stream.isatty()
    if bars:
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
            )
            from rich.progress import Progress as RichProgress
        except ImportError:
            pass
        else:
            columns = (
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
            )
            return _RichProgress(RichProgress(*columns, console=Console(file=stream)))
    return LineProgress(stream)
