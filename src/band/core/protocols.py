"""Protocols between the runtime and adapters: room tools, history converters, adapters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from band_protocol import AgentFailure

from ._tool_protocols import AgentToolsProtocol, HistoryConverter

if TYPE_CHECKING:
    from .types import AgentInput

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


def generic_provider_failure(provider: str, error: BaseException | None = None) -> AgentFailure:
    """The generic failure posted for an unexpected error (code from ``ProviderRunError``)."""
    code = getattr(error, "code", None)
    return AgentFailure(
        provider, GENERIC_PROVIDER_FAILURE_MESSAGE, code if isinstance(code, str) else None
    )


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
