"""Turning a room's message into the input of a LangGraph graph of your own.

A formatter takes the pushed message and its sender's display name and returns the graph's
input state. ``default_messages_state_formatter`` fits graphs on ``MessagesState``.
"""

from __future__ import annotations

from typing import Any, Protocol

from band.client.streaming import MessageCreatedPayload

__all__ = ["MessageFormatter", "default_messages_state_formatter"]


class MessageFormatter(Protocol):
    """``formatter(message, sender_name) -> dict``: a graph input for one room message."""

    def __call__(self, message: MessageCreatedPayload, sender_name: str) -> dict[str, Any]: ...


def default_messages_state_formatter(
    message: MessageCreatedPayload, sender_name: str
) -> dict[str, Any]:
    """``{"messages": [{"role": "user", "content": ...}]}``, the content saying who wrote it:
    ``Message from <name> (<sender type>, ID: <sender id>): <text>``."""
    text = (
        f"Message from {sender_name} ({message.sender_type}, ID: {message.sender_id}): "
        f"{message.content}"
    )
    return {"messages": [{"role": "user", "content": text}]}
