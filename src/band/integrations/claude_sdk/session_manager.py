"""One Claude Code CLI per Band room, each owned by the room's residency (``band.core.retention``).

How it works: docs/internals/sdk.md, "Claude Code: a CLI per room".

Starting a CLI needs the extra ``claude_sdk``; importing this module does not.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

from band.core.exceptions import RoomClosingError
from band.core.retention import (
    ReleaseCause,
    ReleaseOutcome,
    RetainedRoom,
    RoomRetention,
    RoomRetentionConfig,
)
from band.core.turn_lifecycle import TURN_SETTLE_GRACE_S
from band.workspaces import RoomWorkspaces

__all__ = [
    "CLI_STARTUP_TIMEOUT_S",
    "ClaudeRoomSession",
    "ClaudeSessionManager",
    "ClaudeSessionManagerStoppedError",
    "StreamEnd",
    "TurnStream",
    "default_claude_retention",
]

logger = logging.getLogger("band.integrations.claude_sdk")

# The SDK itself waits this long for a CLI to initialise: a shorter start budget would
# abandon healthy starts.
CLI_STARTUP_TIMEOUT_S = 60.0
INSTALL_HINT = (
    "starting a Claude CLI needs the Claude Agent SDK: pip install 'openband[claude_sdk]'"
)


def default_claude_retention() -> RoomRetentionConfig:
    """A room's residency settings for a Claude CLI: a start may take the SDK's full wait."""
    return RoomRetentionConfig(transition_timeout_s=CLI_STARTUP_TIMEOUT_S)


def _is_result(message: Any) -> bool:
    try:
        from claude_agent_sdk import ResultMessage
    except ImportError:
        return False
    return isinstance(message, ResultMessage)


class ClaudeSessionManagerStoppedError(RoomClosingError):
    """A room's session was asked of a manager that ``stop()`` ended."""

    def __init__(self, message: str = "the Claude session manager was stopped") -> None:
        super().__init__(message)


@dataclass(frozen=True)
class StreamEnd:
    """The CLI's output ended: cleanly (``error`` None) or because reading it failed."""

    error: Exception | None


class TurnStream:
    """What the CLI says during one turn, up to the turn's ``ResultMessage``.

    The reader ``deliver``s messages and, when the output ends, ``end``s the stream; a
    turn reads ``until_result``. Once ended, the end stays visible to every later read (a
    timed-out turn draining its stream never waits on output that is over).
    """

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self.completed = False  # the result arrived: the turn hears no more
        self.ended: StreamEnd | None = None

    def deliver(self, message: Any) -> None:
        self._queue.put_nowait(message)
        if _is_result(message):
            self.completed = True

    def end(self, error: Exception | None) -> None:
        self.ended = StreamEnd(error)
        self._queue.put_nowait(self.ended)

    async def until_result(self) -> AsyncIterator[Any]:
        """The messages up to and including the ``ResultMessage``; the output's end stops
        early, raising the read's failure if there was one."""
        while True:
            item = await self._queue.get()
            if isinstance(item, StreamEnd):
                self._queue.put_nowait(item)  # later reads see the end too
                if item.error is not None:
                    raise item.error
                return
            yield item
            if _is_result(item):
                return


