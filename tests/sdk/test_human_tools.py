"""HumanTools (band.runtime.tools.human): a person's tools against the real platform app.

Rooms, participants, messages addressed by name, contacts, profile and agents, with the
text answers the MCP tools give for refusals that need no request."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from band.client.rest import AsyncRestClient
from band.runtime.tools import HUMAN_SURFACE_CONTACT_TOOL_NAMES, HumanTools, iter_tool_definitions
from band.runtime.tools.types import Surface
from conftest import Seeded


@pytest.fixture
async def human(app: FastAPI, seeded: Seeded) -> AsyncIterator[HumanTools]:
    rest = AsyncRestClient(
        base_url="http://band.test",
        api_key=seeded.user_key,
        transport=httpx.ASGITransport(app=app),
    )
    yield HumanTools(rest)
    await rest.aclose()


async def test_a_person_opens_a_room_brings_an_agent_and_addresses_it_by_name(
    human: HumanTools, seeded: Seeded
) -> None:
    room = await human.create_my_chat_room()
    chat_id = room.data.id
    added = await human.add_my_chat_participant(chat_id, seeded.agent_id)
    assert added == f"Added participant: {seeded.agent_id}"
    sent = await human.send_my_chat_message(chat_id, "hello there", "echo")
    assert [r.id for r in sent.data.recipients] == [seeded.agent_id]
    listed = await human.list_my_chat_messages(chat_id)
    [message] = listed.data
    assert message.content.endswith("hello there")  # the platform prefixes the mention
    participants = await human.list_my_chat_participants(chat_id)
    assert {p.id for p in participants.data} == {seeded.user_id, seeded.agent_id}
    removed = await human.remove_my_chat_participant(chat_id, seeded.agent_id)
    assert removed == f"Removed participant: {seeded.agent_id}"


async def test_an_unknown_recipient_sends_nothing_and_lists_who_is_there(
    human: HumanTools, seeded: Seeded
) -> None:
    chat_id = (await human.create_my_chat_room()).data.id
    await human.add_my_chat_participant(chat_id, seeded.agent_id)
    answer = await human.send_my_chat_message(chat_id, "hi", "echo, nobody")
    assert isinstance(answer, str)
    assert answer.startswith("Error: Not found: nobody. Available: ")
    assert "echo" in answer
    assert await human.send_my_chat_message(chat_id, "hi", " , ") == (
        "Error: recipients cannot be empty"
    )
    assert (await human.list_my_chat_messages(chat_id)).data == []


async def test_refusals_that_need_no_request_answer_with_text(human: HumanTools) -> None:
    assert await human.remove_my_contact() == "Error: Either contact_id or handle must be provided"
    assert await human.update_my_profile() == (
        "Error: At least one field (first_name or last_name) must be provided"
    )


async def test_profile_agents_and_handles(human: HumanTools, seeded: Seeded) -> None:
    updated = await human.update_my_profile(first_name="Ada")
    assert updated.data.first_name == "Ada"
    assert (await human.get_my_profile()).data.first_name == "Ada"
    agents = await human.list_my_agents()
    assert seeded.agent_id in {a.id for a in agents.data}
    registered = await human.register_my_agent("Scout", "Finds things")
    assert registered.data.credentials.api_key
    resolved = await human.resolve_handle(seeded.agent_handle)
    assert resolved.data.id == seeded.agent_id


def test_the_person_surface_is_registered_with_its_capability_gate() -> None:
    person = {d.name for d in iter_tool_definitions(surface=Surface.HUMAN)}
    assert "band_send_my_chat_message" in person
    assert person >= HUMAN_SURFACE_CONTACT_TOOL_NAMES  # contacts are on by default
    assert "band_list_user_memories" not in person  # memory is opt-in
    for definition in iter_tool_definitions(surface=Surface.HUMAN, capabilities=None):
        assert callable(getattr(HumanTools, definition.method_name))
