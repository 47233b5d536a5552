"""A small personal-agent gateway written only on ``BandLink`` (no Agent, no adapter).

It is the shape a plugin for a personal agent (Hermes, OpenClaw) takes: one long-lived link,
typed events by attribute, the message lifecycle by hand, replies through ``link.rest``.
Here the "agent" is a tiny function; swap ``think`` for your host's model call.

    BAND_AGENT_ID=... BAND_API_KEY=... BAND_REST_URL=http://127.0.0.1:8080 \
    BAND_WS_URL=ws://127.0.0.1:8080/api/v1/socket/websocket python personal_gateway.py
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from band.client.rest import (
    DEFAULT_REQUEST_OPTIONS,
    ChatMessageRequest,
    ChatMessageRequestMentionsItem,
)
from band.platform.event import MessageEvent, RoomAddedEvent, RoomDeletedEvent, RoomRemovedEvent
from band.platform.link import BandLink
from band.runtime.formatters import replace_uuid_mentions, strip_leading_mentions

log = logging.getLogger("personal_gateway")


def think(text: str, sender: str) -> str:
    """The personal agent's answer (a stand-in for a model call)."""
    return f"Noted, {sender}: {text}"


class Gateway:
    def __init__(self, link: BandLink) -> None:
        self.link = link
        self.me = ""

    async def run(self) -> None:
        await self.link.connect()
        me = await self.link.rest.agent_api_identity.get_agent_me(
            request_options=DEFAULT_REQUEST_OPTIONS
        )
        self.me = me.data.id
        await self.link.subscribe_agent_rooms(self.me)
        page = await self.link.rest.agent_api_chats.list_agent_chats(page=1)
        for room in page.data:
            await self.link.subscribe_room(room.id)
            await self.drain(room.id)
        log.info("Gateway ready as %s in %d rooms", me.data.handle, len(page.data))
        async for event in self.link:
            if isinstance(event, MessageEvent) and event.payload is not None:
                await self.answer(event.room_id or "", event.payload.model_dump())
            elif isinstance(event, RoomAddedEvent) and event.room_id:
                await self.link.subscribe_room(event.room_id)
                await self.drain(event.room_id)
            elif isinstance(event, RoomRemovedEvent | RoomDeletedEvent) and event.room_id:
                await self.link.unsubscribe_room(event.room_id)
            elif event.type == "reconnected":
                for room_id in sorted(self.link.rooms):
                    await self.drain(room_id)
        why = self.link.last_disconnect_reason
        log.info("Link ended (%s); gateway stopping", why.reason if why else "closed")
        await self.link.disconnect()

    async def drain(self, room_id: str) -> None:
        """Answer what arrived while nobody listened (oldest first)."""
        seen: set[str] = set()
        while (msg := await self.link.get_next_message(room_id)) is not None and msg.id not in seen:
            seen.add(msg.id)
            await self.answer(room_id, {**msg.__dict__, "chat_room_id": room_id})

    async def answer(self, room_id: str, message: dict[str, Any]) -> None:
        if message.get("sender_id") == self.me or message.get("message_type") != "text":
            return
        message_id = str(message["id"])
        if not await self.link.mark_processing(room_id, message_id):
            return
        try:
            people = await self.link.rest.agent_api_participants.list_agent_chat_participants(
                room_id
            )
            roster = [p.model_dump() for p in people.data]
            text = strip_leading_mentions(replace_uuid_mentions(message["content"], roster))
            sender = message.get("sender_name") or "there"
            await self.link.rest.agent_api_messages.create_agent_chat_message(
                room_id,
                message=ChatMessageRequest(
                    content=think(text, sender),
                    mentions=[ChatMessageRequestMentionsItem(id=message["sender_id"])],
                ),
                request_options=DEFAULT_REQUEST_OPTIONS,
            )
        except Exception as exc:
            await self.link.mark_failed(room_id, message_id, str(exc))
            raise
        await self.link.mark_processed(room_id, message_id)


async def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    link = BandLink(
        os.environ["BAND_AGENT_ID"],
        os.environ["BAND_API_KEY"],
        os.environ["BAND_WS_URL"],
        os.environ["BAND_REST_URL"],
    )
    await Gateway(link).run()


if __name__ == "__main__":
    asyncio.run(main())