class ClaudeRoomSession:
    """One room's Claude CLI and the Claude session it continues.

    ``session_id`` is what the next CLI resumes (a crash that ``recover(forget_session=
    True)`` reports drops it; the room's disposal erases it). ``client`` and ``transport``
    are held from just before the CLI starts until it is closed.
    """

    def __init__(
        self, manager: ClaudeSessionManager, room_id: str, retention: RoomRetention
    ) -> None:
        self.room_id = room_id
        self.session_id: str | None = None
        self.client: Any = None
        self.transport: Any = None
        self._manager = manager
        self._reader: asyncio.Task[None] | None = None
        self._turn: TurnStream | None = None
        self._forget_session = False
        self.retained: RetainedRoom = retention.register(
            room_id, acquire=self.acquire, release=self.release, dispose=self.dispose
        )

    @property
    def generation(self) -> int:
        return self.retained.generation

    @property
    def holds_cli(self) -> bool:
        return self.client is not None

    def speaks_for(self, generation: int) -> bool:
        """Whether a callback of residency ``generation`` (a ``can_use_tool``) may act."""
        return self.retained.has_authority(generation)

    @asynccontextmanager
    async def using(
        self, prepare: Callable[[], Awaitable[None]] | None = None
    ) -> AsyncIterator[Any]:
        """The room's running ``ClaudeSDKClient`` for one operation (started if needed;
        ``prepare`` runs first, under the lease)."""
        async with self.retained.use(prepare):
            if self.client is None:
                raise RuntimeError(f"Room {self.room_id} is resident without a Claude CLI")
            yield self.client

    @contextmanager
    def listening(self) -> Iterator[TurnStream]:
        """Hand the CLI's messages to one turn until it stops listening."""
        if self._turn is not None:
            raise RuntimeError(f"Room {self.room_id} already has a turn listening")
        stream = self._turn = TurnStream()
        try:
            yield stream
        finally:
            self._turn = None

    def adopt(self, session_id: str | None) -> None:
        """Continue the session the room's history names, unless a CLI already runs."""
        if session_id is not None and self.client is None:
            self.session_id = session_id

    def recover(self, reason: str, *, forget_session: bool = False) -> bool:
        """Retire the running CLI (closed once no operation holds the room); with
        ``forget_session`` the next CLI starts a new session. False when it is stale."""
        return self._retire(self.generation, reason, forget_session=forget_session)

    def _retire(self, generation: int, reason: str, *, forget_session: bool) -> bool:
        if not self.retained.recover(generation=generation, reason=reason):
            return False
        self._forget_session = self._forget_session or forget_session
        return True

    def retire_outdated(self) -> None:
        """A CLI started with other MCP servers than the room has now is replaced."""
        if self.client is not None:
            running = getattr(self.client.options, "mcp_servers", None)
            if running != self._manager.mcp_servers(self.room_id):
                logger.info("Room %s: its MCP servers changed; replacing the CLI", self.room_id)
                self.recover("Band MCP servers changed")

    # -- the residency's transitions ----------------------------------------------------------

    async def acquire(self, generation: int, resume: bool) -> None:
        """Start the CLI. ``resume`` (a strict restore) keeps the session or fails; else a
        session that cannot be resumed gives way to a new one while the room stays open."""
        try:
            await self._connect(generation, resume=self.session_id)
        except Exception as error:
            fresh_allowed = (
                not resume
                and self.session_id is not None
                and not self.retained.closing
                and self.client is None
            )
            if not fresh_allowed:
                raise
            logger.warning(
                "Room %s: resuming Claude session %s failed (%s); starting a new one",
                self.room_id,
                self.session_id,
                error,
            )
            await self._connect(generation, resume=None)
            self.session_id = None  # dropped only once the new session runs

    async def release(self, cause: ReleaseCause) -> ReleaseOutcome:
        """Close the CLI (for recovery or the room's end)."""
        await self._close()
        if self._forget_session:
            self.session_id, self._forget_session = None, False
        logger.debug("Room %s: Claude CLI closed (%s)", self.room_id, cause)
        return ReleaseOutcome.RELEASED

    async def dispose(self) -> None:
        """The room is over: forget its session and let the manager drop it."""
        self.session_id = None
        self._manager.discard(self)

    async def _connect(self, generation: int, *, resume: str | None) -> None:
        try:
            from claude_agent_sdk import ClaudeSDKClient

            from .transport import create_transport
        except ImportError as exc:
            raise ImportError(INSTALL_HINT) from exc
        options = self._manager.options_for(self, generation, resume=resume)
        transport = create_transport(options)
        # Held before connecting: a start that fails early is still closed by us.
        self.client = ClaudeSDKClient(options=options, transport=transport)
        self.transport = transport
        try:
            await self.client.connect()
        except Exception:
            try:
                await self._close()
            except Exception:
                logger.warning("Room %s: closing a failed start failed", self.room_id)
            raise
        self._reader = asyncio.create_task(self._read(self.client, generation))
        logger.info("Room %s: Claude CLI started (resume=%s)", self.room_id, resume)

    async def _close(self) -> None:
        """Close the CLI; a failure keeps the handles so that recovery can retry."""
        if self.client is None or self.transport is None:
            return
        try:
            await self.client.disconnect()
        finally:
            await self.transport.close()
        if self._reader is not None:
            await self._reader
        self.client = self.transport = self._reader = None

    async def _read(self, client: Any, generation: int) -> None:
        """The CLI's only reader, from its start to its end."""
        error: Exception | None = None
        try:
            async for message in client.receive_messages():
                turn = self._listener(generation)
                if turn is not None:
                    turn.deliver(message)
                else:
                    logger.debug("Room %s: %s outside any turn", self.room_id, type(message))
        except Exception as failure:  # the listening turn raises it
            error = failure
        turn = self._listener(generation)
        if turn is not None:
            turn.end(error)
            return
        # Nobody reads this end: a CLI that died takes its session with it.
        crashed = error is None or type(error).__name__ == "CLIConnectionError"
        reason = "the Claude CLI's output ended outside a turn" + (f": {error}" if error else "")
        if self._retire(generation, reason, forget_session=crashed):
            logger.warning("Room %s: %s; retiring it", self.room_id, reason)

    def _listener(self, generation: int) -> TurnStream | None:
        turn = self._turn
        if turn is None or turn.completed or not self.retained.may_finish(generation):
            return None
        return turn


