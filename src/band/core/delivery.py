"""Delivering an adapter's final text: ``relay_reply``, ``deliver_reply``, ``deliver_notice``."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

from ._text import has_visible_text
from .exceptions import BandError, RoomExecutionStoppedError
from .protocols import AgentToolsProtocol

__all__ = [
    "DeliveryFailedError",
    "deliver_notice",
    "deliver_reply",
    "relay_reply",
    "reraise_delivery_cause",
]

logger = logging.getLogger("band.core.delivery")
Mentions = list[str] | list[dict[str, str]] | None


class DeliveryFailedError(BandError):
    """Posting a reply or notice failed; ``cause`` is the original error."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


async def _delivered(send: Callable[[], Awaitable[Any]]) -> Any:
    """Run ``send``; any failure but a stopped room execution becomes DeliveryFailedError."""
    try:
        return await send()
    except RoomExecutionStoppedError:
        raise
    except Exception as exc:
        raise DeliveryFailedError(exc) from exc


async def deliver_reply(tools: AgentToolsProtocol, content: str, mentions: Mentions = None) -> Any:
    """Send ``text`` as the turn's reply (records REPLY); failures become DeliveryFailedError.

    A stopped room execution propagates unchanged so the runtime can end the turn quietly.
    """
    return await _delivered(lambda: tools.send_message(content, mentions=mentions))


async def deliver_notice(tools: AgentToolsProtocol, content: str, mentions: Mentions = None) -> Any:
    """Send an adapter-owned notice (does not answer the turn)."""
    return await _delivered(lambda: tools.send_notice(content, mentions=mentions))


async def relay_reply(
    tools: AgentToolsProtocol, text: str | None, mentions: Mentions = None
) -> bool:
    """Post the model's final text unless a tool already replied or declined.

    Returns False without posting when ``text`` is None or invisible, or when the turn has
    already replied; otherwise True if the send returned a response.
    """
    if text is None or tools.turn.replied or not has_visible_text(text):
        return False
    return await deliver_reply(tools, text, mentions=mentions) is not None


def reraise_delivery_cause(e: DeliveryFailedError) -> NoReturn:
    """Log a failed delivery and raise its original cause."""
    logger.error("Reply delivery failed: %s", e.cause)
    raise e.cause
