"""A room's Claude Code CLI: a connected ``ClaudeSDKClient`` and the one task reading it.

The SDK starts ``claude`` with stream-json on stdio. One task reads everything the CLI says
and hands it to the turn listening (a ``TurnStream`` per turn), which reads up to its
``ResultMessage``; what comes outside a turn is dropped. When the CLI's output ends (it
exited or was killed) the turn gets the ``StreamEnd`` and raises ``TransportClosed``;
between turns, ``alive`` turns False and the supervisor reports it once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from band.adapters._coding.band_tools import require_with_mcp
from band.adapters._coding.child import describe_exit
from band.adapters._coding.supervisor import TransportClosed
from band.integrations.claude_sdk.session_manager import StreamEnd, TurnStream

__all__ = ["INSTALL_HINT", "ClaudeProcess", "require_claude_sdk"]

logger = logging.getLogger("band.adapters.claude_sdk")
INSTALL_HINT = "ClaudeSDKAdapter needs the Claude Agent SDK: pip install 'openband[claude_sdk]'"


def require_claude_sdk() -> Any:
    """The ``claude_agent_sdk`` module; ImportError naming the extra when it is missing."""
    return require_with_mcp("claude_agent_sdk", INSTALL_HINT)


class ClaudeProcess:
    """The CLI of one room; ``session_id`` is the Claude session it speaks in."""

    def __init__(self, room_id: str, workspace: Path) -> None:
        self.room_id = room_id
        self.workspace = workspace
        self.client: Any = None
        self.transport: Any = None  # the CLI's subprocess transport, held beside the client
        self.session_id: str | None = None
        self.resumed = False
        self.stderr: deque[str] = deque(maxlen=20)
        self._stream: TurnStream | None = None  # the turn listening (or the last one)
        self._ended: StreamEnd | None = None
        self._reader: asyncio.Task[None] | None = None

    @property
    def _process(self) -> Any:
        return getattr(self.transport, "_process", None)  # the transport keeps it private

    @property
    def pid(self) -> int | None:
        proc = self._process
        return int(proc.pid) if proc is not None else None

    @property
    def alive(self) -> bool:
        proc = self._process
        reading = self._reader is not None and not self._reader.done()
        return proc is not None and proc.returncode is None and reading

    @property
    def exit_description(self) -> str:
        proc = self._process
        code = proc.returncode if proc is not None else None
        return describe_exit(code, self.stderr, "its output ended")

    async def start(self, options: Any) -> None:
        """Start the CLI with ``options`` (a ``ClaudeAgentOptions``) and begin reading it."""
        sdk = require_claude_sdk()
        from band.integrations.claude_sdk.transport import create_transport

        options.stderr = self.stderr.append
        self.transport = create_transport(options)
        self.client = sdk.ClaudeSDKClient(options, transport=self.transport)
        await self.client.connect()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        error: Exception | None = None
        try:
            async for message in self.client.receive_messages():
                stream = self._stream
                if stream is not None and not stream.completed:
                    stream.deliver(message)
                else:
                    logger.debug("Room %s: %s outside a turn", self.room_id, type(message))
        except Exception as exc:
            logger.info("Room %s: Claude CLI output failed: %s", self.room_id, exc)
            error = exc
        finally:
            self._ended = StreamEnd(error)
            if self._stream is not None:
                self._stream.end(error)

    async def turn(self, text: str) -> AsyncIterator[Any]:
        """Send ``text`` and yield what the CLI answers, up to its ``ResultMessage``."""
        if self._ended is not None:
            raise TransportClosed(f"the Claude CLI exited ({self.exit_description})")
        stream = self._stream = TurnStream()
        try:
            await self.client.query(text)
        except Exception as exc:
            raise TransportClosed(f"the Claude CLI is gone ({exc})") from exc
        try:
            async for message in stream.until_result():
                yield message
        except Exception as exc:  # reading the CLI failed
            raise TransportClosed(f"reading the Claude CLI failed ({exc})") from exc
        if not stream.completed:  # the output ended before the turn's result
            await self._settle()
            raise TransportClosed(f"the Claude CLI exited ({self.exit_description})")

    async def drain(self, limit: float) -> None:
        """After an interrupt: read (and drop) up to the interrupted turn's result."""
        stream = self._stream
        if stream is None:
            return
        with contextlib.suppress(Exception, TimeoutError):
            async with asyncio.timeout(limit):
                async for _ in stream.until_result():
                    pass

    async def _settle(self) -> None:
        proc = self._process
        if proc is not None:
            with contextlib.suppress(Exception, TimeoutError):
                await asyncio.wait_for(proc.wait(), 5)

    async def close(self) -> None:
        if self.client is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.disconnect(), 10)
            proc = self._process
            if proc is not None and proc.returncode is None:
                with contextlib.suppress(Exception):
                    proc.kill()
        if self.transport is not None:  # also when the start failed before the client held it
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.transport.close(), 10)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
