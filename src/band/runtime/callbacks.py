"""The callback types of the contact machinery."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from band.platform.event import MessageEvent

__all__ = ["ContactEventCallback", "HubEventCallback", "HubInitCallback"]

# on_event(event, contact_tools) for the CALLBACK strategy.
ContactEventCallback = Callable[[Any, Any], Awaitable[None]]
# Puts a synthetic message into the hub room's execution.
HubEventCallback = Callable[[str, "MessageEvent"], Awaitable[None]]
# Gives the hub room its instructions before its first event.
HubInitCallback = Callable[[str, str], Awaitable[None]]
