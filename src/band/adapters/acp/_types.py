"""The ACP adapter's callback types, and what a room's client needs of the adapter.

Apart from ``client`` and ``adapter`` so that neither imports the other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol
from uuid import uuid4

from band.adapters._coding.approvals import ApprovalRelay
from band.adapters._coding.supervisor import RoomSupervisor
from band.integrations.acp.client_runtime import ACPRuntime
from band.integrations.acp.types import ACPToolCall

from .process import ACPProcess

__all__ = [
    "NEW_MESSAGE_MARKER_PREFIX",
    "ACPClientProfile",
    "ACPPermissionRequest",
    "ACPTurn",
    "ACPTurnTimeoutError",
    "ClientHost",
    "PermissionResolver",
    "SessionCloseReason",
    "SessionMcpServers",
    "new_message_marker",
]

# Marks where a replayed transcript ends and the live message starts; the nonce is new for
# every prompt, so no replayed line can already carry it.
NEW_MESSAGE_MARKER_PREFIX = "[New Message"


def new_message_marker() -> str:
    """A fresh ``[New Message <nonce>]`` marker for one prompt."""
    return f"{NEW_MESSAGE_MARKER_PREFIX} {uuid4().hex[:8]}]"


@dataclass(frozen=True)
class SessionMcpServers:
    """The MCP servers a session is opened with, and the Band MCP URL among them (None:
    Band's tools are not injected)."""

    servers: list[object]
    band_url: str | None


@dataclass(frozen=True)
class ACPTurn:
    """A room's running prompt: what cancelling it needs."""

    runtime: ACPRuntime
    session_id: str


class ACPTurnTimeoutError(TimeoutError):
    """A prompt outran ``turn_timeout_s`` and was cancelled."""


class SessionCloseReason(StrEnum):
    """Why a room's session is closed while the room goes on (logged)."""

    UNCONFIGURED = "unconfigured"
    STALE_BAND_MCP_URL = "stale Band MCP URL"


@dataclass(frozen=True)
class ACPPermissionRequest:
    """What a resolver sees: the room, the session, the tool call (its name Band's spelling
    for Band's tools) and the options the agent offered (``PermissionOption`` or wire dicts)."""

    room_id: str
    session_id: str
    tool_call: ACPToolCall
    options: tuple[Any, ...]


PermissionResolver = Callable[[ACPPermissionRequest], Awaitable[str | None]]
"""Returns an offered ``option_id``, or None to cancel the request (another id is refused)."""


class ACPClientProfile(Protocol):
    """An agent's ACP extensions: methods and notifications named ``_<name>``. A profile
    that needs the room and its running turn may also define ``room_ext_method(client,
    method, params)`` / ``room_ext_notification(...)``, called with the room's client."""

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]: ...

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None: ...


class ClientHost(Protocol):
    """What ``RoomClient`` reads of its adapter (``ACPClientAdapter`` is one)."""

    @property
    def profile(self) -> ACPClientProfile | None: ...

    @property
    def resolve_permission(self) -> PermissionResolver | None: ...

    @property
    def relay(self) -> ApprovalRelay: ...

    @property
    def processes(self) -> RoomSupervisor[ACPProcess]: ...
