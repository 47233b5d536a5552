"""band.client.rest beyond the async client: the blocking RestClient, typed errors by status,
and band-client-rest's answer types validating what the platform sends."""

from __future__ import annotations

import asyncio

import pytest

from band.client.rest import (
    AsyncRestClient,
    ChatMessage,
    ChatRoomRequest,
    NotFoundError,
    RestClient,
    RestClientEnvironment,
    UnauthorizedError,
)
from band.platform.urls import DEFAULT_REST_URL
from band.testing import LocalPlatform


async def test_the_blocking_client_runs_each_call_to_the_end_in_a_thread_of_its_own() -> None:
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        echo = await platform.agent(alice, "Echo")
        await platform.room(alice, echo, title="lab")

        def blocking() -> tuple[str, list[str], int]:
            with RestClient(base_url=platform.rest_url, api_key=echo.key) as client:
                me = client.agent_api_identity.get_agent_me()
                rooms = client.agent_api_chats.list_agent_chats()
                created = client.agent_api_chats.create_agent_chat(
                    chat=ChatRoomRequest(title="made here")
                )
                try:
                    client.agent_api_chats.get_agent_chat("no-such-room")
                except NotFoundError as exc:
                    status = exc.status_code
                return me.data.name, [r.id for r in rooms.data] + [created.data.id], status

        name, room_ids, status = await asyncio.to_thread(blocking)
    assert name == "Echo"
    assert len(room_ids) == 2
    assert status == 404


async def test_a_wrong_key_is_an_unauthorized_error() -> None:
    async with LocalPlatform() as platform:
        client = AsyncRestClient(base_url=platform.rest_url, api_key="band_a_wrong")
        with pytest.raises(UnauthorizedError) as info:
            await client.agent_api_identity.get_agent_me()
        await client.aclose()
    assert info.value.status_code == 401
    assert info.value.body["error"]["code"]


def test_answer_types_read_the_platforms_message_shape() -> None:
    message = ChatMessage.model_validate(
        {
            "id": "m1",
            "content": "hi",
            "message_type": "text",
            "sender_id": "u1",
            "sender_type": "User",
            "inserted_at": "2026-01-01T00:00:00Z",
            "thread_id": None,  # unknown keys are kept
        }
    )
    assert message.inserted_at is not None and message.inserted_at.year == 2026
    assert message.model_extra == {"thread_id": None}
    assert RestClientEnvironment.DEFAULT.value == DEFAULT_REST_URL
