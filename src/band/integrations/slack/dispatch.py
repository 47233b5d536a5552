"""The dispatcher both Slack transports (HTTP events, Socket Mode) hand an event payload to."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .types import SlackApp

__all__ = ["EventDispatcher", "hand_over"]

logger = logging.getLogger("band.integrations.slack")
EventDispatcher = Callable[[SlackApp, dict[str, Any]], Awaitable[None]]


async def hand_over(dispatcher: EventDispatcher, app: SlackApp, payload: dict[str, Any]) -> None:
    """Give ``payload`` to ``dispatcher``; a failure is logged, never raised to the transport."""
    try:
        await dispatcher(app, payload)
    except Exception:
        logger.exception("Slack app %s: handing an event over failed", app.slug)
