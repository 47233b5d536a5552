"""An ACP agent process's stderr: logged line by line, its tail kept for a crash report.

Each line is logged at debug level and the last ``STDERR_TAIL_LINES`` are kept. When the
process exits with a non-zero code that nobody asked for (``expect_exit`` was not called
before the exit, or the stderr end was seen first), the tail is logged as a warning. An
over-long line is skipped, not fatal; ``finish`` waits a bounded time for the drain.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque

__all__ = ["STDERR_DRAIN_TIMEOUT_S", "STDERR_TAIL_LINES", "ACPStderrDrain"]

STDERR_TAIL_LINES = 20
STDERR_DRAIN_TIMEOUT_S = 5.0
STDERR_EXIT_POLL_INTERVAL_S = 0.05
STDERR_EXIT_FLUSH_TIMEOUT_S = 0.1
STDERR_LINE_LOG_TEMPLATE = "ACP agent stderr: %s"


class ACPStderrDrain:
    """Drains one process's stderr at a time into ``logger``."""

    def __init__(self, logger: logging.Logger) -> None:
        self._logger = logger
        self._expected = False
        self._process: asyncio.subprocess.Process | None = None
        self._task: asyncio.Task[None] | None = None
        self.tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)

    def start(self, process: asyncio.subprocess.Process) -> None:
        """Start draining ``process`` (its exit is unexpected until ``expect_exit``)."""
        self._expected = False
        self._process = process
        self.tail = deque(maxlen=STDERR_TAIL_LINES)
        self._task = asyncio.create_task(self._drain(process))

    def expect_exit(self, *, connection_failed: bool = False) -> None:
        """The coming exit is ours (a stop), unless the connection already failed or the
        process already exited or closed its stdout: those stay crashes."""
        process = self._process
        if connection_failed or process is None or process.returncode is not None:
            return
        if process.stdout is not None and process.stdout.at_eof():
            return
        self._expected = True

    async def _drain(self, process: asyncio.subprocess.Process) -> None:
        if process.stderr is None:
            return
        reader = asyncio.create_task(self._read(process.stderr))
        try:
            # Polled: Process.wait() may also wait for pipes a descendant inherited.
            while process.returncode is None:  # noqa: ASYNC110 - no event says a process exited without wait()
                await asyncio.sleep(STDERR_EXIT_POLL_INTERVAL_S)
            crashed = reader.result() if reader.done() else not self._expected
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(reader), STDERR_EXIT_FLUSH_TIMEOUT_S)
            if crashed and process.returncode != 0:
                self._logger.warning(
                    "ACP agent exited with code %s; stderr tail:\n%s",
                    process.returncode,
                    "\n".join(self.tail),
                )
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

    async def _read(self, stream: asyncio.StreamReader) -> bool:
        """Read to the end; True when the end came before a stop was expected."""
        while True:
            try:
                line = await stream.readline()
            except (ValueError, asyncio.LimitOverrunError):
                self._logger.debug("Skipped an ACP stderr line over the stream limit")
                continue
            except OSError:
                self._logger.debug("Reading ACP agent stderr failed", exc_info=True)
                break
            if not line:
                break
            text = line.decode(errors="replace").rstrip("\r\n")
            self.tail.append(text)
            self._logger.debug(STDERR_LINE_LOG_TEMPLATE, text)
        return not self._expected

    async def finish(self) -> None:
        """Wait (at most ``STDERR_DRAIN_TIMEOUT_S``) for the drain to end."""
        task, self._task = self._task, None
        if task is None:
            return
        try:
            await asyncio.wait_for(task, STDERR_DRAIN_TIMEOUT_S)
        except TimeoutError:
            self._logger.debug("Timed out draining ACP agent stderr")
        except Exception:
            self._logger.debug("Draining ACP agent stderr failed", exc_info=True)
