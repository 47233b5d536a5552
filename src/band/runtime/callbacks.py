"""The callback types of the contact machinery."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from band.platform.event import MessageEvent
    from band.runtime.messages import PlatformMessage

__all__ = ["ContactEventCallback", "HubEventCallback", "HubInitCallback", "MessageHandler"]

# A plain handler of one room message and its tools (an ``AgentRuntime`` handler's shape).
MessageHandler = Callable[["PlatformMessage", Any], Awaitable[None]]

# on_event(event, contact_tools) for the CALLBACK strategy.
ContactEventCallback = Callable[[Any, Any], Awaitable[None]]
# Puts a synthetic message into the hub room's execution.
HubEventCallback = Callable[[str, "MessageEvent"], Awaitable[None]]
# Gives the hub room its instructions before its first event.
HubInitCallback = Callable[[str, str], Awaitable[None]]
