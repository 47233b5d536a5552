"""``ContactEventHandler``: the agent's contact events, handled once, by its strategy.

One handler per agent (not per room). Each event is handled at most once (keyed by request
id and status, or contact id); ``broadcast_changes`` turns contact additions and removals
into a system note for every room. CALLBACK calls ``on_event(event, ContactTools)`` (a
failing callback is logged and the event may come again); HUB_ROOM creates the hub room
once, gives it its instructions, then puts each event into it as a message from "Contact
Events" (the agent's model decides) and records it in the room as a task event.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from band.core.types import (
    SYNTHETIC_CONTACT_EVENTS_SENDER_ID,
    SYNTHETIC_CONTACT_EVENTS_SENDER_NAME,
    SYNTHETIC_SENDER_TYPE,
)
from band.platform.event import (
    ContactAddedEvent,
    ContactRemovedEvent,
    ContactRequestReceivedEvent,
    ContactRequestUpdatedEvent,
    MessageEvent,
    event_from_push,
)
from band.platform.link import BandLink

from .callbacks import HubEventCallback, HubInitCallback
from .contact_tools import ContactTools
from .contacts import ContactEventConfig, ContactEventStrategy
from .handles import normalize_handle

__all__ = ["HUB_ROOM_SYSTEM_PROMPT", "ContactEventHandler"]

logger = logging.getLogger(__name__)
MAX_REMEMBERED = 1000
HUB_READY_TIMEOUT = 5.0
HUB_ROOM_SYSTEM_PROMPT = """## Contacts hub

This room is where you decide on contact requests; nobody else is here.

