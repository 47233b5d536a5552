"""Protocols between the runtime and adapters: room tools, history converters, adapters."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from band_protocol import AgentFailure

if TYPE_CHECKING:
    from .turn import Turn
    from .types import AgentInput, Capability

__all__ = [
    "FAILURE_CODE_TIMEOUT",
    "GENERIC_PROVIDER_FAILURE_MESSAGE",
    "TURN_FAILURE_PROVIDER",
    "AgentToolsProtocol",
    "FrameworkAdapter",
    "HistoryConverter",
    "Preprocessor",
    "generic_provider_failure",
]

GENERIC_PROVIDER_FAILURE_MESSAGE = "Internal error while processing message; see agent logs."
TURN_FAILURE_PROVIDER = "band-runtime"
FAILURE_CODE_TIMEOUT = "timeout"

T_co = TypeVar("T_co", covariant=True)


def generic_provider_failure(provider: str, error: BaseException | None = None) -> AgentFailure:
    """The generic failure posted for an unexpected error (code from ``ProviderRunError``)."""
    code = getattr(error, "code", None)
    return AgentFailure(
        provider, GENERIC_PROVIDER_FAILURE_MESSAGE, code if isinstance(code, str) else None
    )


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


@runtime_checkable
class FrameworkAdapter(Protocol):
    """What the runtime drives: one entry per turn plus lifecycle hooks."""

    async def on_started(self, agent_name: str, agent_description: str) -> None: ...

    async def on_event(self, inp: AgentInput) -> None: ...

    async def on_cleanup(self, room_id: str) -> None: ...


@runtime_checkable
class Preprocessor(Protocol):
    """Turns a platform event into an ``AgentInput`` (or None to skip it)."""

    async def process(self, ctx: Any, event: Any, agent_id: str) -> AgentInput | None: ...
