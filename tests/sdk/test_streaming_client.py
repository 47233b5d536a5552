"""band.client.streaming.WebSocketClient against the real platform: pushes arrive typed, as
band-sdk's client models them (built on band_protocol.pushes, the one source of push shapes)."""

from __future__ import annotations

import asyncio
from typing import Any

from band.client.streaming import (
    MessageCreatedPayload,
    MessageMetadata,
    RoomAddedPayload,
    SupersedePayload,
    WebSocketClient,
)
from band.client.streaming.client import Mention
from band.testing import LocalPlatform


async def _nothing(_: Any) -> None:
    return None


async def test_room_added_and_message_created_arrive_as_the_clients_typed_payloads() -> None:
    async with LocalPlatform() as platform:
        alice = await platform.person("alice")
        echo = await platform.agent(alice, "Echo")
        rooms: asyncio.Queue[Any] = asyncio.Queue()
        messages: asyncio.Queue[Any] = asyncio.Queue()
        async with WebSocketClient(platform.ws_url, echo.key, echo.id) as ws:
            await ws.join_agent_rooms_channel(echo.id, rooms.put, _nothing)
            room_id = await platform.room(alice, echo, title="Standup")
            added = await asyncio.wait_for(rooms.get(), 10)
            assert isinstance(added, RoomAddedPayload)
            assert (added.id, added.title) == (room_id, "Standup")
            assert added.inserted_at  # required by the client's model, optional on the wire's

            await ws.join_chat_room_channel(room_id, messages.put)
            await platform.post(alice, room_id, "hello", echo)
            message = await asyncio.wait_for(messages.get(), 10)
        assert isinstance(message, MessageCreatedPayload)
        assert message.content.endswith("hello") and message.sender_id == alice.id
        assert isinstance(message.metadata, MessageMetadata)
        [mention] = message.metadata.mentions
        assert isinstance(mention, Mention)
        assert mention.id == echo.id


async def test_a_second_connection_supersedes_the_first_with_a_typed_supersede_payload() -> None:
    async with LocalPlatform() as platform:
        alice = await platform.person("alice")
        echo = await platform.agent(alice, "Echo")
        supersedes: asyncio.Queue[Any] = asyncio.Queue()
        async with WebSocketClient(platform.ws_url, echo.key, echo.id) as first:
            # No on_control: only the supersede is routed on this topic.
            await first.join_agent_control_channel(echo.id, supersedes.put)
            async with WebSocketClient(platform.ws_url, echo.key, echo.id):
                superseded = await asyncio.wait_for(supersedes.get(), 10)
        assert isinstance(superseded, SupersedePayload)
        assert superseded.retryable is False and superseded.reason and superseded.message
        reason = superseded.to_disconnect_reason()
        assert (reason.reason, reason.retryable) == (superseded.reason, False)
        assert reason.correlation_id == superseded.correlation_id