When a "[Contact Request]" message arrives, decide and act with the contact tools:
- `band_respond_contact_request(action="approve", request_id=...)` to accept,
- `band_respond_contact_request(action="reject", request_id=...)` to decline;
then say what you did with a `band_send_event(..., message_type="thought")`.
`band_list_contact_requests()` and `band_list_contacts()` show the current state.
Do not look up peers or add participants here.
"""


class ContactEventHandler:
    """Routes contact events by the configured strategy (see the module docstring)."""

    def __init__(
        self,
        config: ContactEventConfig,
        link: BandLink,
        on_broadcast: Callable[[str], None] | None = None,
        on_hub_event: HubEventCallback | None = None,
        on_hub_init: HubInitCallback | None = None,
    ) -> None:
        self._config = config
        self._link = link
        self._on_broadcast = on_broadcast
        self._on_hub_event = on_hub_event
        self._on_hub_init = on_hub_init
        self._tools: ContactTools | None = None
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._requests: OrderedDict[str, dict[str, str | None]] = OrderedDict()
        self._hub_room_id: str | None = None
        self._hub_briefed = False
        self._hub_ready = asyncio.Event()
        self._hub_lock = asyncio.Lock()
        self._handled = 0

    @property
    def contact_tools(self) -> ContactTools:
        if self._tools is None:
            self._tools = ContactTools(self._link.api)
        return self._tools

    @property
    def hub_room_id(self) -> str | None:
        return self._hub_room_id

    async def initialize_hub_room(self) -> str:
        """Create the hub room (once); its ``room_added`` starts its execution."""
        async with self._hub_lock:
            if self._hub_room_id is None:
                room = await self._link.api.create_chat(task_id=self._config.hub_task_id)
                self._hub_room_id = room.id
                logger.info("Hub room for contact events: %s", room.id)
            return self._hub_room_id

    def mark_hub_room_ready(self) -> None:
        """The hub room's execution exists: events may go in."""
        self._hub_ready.set()

    async def handle(self, event: Any) -> None:
        """Handle one contact event (a repeat of a handled one is skipped)."""
        key = _event_key(event)
        if key is not None and key in self._seen:
            return
        self._remember_request(event)
        if self._config.broadcast_changes:
            self._broadcast(event)
        strategy = self._config.strategy
        if strategy == ContactEventStrategy.DISABLED:
            done = True
        elif strategy == ContactEventStrategy.CALLBACK:
            done = await self._callback(event)
        else:
            done = await self._to_hub(event)
        if done and key is not None:
            self._seen[key] = None
            while len(self._seen) > MAX_REMEMBERED:
                self._seen.popitem(last=False)
        self._handled += done

    async def _callback(self, event: Any) -> bool:
        if self._config.on_event is None:
            return True
        try:
            await self._config.on_event(event, self.contact_tools)
        except Exception:
            logger.exception("Contact event callback failed")
            return False
        return True

    async def _to_hub(self, event: Any) -> bool:
        if self._on_hub_event is None:
            logger.warning("HUB_ROOM strategy without a hub event sink")
            return False
        try:
            hub = await self.initialize_hub_room()
            try:
                await asyncio.wait_for(self._hub_ready.wait(), HUB_READY_TIMEOUT)
            except TimeoutError:
                logger.warning("Hub room %s not ready after %ss", hub, HUB_READY_TIMEOUT)
            if not self._hub_briefed and self._on_hub_init is not None:
                await self._on_hub_init(hub, HUB_ROOM_SYSTEM_PROMPT)
                self._hub_briefed = True
            content = self.describe(event)
            await self._on_hub_event(hub, _hub_message(hub, content, event.type))
            try:
                await self._link.api.post_event(
                    hub, content, "task", {"contact_event_type": event.type}
                )
            except Exception as exc:
                logger.warning("Could not record the contact event in the hub room: %s", exc)
        except Exception:
            logger.exception("Could not hand the contact event to the hub room")
            return False
        return True

    def describe(self, event: Any) -> str:
        """The contact event as the hub room's model reads it."""
        payload = event.payload
        if isinstance(event, ContactRequestReceivedEvent) and payload is not None:
            handle = normalize_handle(payload.from_handle) or "no handle"
            who = f"{payload.from_name or 'Unknown sender'} ({handle})"
            note = f'\nMessage: "{payload.message}"' if payload.message else ""
            return f"[Contact Request] {who} wants to connect.{note}\nRequest ID: {payload.id}"
        if isinstance(event, ContactRequestUpdatedEvent) and payload is not None:
            info = self._requests.get(payload.id) or {}
            name = info.get("from_name")
            if name:
                handle = normalize_handle(info.get("from_handle")) or ""
                return (
                    f"[Contact Request Update] Request from {name} ({handle}) status changed "
                    f"to: {payload.status}\nRequest ID: {payload.id}"
                )
            changed = f"status changed to: {payload.status}"
            return f"[Contact Request Update] Request {payload.id} {changed}"
        if isinstance(event, ContactAddedEvent) and payload is not None:
            contact = payload.name or "Unknown contact"
            shown = normalize_handle(payload.handle) or "no handle"
            return (
                f"[Contact Added] {contact} ({shown}) is now a contact.\n"
                f"Type: {payload.type}, ID: {payload.id}"
            )
        if isinstance(event, ContactRemovedEvent) and payload is not None:
            return f"[Contact Removed] Contact {payload.id} was removed."
        return f"[Contact Event] {event.type}"

    def _broadcast(self, event: Any) -> None:
        payload = event.payload
        if self._on_broadcast is None or payload is None:
            return
        if isinstance(event, ContactAddedEvent):
            handle = normalize_handle(payload.handle) or "no handle"
            self._on_broadcast(f"{handle} ({payload.name or 'Unknown contact'}) is now a contact")
        elif isinstance(event, ContactRemovedEvent):
            self._on_broadcast(f"Contact {payload.id} was removed")

    def _remember_request(self, event: Any) -> None:
        if isinstance(event, ContactRequestReceivedEvent) and event.payload is not None:
            p = event.payload
            info = {"from_name": p.from_name, "from_handle": p.from_handle, "message": p.message}
            self._requests[p.id] = info
            while len(self._requests) > MAX_REMEMBERED:
                self._requests.popitem(last=False)

    def get_stats(self) -> dict[str, Any]:
        """What the handler has done so far."""
        return {
            "strategy": self._config.strategy.value,
            "handled": self._handled,
            "remembered_events": len(self._seen),
            "hub_room_id": self._hub_room_id,
        }


def _event_key(event: Any) -> str | None:
    payload = getattr(event, "payload", None)
    ident = getattr(payload, "id", None)
    if ident is None:
        return None
    status = getattr(payload, "status", None)
    return f"{event.type}:{ident}:{status}" if status else f"{event.type}:{ident}"


def _hub_message(hub: str, content: str, kind: str) -> MessageEvent:
    """A contact event as a message of "Contact Events" in the hub room."""
    now = datetime.now(UTC).isoformat()
    raw = {
        "id": str(uuid.uuid4()),
        "content": content,
        "message_type": "text",
        "sender_type": SYNTHETIC_SENDER_TYPE,
        "sender_id": SYNTHETIC_CONTACT_EVENTS_SENDER_ID,
        "sender_name": SYNTHETIC_CONTACT_EVENTS_SENDER_NAME,
        "metadata": {"mentions": [], "contact_event_type": kind},
        "chat_room_id": hub,
        "inserted_at": now,
        "updated_at": now,
    }
    event = event_from_push("message_created", hub, raw)
    assert isinstance(event, MessageEvent)  # nosec B101 # narrows for mypy: message_created is a MessageEvent
    return event
