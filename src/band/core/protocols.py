"""Protocols between the runtime and adapters: room tools, history converters, adapters."""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from band_protocol import AgentFailure

from ._tool_protocols import AgentToolsProtocol, HistoryConverter
from .content import has_visible_content
from .exceptions import TurnResultAlreadyReported

if TYPE_CHECKING:
    from .types import AgentInput

__all__ = [
    "FAILURE_CODE_TIMEOUT",
    "GENERIC_PROVIDER_FAILURE_MESSAGE",
    "TURN_FAILURE_PROVIDER",
    "AgentToolsProtocol",
    "FailureMetadataKey",
    "FrameworkAdapter",
    "HistoryConverter",
    "Preprocessor",
    "TurnResultAlreadyReported",
    "generic_provider_failure",
    "send_event_safe",
    "to_failure_event",
]

logger = logging.getLogger(__name__)

GENERIC_PROVIDER_FAILURE_MESSAGE = "Internal error while processing message; see agent logs."
TURN_FAILURE_PROVIDER = "band-runtime"
FAILURE_CODE_TIMEOUT = "timeout"


def generic_provider_failure(provider: str, error: BaseException) -> AgentFailure:
    """The generic failure posted for an unexpected error (code from ``ProviderRunError``)."""
    code = getattr(error, "code", None)
    return AgentFailure(
        provider, GENERIC_PROVIDER_FAILURE_MESSAGE, code if isinstance(code, str) else None
    )


class FailureMetadataKey(StrEnum):
    """The metadata key of a failure event."""

    FAILURE = "failure"


def to_failure_event(failure: AgentFailure) -> tuple[str, dict[str, Any]]:
    """``(content, metadata)`` of the error event every ``send_failure`` posts.

    A blank message (the platform refuses blank events) becomes
    ``"<provider> failed without an error message."``.
    """
    content = (
        failure.message.strip()
        if has_visible_content(failure.message)
        else f"{failure.provider} failed without an error message."
    )
    return content, {FailureMetadataKey.FAILURE.value: failure.to_dict()}


async def send_event_safe(
    tools: AgentToolsProtocol,
    content: str,
    message_type: str,
    metadata: dict[str, Any] | None = None,
    *,
    log_label: str | None = None,
    log_level: int = logging.WARNING,
) -> bool:
    """Post an event whose loss is tolerable; log instead of raising. True when accepted."""
    try:
        await tools.send_event(content=content, message_type=message_type, metadata=metadata)
    except Exception:
        logger.log(log_level, "Failed to send %s event", log_label or message_type, exc_info=True)
        return False
    return True


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