class ClaudeSessionManager:
    """The Claude CLI of each room, started on first use and closed per room.

    ``base_options`` (a ``ClaudeAgentOptions``) is shared; per room, ``mcp_servers_factory``
    gives its MCP servers, ``workspaces`` its working folder, and ``can_use_tool_factory``
    its permission callback (bound to the session and its residency generation).
    ``on_disposed`` hears each room whose cleanup completed. ``stop()`` is final.
    """

    def __init__(
        self,
        base_options: Any,
        can_use_tool_factory: Callable[[ClaudeRoomSession, int], Any] | None = None,
        mcp_servers_factory: Callable[[str], Any] | None = None,
        workspaces: RoomWorkspaces | None = None,
        retention: RoomRetentionConfig | None = None,
        settle_grace_s: float = TURN_SETTLE_GRACE_S,
        on_disposed: Callable[[str], None] | None = None,
    ) -> None:
        self.base_options = base_options
        self._can_use_tool_factory = can_use_tool_factory
        self._mcp_servers_factory = mcp_servers_factory
        self._workspaces = workspaces
        self._on_disposed = on_disposed
        self._retention = RoomRetention(
            retention or default_claude_retention(), settle_grace_s=settle_grace_s
        )
        self._rooms: dict[str, ClaudeRoomSession] = {}

    def room(self, room_id: str) -> ClaudeRoomSession:
        """The room's session, made on first use."""
        if self._retention.stopping:
            raise ClaudeSessionManagerStoppedError()
        session = self._rooms.get(room_id)
        if session is None:
            session = self._rooms[room_id] = ClaudeRoomSession(self, room_id, self._retention)
        return session

    def session(self, room_id: str) -> ClaudeRoomSession | None:
        """The room's session if it has one (never makes one)."""
        return self._rooms.get(room_id)

    def mcp_servers(self, room_id: str) -> Any:
        if self._mcp_servers_factory is None:
            return self.base_options.mcp_servers
        return self._mcp_servers_factory(room_id)

    def options_for(
        self, session: ClaudeRoomSession, generation: int, *, resume: str | None
    ) -> Any:
        """``base_options`` (copied) with the room's MCP servers, folder, resume and
        permission callback."""
        overrides: dict[str, Any] = {"mcp_servers": self.mcp_servers(session.room_id)}
        if self._workspaces is not None:
            overrides["cwd"] = self._workspaces.claim(session.room_id)
        if resume:
            overrides["resume"] = resume
        if self._can_use_tool_factory is not None:
            overrides["can_use_tool"] = self._can_use_tool_factory(session, generation)
        return dataclasses.replace(self.base_options, **overrides)

    def discard(self, session: ClaudeRoomSession) -> None:
        """Forget a disposed room and give back its folder."""
        if self._rooms.get(session.room_id) is session:
            del self._rooms[session.room_id]
            if self._on_disposed is not None:
                self._on_disposed(session.room_id)
        if self._workspaces is not None:
            self._workspaces.release(session.room_id)

    async def cleanup_session(self, room_id: str) -> None:
        """The room is left: settle its work, close its CLI, forget its session."""
        session = self._rooms.get(room_id)
        if session is not None:
            await session.retained.dispose()

    async def stop(self) -> None:
        """Dispose every room; the manager takes no room after this."""
        await self._retention.stop()

    def has_session(self, room_id: str) -> bool:
        """Whether the room's CLI runs."""
        session = self._rooms.get(room_id)
        return session is not None and session.holds_cli

    def get_session_count(self) -> int:
        return len(self.get_active_rooms())

    def get_active_rooms(self) -> list[str]:
        """The rooms whose CLI runs."""
        return [room for room, session in self._rooms.items() if session.holds_cli]
