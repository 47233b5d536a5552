"""A room on the OpenCode server: band-sdk's records of it (``RoomState``, ``TurnState``,
``McpRegistration``) and ``OpencodeRoom``, the supervisor's handle on its session."""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from band.core.protocols import AgentToolsProtocol
from band.core.types import TurnUsage
from band.integrations.opencode import OpencodeClientProtocol, OpencodeEvent

from .approvals import ApprovalPorts, RoomApprovals
from .client import OpencodeConnection

__all__ = ["McpRegistration", "OpencodeRoom", "RoomState", "TurnState", "room_ports"]


@dataclass
class TurnState:
    """One prompt's state: its session and tools, whom to mention, the assistant's messages
    and text parts, the tool calls reported, the tokens per message, its last error.
    ``turn_future`` ends with the turn; ``turn_release_future`` when the room may go on
    (the turn waits for the room, or it ended)."""

    session_id: str
    client: OpencodeClientProtocol
    tools: AgentToolsProtocol
    turn_future: asyncio.Future[None]
    turn_release_future: asyncio.Future[None]
    pending_mentions: list[dict[str, str]] = field(default_factory=list)
    text_parts: OrderedDict[str, str] = field(default_factory=OrderedDict)
    assistant_message_ids: set[str] = field(default_factory=set)
    assistant_part_types: dict[str, str] = field(default_factory=dict)
    reported_tool_calls: set[str] = field(default_factory=set)
    reported_tool_results: set[str] = field(default_factory=set)
    last_error_message: str | None = None
    usage_by_message: dict[str, TurnUsage] = field(default_factory=dict)
    watcher: asyncio.Task[None] | None = None
    reports_timeout: bool = False

    @property
    def usage(self) -> TurnUsage:
        """The turn's tokens, over its assistant messages."""
        return sum(self.usage_by_message.values(), TurnUsage())

    def release(self) -> None:
        if not self.turn_release_future.done():
            self.turn_release_future.set_result(None)

    def end(self) -> None:
        self.release()
        if not self.turn_future.done():
            self.turn_future.set_result(None)


@dataclass
class RoomState:
    """A room's OpenCode session, its current turn and tools, the session id last posted
    to the room, the ask ids ever seen there, and its open asks (``approvals``)."""

    room_id: str
    session_id: str | None = None
    tools: AgentToolsProtocol | None = None
    turn: TurnState | None = None
    approvals: RoomApprovals = field(init=False)
    persisted_session_id: str | None = None
    known_permission_ids: set[str] = field(default_factory=set)
    known_question_ids: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class McpRegistration:
    """Band's MCP server as registered on one client at one URL (a new client or URL means
    registering again)."""

    client: OpencodeClientProtocol
    url: str


@dataclass
class OpencodeRoom:
    """The room's session on the shared server (the supervisor's "process" of the room)."""

    state: RoomState
    session_id: str
    created: bool
    connection: OpencodeConnection
    events: asyncio.Queue[OpencodeEvent] = field(default_factory=asyncio.Queue)

    @property
    def room_id(self) -> str:
        return self.state.room_id

    @property
    def client(self) -> OpencodeClientProtocol:
        return self.connection.client

    @property
    def alive(self) -> bool:
        return self.connection.alive

    @property
    def pid(self) -> None:
        return None

    @property
    def exit_description(self) -> str:
        return self.connection.ended or "its event stream stopped"

    def drain(self) -> None:
        """Forget events left over from an earlier turn."""
        while not self.events.empty():
            self.events.get_nowait()

    async def close(self) -> None:
        """Nothing to stop: the server and the session outlive the room's turns."""


def room_ports(state: RoomState, is_own_tool: Callable[[str], bool]) -> ApprovalPorts:
    """The room's side of its open asks, acting on whichever turn is current (the adapter
    binds ``release_turn_wait`` and ``fail_turn`` to each turn as it starts)."""

    async def abort() -> None:
        turn = state.turn
        if turn is not None:
            with contextlib.suppress(Exception):
                await turn.client.abort_session(turn.session_id)

    return ApprovalPorts(
        room_id=state.room_id,
        client=lambda: state.turn.client if state.turn else None,
        tools=lambda: state.tools,
        turn_mentions=lambda: state.turn.pending_mentions if state.turn else [],
        release_turn_wait=lambda: None,
        fail_turn=lambda message: None,
        abort_session=abort,
        is_own_band_tool=is_own_tool,
    )
