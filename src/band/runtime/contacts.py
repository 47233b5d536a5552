"""What an agent does with contact events: the strategy and its configuration.

``DISABLED`` (the default) ignores them; ``CALLBACK`` hands each to ``on_event(event, tools)``
(code decides, no model involved); ``HUB_ROOM`` posts each into a dedicated room where the
agent's model decides. ``broadcast_changes`` also tells every room when a contact was added
or removed. Auto-approving every request lets anyone make the agent spend tokens: choose.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from uuid import UUID

from band.runtime.callbacks import ContactEventCallback

__all__ = ["ContactEventConfig", "ContactEventStrategy"]


class ContactEventStrategy(Enum):
    """How contact events are handled."""

    DISABLED = "disabled"
    CALLBACK = "callback"
    HUB_ROOM = "hub_room"


@dataclass
class ContactEventConfig:
    """The contact strategy, and what each needs (``on_event``, ``hub_task_id``)."""

    strategy: ContactEventStrategy = ContactEventStrategy.DISABLED
    hub_task_id: str | None = None
    on_event: ContactEventCallback | None = None
    broadcast_changes: bool = False

    def __post_init__(self) -> None:
        if self.strategy == ContactEventStrategy.CALLBACK and self.on_event is None:
            raise ValueError("CALLBACK strategy requires on_event callback")
        if self.hub_task_id is not None:
            try:
                UUID(self.hub_task_id)
            except ValueError:
                raise ValueError(f"hub_task_id must be a UUID, got {self.hub_task_id!r}") from None

    @property
    def active(self) -> bool:
        """Whether the agent needs its contact events at all."""
        return self.strategy != ContactEventStrategy.DISABLED or self.broadcast_changes
