"""A room's agent process as a child of its own process group, so it dies whole.

Agents are often started through wrappers (``codex`` from npm is a Node script running the
native binary; ``npx`` adds another layer). Killing only the child we started would leave
its descendants running, holding our pipes open: the room would never notice the loss.
So each child leads a new session; when it exits, whatever it left behind in its group is
killed, its pipes close, and the reader sees the end. Closing stops the whole group.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections import deque
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["ChildProcess", "describe_exit", "spawn_child"]

logger = logging.getLogger("band.adapters.coding.child")
_GROUPS = hasattr(os, "killpg")


def describe_exit(code: int | None, stderr: Iterable[str], ended: str = "stdout closed") -> str:
    """How an agent process ended: its exit code (``ended`` while it has none) and the last
    line it wrote to stderr."""
    text = f"exit code {code}" if code is not None else ended
    last = next((line for line in reversed(list(stderr)) if line.strip()), "")
    return f"{text}: {last[:300]}" if last else text


class ChildProcess:
    """A spawned agent: its ``asyncio`` process, the tail of its stderr, its group."""

    def __init__(
        self, proc: asyncio.subprocess.Process, label: str, *, read_stderr: bool = True
    ) -> None:
        self.proc = proc
        self.label = label
        self.stderr: deque[str] = deque(maxlen=20)
        self._tasks = [asyncio.create_task(self._reap_group())]
        if read_stderr:  # else the caller drains it
            self._tasks.append(asyncio.create_task(self._read_stderr()))

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def running(self) -> bool:
        return self.proc.returncode is None

    @property
    def exit_description(self) -> str:
        return describe_exit(self.proc.returncode, self.stderr)

    def signal_group(self, sig: int) -> None:
        """Send ``sig`` to the child's whole group (to the child alone without groups)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if _GROUPS:
                os.killpg(self.proc.pid, sig)
            else:
                self.proc.send_signal(sig)

    async def _reap_group(self) -> None:
        await self.proc.wait()
        if _GROUPS:  # descendants left behind would keep our pipes open
            self.signal_group(signal.SIGKILL)

    async def _read_stderr(self) -> None:
        stream = self.proc.stderr
        if stream is None:
            return
        with contextlib.suppress(Exception):
            while line := await stream.readline():
                text = line.decode(errors="replace").rstrip()
                self.stderr.append(text)
                logger.debug("%s stderr: %s", self.label, text)

    async def stop(self, grace: float = 3.0) -> None:
        """Close stdin, then terminate and finally kill the group; wait for the end."""
        if self.proc.returncode is None:
            stdin = self.proc.stdin
            if stdin is not None:
                with contextlib.suppress(Exception):
                    stdin.close()
            for sig in (None, signal.SIGTERM, signal.SIGKILL):
                if sig is not None:
                    self.signal_group(sig)
                try:
                    await asyncio.wait_for(self.proc.wait(), grace)
                    break
                except TimeoutError:
                    continue
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, 5)


async def spawn_child(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    label: str,
    limit: int,
    read_stderr: bool = True,
) -> ChildProcess:
    """Start ``argv`` with piped stdio as the leader of a new process group."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        limit=limit,
        start_new_session=_GROUPS,
    )
    return ChildProcess(proc, label, read_stderr=read_stderr)
