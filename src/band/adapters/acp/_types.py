"""The ACP adapter's callback types, and what a room's client needs of the adapter.

Apart from ``client`` and ``adapter`` so that neither imports the other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from band.adapters._coding.approvals import ApprovalRelay
from band.adapters._coding.supervisor import RoomSupervisor

from .process import ACPProcess

__all__ = ["ACPClientProfile", "ACPPermissionRequest", "ClientHost", "PermissionResolver"]


@dataclass(frozen=True)
class ACPPermissionRequest:
    """What a resolver sees: the room, the tool call and the offered options."""

    room_id: str
    session_id: str
    tool_call: Any
    options: list[Any]


PermissionResolver = Callable[[ACPPermissionRequest], Awaitable[str | None]]
"""Returns an offered ``option_id``, or None to cancel the request."""


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
