"""``RoomConversations``: each room's running conversation, kept between an adapter's turns.

For adapters that hold the transcript themselves (the model-loop base, Agno, Strands, Pydantic
AI): a session bootstrap, or a room not seen yet, starts the room's conversation over from the
history the runtime hands in; leaving the room (``on_cleanup``) drops it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["RoomConversations"]

C = TypeVar("C")


class RoomConversations(Generic[C]):
    """A mixin before the adapter base: ``rooms`` maps a room to its conversation."""

    rooms: dict[str, C]

    def room_conversation(self, room_id: str, bootstrap: bool, start: Callable[[], C]) -> C:
        """The room's conversation; ``start()`` begins it on a bootstrap or a room not seen."""
        if bootstrap or room_id not in self.rooms:
            self.rooms[room_id] = start()
        return self.rooms[room_id]

    async def on_cleanup(self, room_id: str) -> None:
        """Forget the room's conversation (the agent left the room, or it stops)."""
        self.rooms.pop(room_id, None)
