"""One adapter turn without a platform: a message from Alice, ``FakeAgentTools`` for the room.

For framework adapter tests that pin what a turn does (messages posted, events reported,
the turn's verdict) where the live platform adds nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from band.core import SimpleAdapter
from band.core.types import PlatformMessage
from band.testing import FakeAgentTools

__all__ = ["ALICE", "alice_says", "room_tools", "turn"]

ALICE = {"id": "user-alice", "name": "Alice", "handle": "alice", "type": "User"}


def room_tools(**kwargs: Any) -> FakeAgentTools:
    """Room tools with Alice in the room (and whatever else ``kwargs`` set)."""
    kwargs.setdefault("participants", [ALICE])
    return FakeAgentTools(agent_id="agent-fake", **kwargs)


def alice_says(text: str, message_id: str = "m1") -> PlatformMessage:
    return PlatformMessage(
        id=message_id,
        room_id="room-fake",
        content=text,
        sender_id=ALICE["id"],
        sender_type="User",
        sender_name="Alice",
        message_type="text",
        metadata={},
        created_at=datetime.now(UTC),
    )


async def turn(
    adapter: SimpleAdapter[Any],
    tools: FakeAgentTools,
    text: str,
    *,
    history: Any = None,
    bootstrap: bool = True,
) -> None:
    """Start ``adapter`` (once) and run one turn of Alice saying ``text``."""
    if not getattr(adapter, "_turn_support_started", False):
        await adapter.on_started("Bot", "A test bot")
        adapter._turn_support_started = True  # type: ignore[attr-defined]
    await adapter.on_message(
        alice_says(text),
        tools,
        [] if history is None else history,
        None,
        None,
        is_session_bootstrap=bootstrap,
        room_id="room-fake",
    )
