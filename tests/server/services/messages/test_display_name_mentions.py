"""A mention written as the display name, spaces included, becomes the one token everywhere.

Seed 004 tells a person to type ``@Parlant Agent how do I reset my password?``. Whether a
person posts it through the human API (with or without an explicit mention), through the web
form, or an agent writes ``@Alice`` in a reply that mentions Alice, the stored text carries one
``@[[uuid]]`` token where the name was, and the agent reads the mention once.
"""

from __future__ import annotations

import re

import httpx
import pytest
from agent_testkit import key, make_room, room_log

from band.runtime.history import rewrite_mentions
from band_server.context import Platform
from band_server.services.messages.mentions import (
    InlineMentions,
    ResolvedMention,
    mentions_in_text,
    normalise_content,
)
from band_server.services.rooms.membership import Member
from band_server.store.models import Participant
from conftest import Seeded, make_agent, make_user

QUESTION = "how do I reset my password?"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def member(pid: str, name: str, handle: str, ptype: str = "User") -> Member:
    return Member(Participant(participant_id=pid, participant_type=ptype), name, handle, None)


BOB = member("b0b", "Bob", "bob")
BOB_SMITH = member("b5m", "Bob Smith", "bsmith")
PARLANT = member("p1", "Parlant Agent", "alice/parlant-agent", "Agent")
TWIN_A = member("t1", "Twin", "alice/twin", "Agent")
TWIN_B = member("t2", "Twin", "bob/twin", "Agent")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (f"@Parlant Agent {QUESTION}", ["p1"]),
        (f"@parlant agent, {QUESTION}", ["p1"]),
        (f"@Parlant-Agent {QUESTION}", ["p1"]),
        ("@Bob Smith and @Bob", ["b5m", "b0b"]),
        ("@Bobby is nobody", []),
        ("@Twin is ambiguous, @alice/twin is not", ["t1"]),
        ("mail parlant@Parlant Agent.dev", []),
    ],
)
def test_inline_names_are_found_longest_first(content: str, expected: list[str]) -> None:
    roster = [BOB, BOB_SMITH, PARLANT, TWIN_A, TWIN_B]
    assert [m.id for m in InlineMentions(roster).find(content)] == expected


def test_the_sender_never_mentions_themself_inline() -> None:
    assert mentions_in_text("@Bob and @Bob Smith", [BOB, BOB_SMITH], "b0b")[0].id == "b5m"


def test_only_the_mentioned_member_is_rewritten_and_longer_names_stay_whole() -> None:
    content = normalise_content("@Bob Smith, ask @Bob", [ResolvedMention(BOB)], [BOB, BOB_SMITH])
    assert content == "@Bob Smith, ask @[[b0b]]"


async def _parlant_room(platform: Platform, seeded: Seeded) -> tuple[str, str, str]:
    agent_id, agent_key, _ = await make_agent(platform, seeded.user_id, "Parlant Agent")
    room = await make_room(platform, seeded.user_id, agent_id)
    return room, agent_id, agent_key


async def _agent_reads(
    client: httpx.AsyncClient, room: str, agent_key: str
) -> tuple[str, list[dict[str, object]]]:
    """The next message as the agent's SDK renders it, and its mentions."""
    url = f"/api/v1/agent/chats/{room}"
    nxt = await client.get(f"{url}/messages/next", headers=key(agent_key))
    assert nxt.status_code == 200, nxt.text
    message = nxt.json()["data"]
    people = await client.get(f"{url}/participants", headers=key(agent_key))
    roster = {p["id"]: p for p in people.json()["data"]}
    return rewrite_mentions(message["content"], roster), message["metadata"]["mentions"]


@pytest.mark.parametrize("explicit", [False, True], ids=["text-only", "with-mentions-list"])
async def test_a_person_typing_the_display_name_mentions_the_agent_once(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, explicit: bool
) -> None:
    room, agent_id, agent_key = await _parlant_room(platform, seeded)
    mentions = [{"id": agent_id}] if explicit else []
    body = {"message": {"content": f"@Parlant Agent {QUESTION}", "mentions": mentions}}
    sent = await client.post(
        f"/api/v1/me/chats/{room}/messages", headers=key(seeded.user_key), json=body
    )
    assert sent.status_code == 201, sent.text
    assert [r["id"] for r in sent.json()["data"]["recipients"]] == [agent_id]

    stored = (await room_log(platform, room)).items[-1].content
    assert stored == f"@[[{agent_id}]] {QUESTION}"
    text, mentioned = await _agent_reads(client, room, agent_key)
    assert text == f"@alice/parlant-agent {QUESTION}"
    assert [m["id"] for m in mentioned] == [agent_id]


async def test_the_web_form_turns_the_display_name_into_one_token(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room, agent_id, agent_key = await _parlant_room(platform, seeded)
    form = await client.get("/login")
    token = CSRF.search(form.text)
    assert token
    await client.post("/login", data={"api_key": seeded.user_key, "csrf": token[1]})
    page = await client.get(f"/rooms/{room}")
    token = CSRF.search(page.text)
    assert token
    posted = await client.post(
        f"/rooms/{room}/messages", data={"content": f"@Parlant Agent {QUESTION}", "csrf": token[1]}
    )
    assert posted.status_code in (200, 201, 303), posted.text
    assert (await room_log(platform, room)).items[-1].content == f"@[[{agent_id}]] {QUESTION}"
    assert (await _agent_reads(client, room, agent_key))[0] == f"@alice/parlant-agent {QUESTION}"


async def test_an_agent_naming_a_person_it_mentions_writes_one_token(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, _ = await make_user(platform, "mary", "Mary Jane")
    room = await make_room(platform, seeded.user_id, seeded.agent_id, bob_id)
    body = {"message": {"content": "@Mary Jane here you go", "mentions": [{"id": bob_id}]}}
    sent = await client.post(
        f"/api/v1/agent/chats/{room}/messages", headers=key(seeded.agent_key), json=body
    )
    assert sent.status_code == 201, sent.text
    assert (await room_log(platform, room)).items[-1].content == f"@[[{bob_id}]] here you go"

    # An agent's text alone never routes: without the mentions list, Alice is not named.
    body = {"message": {"content": "@Alice hi", "mentions": [{"id": bob_id}]}}
    await client.post(
        f"/api/v1/agent/chats/{room}/messages", headers=key(seeded.agent_key), json=body
    )
    assert (await room_log(platform, room)).items[-1].content == f"@[[{bob_id}]] @Alice hi"
