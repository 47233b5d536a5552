"""``band.client.rest.AsyncRestClient`` against the real platform: band-client-rest's namespaces,
method names, request models and ``.data`` answers, on the agent and the people side."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

import pytest

from band.client.rest import (
    DEFAULT_REQUEST_OPTIONS,
    NO_RETRY_REQUEST_OPTIONS,
    ApiError,
    AsyncRestClient,
    ChatMessageRequest,
    ChatMessageRequestMentionsItem,
    ChatRoomRequest,
    ParticipantRequest,
)
from band_server.testing.local_platform import LocalPlatform

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def platform() -> AsyncIterator[LocalPlatform]:
    async with LocalPlatform() as p:
        yield p


async def test_agent_and_people_namespaces_answer_with_data(platform: LocalPlatform) -> None:
    alice = await platform.person("alice", "Alice")
    echo = await platform.agent(alice, "Echo")
    agent = AsyncRestClient(base_url=platform.rest_url, api_key=echo.key)
    person = AsyncRestClient(base_url=platform.rest_url, api_key=alice.key)
    try:
        me = await agent.agent_api_identity.get_agent_me(request_options=DEFAULT_REQUEST_OPTIONS)
        assert (me.data.id, me.data.handle, me.data.owner_uuid) == (echo.id, echo.handle, alice.id)

        created = await agent.agent_api_chats.create_agent_chat(chat=ChatRoomRequest())
        room_id = created.data.id
        await agent.agent_api_participants.add_agent_chat_participant(
            room_id, participant=ParticipantRequest(participant_id=alice.id, role="member")
        )
        rooms = await agent.agent_api_chats.list_agent_chats(page=1)
        assert [r.id for r in rooms.data] == [room_id]
        assert rooms.metadata is not None and rooms.metadata.total_pages == 1

        sent = await agent.agent_api_messages.create_agent_chat_message(
            chat_id=room_id,
            message=ChatMessageRequest(
                content="hello", mentions=[ChatMessageRequestMentionsItem(id=alice.id)]
            ),
            request_options=DEFAULT_REQUEST_OPTIONS,
        )
        assert sent.data.id and [r.id for r in sent.data.recipients] == [alice.id]

        people = await agent.agent_api_participants.list_agent_chat_participants(room_id)
        assert {p.id for p in people.data} == {alice.id, echo.id}

        asked = await person.human_api_messages.send_my_chat_message(
            room_id,
            message=ChatMessageRequest(
                content="hi echo", mentions=[ChatMessageRequestMentionsItem(id=echo.id)]
            ),
        )
        nxt = await agent.agent_api_messages.get_agent_next_message(room_id)
        assert nxt is not None and nxt.data.id == asked.data.id
        claim = await agent.agent_api_messages.mark_agent_message_processing(room_id, asked.data.id)
        assert claim is not None and claim.data.status == "processing"
        done = await agent.agent_api_messages.mark_agent_message_processed(room_id, asked.data.id)
        assert done is not None and done.data.status == "processed"
        assert await agent.agent_api_messages.get_agent_next_message(room_id) is None

        context = await agent.agent_api_context.get_agent_chat_context(room_id)
        assert [m.content for m in context.data][-1].endswith("hi echo")
        timeline = await person.human_api_messages.list_my_chat_messages(room_id)
        assert any(m.content == "hello" or m.content.endswith("hello") for m in timeline.data)
        profile = await person.human_api_profile.get_my_profile()
        assert profile.data.handle == "alice"
        agents = await person.human_api_agents.list_my_agents()
        assert [a.id for a in agents.data] == [echo.id]

        data = b"hello file\n"
        stored = await agent.agent_api_files.upload_agent_chat_file(
            room_id,
            request=data,
            request_options={
                "additional_headers": {
                    "x-file-name": "note.txt",
                    "content-type": "text/plain",
                    "x-file-sha256": hashlib.sha256(data).hexdigest(),
                }
            },
        )
        chunks = await agent.agent_api_files.download_agent_chat_file(room_id, stored.data.id)
        assert b"".join([c async for c in chunks]) == data
        part = await agent.agent_api_files.download_agent_chat_file(
            room_id, stored.data.id, range="bytes=0-4"
        )
        assert b"".join([c async for c in part]) == b"hello"

        with pytest.raises(ApiError) as refused:
            await agent.agent_api_chats.get_agent_chat(
                "00000000-0000-0000-0000-000000000000", request_options=NO_RETRY_REQUEST_OPTIONS
            )
        assert refused.value.status_code == 404
        assert refused.value.code == "not_found"
    finally:
        await agent.aclose()
        await person.aclose()


async def test_the_clients_headers_go_with_every_request() -> None:
    import httpx

    seen: list[httpx.Headers] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers)
        return httpx.Response(200, json={"data": {"id": "a1", "name": "Echo", "handle": "echo"}})

    client = AsyncRestClient(
        base_url="http://band.test",
        api_key="band_a_key",
        headers={"X-Trace": "t-1"},
        transport=httpx.MockTransport(answer),
    )
    try:
        await client.agent_api_identity.get_agent_me()
    finally:
        await client.aclose()
    assert [(h["x-trace"], h["x-api-key"]) for h in seen] == [("t-1", "band_a_key")]
