"""The room tools and history converters as protocols: what ``AgentInput`` refers to.

Apart from ``protocols`` so that ``types`` can name them without importing it back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeVar, runtime_checkable

from band_protocol import AgentFailure

from ._flags import Capability
from .turn import Turn

__all__ = ["AgentToolsProtocol", "HistoryConverter"]

T_co = TypeVar("T_co", covariant=True)


@runtime_checkable
class HistoryConverter(Protocol[T_co]):
    """Turns raw room history items into a framework's message format.

    A converter may also define ``set_agent_name(name)``; ``SimpleAdapter.on_started``
    calls it when present.
    """

    def convert(self, raw: list[dict[str, Any]]) -> T_co: ...


@runtime_checkable
class AgentToolsProtocol(Protocol):
    """The room-bound tools an adapter receives as ``tools`` for one turn."""

    turn: Turn

    async def send_message(
        self, content: str, mentions: list[str] | list[dict[str, str]] | None = None
    ) -> Any: ...

    async def send_notice(
        self, content: str, mentions: list[str] | list[dict[str, str]] | None = None
    ) -> Any: ...

    async def send_event(
        self, content: str, message_type: str, metadata: dict[str, Any] | None = None
    ) -> Any: ...

    async def send_failure(self, failure: AgentFailure) -> Any: ...

    async def no_reply(self, reason: str | None = None) -> dict[str, Any]: ...

    async def add_participant(self, identifier: str, role: str = "member") -> dict[str, Any]: ...

    async def remove_participant(self, identifier: str) -> dict[str, Any]: ...

    async def get_participants(self) -> list[dict[str, Any]]: ...

    async def lookup_peers(self, page: int = 1, page_size: int = 50) -> dict[str, Any]: ...

    def get_tool_schemas(
        self, format: str, *, capabilities: Iterable[Capability] | None = None
    ) -> list[dict[str, Any]]: ...

    def get_openai_tool_schemas(
        self, *, capabilities: Iterable[Capability] | None = None
    ) -> list[dict[str, Any]]: ...

    def get_anthropic_tool_schemas(
        self, *, capabilities: Iterable[Capability] | None = None
    ) -> list[dict[str, Any]]: ...

    async def execute_tool_call(self, tool_name: str, arguments: dict[str, Any]) -> Any: ...
