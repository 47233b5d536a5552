"""``band.client.rest``'s declared table: each row becomes a method with band-client-rest's
signature, and the request it sends is built from the row (path, query, body)."""

from __future__ import annotations

import inspect
import json
from typing import Any

import httpx
import pytest

from band.client.rest import AsyncRestClient, ChatEventRequest, ChatRoomRequest


def recording_client() -> tuple[AsyncRestClient, list[httpx.Request]]:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"data": {"id": "x"}, "metadata": {"total_pages": 1}})

    client = AsyncRestClient(
        base_url="http://band.test", api_key="k", transport=httpx.MockTransport(answer)
    )
    return client, sent


def body(request: httpx.Request) -> Any:
    return json.loads(request.content) if request.content else None


def test_a_rows_method_has_positional_path_parameters_and_keyword_only_fields() -> None:
    client, _ = recording_client()
    signature = inspect.signature(client.agent_api_messages.mark_agent_message_failed)
    assert [(p.name, p.kind.name, p.default) for p in signature.parameters.values()] == [
        ("chat_id", "POSITIONAL_OR_KEYWORD", inspect.Parameter.empty),
        ("id", "POSITIONAL_OR_KEYWORD", inspect.Parameter.empty),
        ("error", "KEYWORD_ONLY", inspect.Parameter.empty),
        ("request_options", "KEYWORD_ONLY", None),
    ]
    assert client.agent_api_messages.list_agent_messages.__doc__.startswith("Messages addressed")


async def test_path_query_and_body_come_from_the_row_and_none_is_not_sent() -> None:
    client, sent = recording_client()
    api = client.agent_api_messages
    await api.list_agent_messages("room-1", status="delivered", limit=5)
    await api.mark_agent_message_failed("r1", "m1", error="boom")
    await client.agent_api_contacts.remove_agent_contact(handle="bob")
    await client.human_api_agents.list_my_agents(name="Echo", page=None)
    assert [(r.method, r.url.path, dict(r.url.params), body(r)) for r in sent] == [
        (
            "GET",
            "/api/v1/agent/chats/room-1/messages",
            {"status": "delivered", "limit": "5"},
            None,
        ),
        ("POST", "/api/v1/agent/chats/r1/messages/m1/failed", {}, {"error": "boom"}),
        ("POST", "/api/v1/agent/contacts/remove", {}, {"handle": "bob"}),
        ("GET", "/api/v1/me/agents", {"name": "Echo"}, None),
    ]


async def test_a_request_model_goes_under_its_keyword_whole_only_where_the_row_says() -> None:
    client, sent = recording_client()
    await client.agent_api_chats.create_agent_chat(chat=ChatRoomRequest(title="Lab"))
    event = ChatEventRequest(content="c", message_type="thought")
    await client.agent_api_events.create_agent_chat_event("r1", event=event)
    assert body(sent[0]) == {"chat": {"title": "Lab"}}  # body(): None left out
    assert body(sent[1]) == {"event": {"content": "c", "message_type": "thought", "metadata": None}}


async def test_answers_keep_their_shape_and_a_missing_required_field_is_a_type_error() -> None:
    client, _ = recording_client()
    rooms = await client.agent_api_chats.list_agent_chats(page=1)
    assert rooms.metadata is not None and rooms.metadata.total_pages == 1
    assert await client.human_api_memories.delete_user_memory("m1") is None
    with pytest.raises(TypeError):
        await client.agent_api_contacts.add_agent_contact()  # handle is required
