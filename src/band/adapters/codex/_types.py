"""What a Codex turn and the room commands read of the adapter, and what extras read of a turn.

Protocols apart from ``adapter`` and ``turn`` so that those import nothing back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from band.adapters._coding.approvals import ApprovalRelay
    from band.adapters._coding.base import Prompt
    from band.adapters._coding.events import Reporter
    from band.adapters._coding.supervisor import RoomSupervisor
    from band.adapters._coding.turns import TurnTasks
    from band.runtime.custom_tools import CustomToolDef

    from .config import CodexAdapterConfig
    from .process import CodexProcess
    from .room import RoomCodexClient

__all__ = ["CommandHost", "TurnHost", "TurnView"]


class TurnHost(Protocol):
    """What a turn reads of its adapter (``CodexAdapter`` is one)."""

    @property
    def config(self) -> CodexAdapterConfig: ...

    @property
    def additional_tools(self) -> list[CustomToolDef]: ...

    @property
    def relay(self) -> ApprovalRelay: ...


class CommandHost(TurnHost, Protocol):
    """What the room commands read of the adapter: its rooms, processes and turns."""

    @property
    def processes(self) -> RoomSupervisor[CodexProcess]: ...

    @property
    def turns(self) -> TurnTasks: ...

    def room(self, room_id: str) -> RoomCodexClient: ...

    def room_model(self, room_id: str) -> str: ...

    def room_sandbox(self, room_id: str) -> str | None: ...


class TurnView(Protocol):
    """What a turn's extra events read of it (``CodexTurnRun`` is one)."""

    @property
    def adapter(self) -> TurnHost: ...

    @property
    def prompt(self) -> Prompt: ...

    @property
    def reporter(self) -> Reporter: ...

    @property
    def room(self) -> RoomCodexClient: ...

    @property
    def thread_id(self) -> str: ...

    @property
    def turn_id(self) -> str | None: ...
