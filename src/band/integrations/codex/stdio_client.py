"""``codex app-server`` as a child process, spoken to with newline-delimited JSON-RPC on its stdio.

The child leads its own process group (``band.adapters._coding.child``), so closing the client
stops the npm launcher and the native binary it runs alike. When the child's stdout ends,
requests still waiting fail and ``recv_event`` yields one ``TRANSPORT_CLOSED`` notification
whose ``reason`` carries the exit code and the last line the child wrote to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from band.adapters._coding.child import ChildProcess, spawn_child
from band.core.exceptions import BandConnectionError
from band.integrations.codex.rpc_base import BaseJsonRpcClient, OverloadRetryPolicy

__all__ = ["CodexStdioClient", "kill_process_tree"]

logger = logging.getLogger(__name__)

LINE_LIMIT = 64 * 1024 * 1024
"""The longest line read from the child: a turn's item can carry a whole file."""
_READER_GRACE_S = 5.0


async def kill_process_tree(process: asyncio.subprocess.Process) -> None:
    """SIGKILL the process group ``process`` leads (a no-op where there are no groups).

    After the leader has been reaped its pid may name an unrelated live process; the group
    is then left alone rather than signalling a stranger.
    """
    if not hasattr(os, "killpg"):
        return
    if process.returncode is not None:
        try:
            os.kill(process.pid, 0)
        except ProcessLookupError:
            pass  # the leader is gone; its group may still hold descendants
        except OSError:
            return
        else:
            logger.warning("pid %d was reused: not signalling its group", process.pid)
            return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _missing_cli(binary: str) -> str:
    return (
        f"the Codex CLI '{binary}' was not found: install it (npm install -g @openai/codex), "
        "sign in (codex login) or set CodexAdapterConfig.codex_command"
    )


class CodexStdioClient(BaseJsonRpcClient):
    """A JSON-RPC client that starts ``command`` (default ``codex app-server``) and owns it.

    ``env`` is added to this process's environment for the child; ``cwd`` is its directory.
    """

    def __init__(
        self,
        *,
        command: Sequence[str] | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        retry_policy: OverloadRetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        label: str = "codex app-server",
    ) -> None:
        super().__init__(retry_policy=retry_policy, sleep=sleep)
        self._transport_label = "codex output line"
        self.command = tuple(command) if command else self._default_codex_command()
        self.cwd = cwd
        self.env = None if env is None else {**os.environ, **env}
        self.label = label
        self.child: ChildProcess | None = None
        self._reader: asyncio.Task[None] | None = None
        self._closing = False

    @staticmethod
    def _default_codex_command() -> tuple[str, ...]:
        """``codex app-server`` over stdio, with ``codex`` (or ``codex-cli``) from PATH."""
        binary = shutil.which("codex") or shutil.which("codex-cli") or "codex"
        return (binary, "app-server", "--listen", "stdio://")

    @property
    def process(self) -> asyncio.subprocess.Process | None:
        return self.child.proc if self.child is not None else None

    @property
    def exit_description(self) -> str:
        """How the child ended ("exit code 1: <last stderr line>"), or "not started"."""
        return self.child.exit_description if self.child is not None else "not started"

    async def connect(self) -> None:
        """Start the child and read its stdout; ``BandConnectionError`` if it cannot start."""
        if self._connected:
            return
        try:
            self.child = await spawn_child(
                self.command,
                cwd=self.cwd or os.getcwd(),
                env=self.env if self.env is not None else dict(os.environ),
                label=self.label,
                limit=LINE_LIMIT,
            )
        except FileNotFoundError as exc:
            raise BandConnectionError(_missing_cli(self.command[0])) from exc
        except PermissionError as exc:
            raise BandConnectionError(f"cannot run {self.command[0]}: {exc}") from exc
        self._closing = False
        self._connected = True
        self._reader = asyncio.create_task(self._read_stdout(self.child))

    async def close(self) -> None:
        """Stop the child's whole group (stdin closed, then TERM, then KILL) and the reader."""
        child, reader = self.child, self._reader
        if child is None:
            return
        self._closing = True
        self._connected = False
        await child.stop()
        await kill_process_tree(child.proc)
        if reader is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(reader), _READER_GRACE_S)
            if not reader.done():  # a descendant still holds stdout open
                reader.cancel()
                with contextlib.suppress(BaseException):
                    await reader

    async def _send_json(self, payload: dict[str, Any]) -> None:
        stdin = self.child.proc.stdin if self.child is not None else None
        if stdin is None or stdin.is_closing() or not self._connected:
            raise RuntimeError(f"{self.label} is not connected")
        try:
            stdin.write(json.dumps(payload, separators=(",", ":")).encode() + b"\n")
            await stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise RuntimeError(f"{self.label} went away: {exc}") from exc

    async def _read_stdout(self, child: ChildProcess) -> None:
        stdout = child.proc.stdout
        reason = f"{self.label} exited unexpectedly"
        try:
            while stdout is not None and (line := await stdout.readline()):
                await self._dispatch_rpc_message(line.decode("utf-8", errors="replace"))
        except (asyncio.LimitOverrunError, ValueError, ConnectionError) as exc:
            logger.warning("%s: reading stdout failed: %s", self.label, exc)
            reason = f"{self.label} output could not be read: {exc}"
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(child.proc.wait(), _READER_GRACE_S)
            self._connected = False
            if self._closing:
                reason = f"{self.label} client closed"
            self._fail_pending(f"{reason} ({child.exit_description})")
