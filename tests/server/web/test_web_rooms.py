"""The Rooms page: Create room with agents and people, unread counts, participants."""

from __future__ import annotations

import httpx
from agent_testkit import recording
from web_testkit import JSON, act, sign_in, token

from band_sdk_core import validate_event_payload
from band_server.context import Platform
from band_server.services.contacts import requests as contacts
from band_server.services.identity import accounts
from band_server.services.unit import write
from conftest import Seeded, make_user


async def _befriend(platform: Platform, a: str, b: str) -> None:
    """``a`` asks ``b`` to be a contact and ``b`` approves."""
    async with platform.db.read() as session:
        one = accounts.user_principal(await accounts.get_user(session, a))
        two = accounts.user_principal(await accounts.get_user(session, b))
    async with write(platform) as uow:
        request_id, _ = await contacts.add_contact(uow, one, handle=two.handle, message=None)
    async with write(platform) as uow:
        await contacts.respond(uow, two, action="approve", request_id=request_id)


async def _signed_in_with_bob(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> tuple[str, str, str]:
    """Bob is the seeded person's contact; the client is signed in as that person.
    Returns Bob's id and key and the session's CSRF token."""
    bob_id, bob_key = await make_user(platform, "bob", "Bob")
    await _befriend(platform, seeded.user_id, bob_id)
    await sign_in(client, seeded.user_key)
    return bob_id, bob_key, await token(client)


async def test_create_room_with_an_agent_and_a_person_opens_it(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, bob_key, csrf = await _signed_in_with_bob(client, platform, seeded)
    page = await client.get("/rooms")
    assert "<legend>Agents</legend>" in page.text and "<legend>People</legend>" in page.text

    made = await act(
        client, "/rooms", {"title": "", "participant": [seeded.agent_id, bob_id]}, csrf=csrf
    )

    assert made.status_code == 201, made.text
    url = made.json()["url"]
    state = (await client.get(f"{url}/timeline", headers=JSON)).json()
    assert state["room"]["title"] == "Echo, Bob"
    assert [p["id"] for p in state["participants"]] == [seeded.user_id, seeded.agent_id, bob_id]
    bob_rooms = await client.get("/api/v1/me/chats", headers={"X-API-Key": bob_key})
    assert [r["id"] for r in bob_rooms.json()["data"]] == [state["room"]["id"]]


async def test_every_room_added_of_an_untitled_room_carries_its_name(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    """The owner's list, each guest's list and the agent's SDK all hear the same name."""
    bob_id, bob_key, csrf = await _signed_in_with_bob(client, platform, seeded)
    with recording(platform) as rec:
        made = await act(
            client, "/rooms", {"participant": [seeded.agent_id, "bob", bob_id]}, csrf=csrf
        )
    assert made.status_code == 201, made.text
    room_id = made.json()["id"]

    added = {b.topic: b.payload for b in rec.items if b.event == "room_added"}
    assert set(added) == {
        f"user_rooms:{seeded.user_id}",
        f"agent_rooms:{seeded.agent_id}",
        f"user_rooms:{bob_id}",
    }
    for payload in added.values():
        assert payload["id"] == room_id and payload["title"] == "Echo, Bob"
        assert validate_event_payload("room_added", payload)["title"] == "Echo, Bob"
    seen_by_bob = await client.get(f"/api/v1/me/chats/{room_id}", headers={"X-API-Key": bob_key})
    assert seen_by_bob.json()["data"]["title"] == "Echo, Bob"
    seen_by_echo = await client.get(
        f"/api/v1/agent/chats/{room_id}", headers={"X-API-Key": seeded.agent_key}
    )
    assert seen_by_echo.json()["data"]["title"] == "Echo, Bob"
    assert ">Echo, Bob<" in (await client.get("/rooms")).text


async def test_a_stranger_cannot_be_put_in_a_room(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    stranger, _ = await make_user(platform, "mallory")
    await sign_in(client, seeded.user_key)
    made = await act(client, "/rooms", {"participant": stranger}, csrf=await token(client))
    assert made.status_code == 404
    assert "Test room" not in (await client.get("/rooms")).text


async def test_unread_counts_others_texts_until_read(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, bob_key, csrf = await _signed_in_with_bob(client, platform, seeded)
    made = await act(client, "/rooms", {"title": "Chat", "participant": bob_id}, csrf=csrf)
    room = made.json()["id"]
    bob = {"X-API-Key": bob_key}
    for text in ("one", "two"):
        sent = await client.post(
            f"/api/v1/me/chats/{room}/messages", headers=bob, json={"message": {"content": text}}
        )
        assert sent.status_code == 201
    await act(client, f"/rooms/{room}/messages", {"content": "mine"}, csrf=csrf)

    assert 'aria-label="2 unread"' in (await client.get("/rooms")).text
    # The same list as JSON, for the page's script when the socket says something changed.
    listed = (await client.get("/rooms", headers=JSON)).json()["rooms"]
    assert [(r["id"], r["title"], r["unread"]) for r in listed] == [(room, "Chat", 2)]
    assert listed[0]["last_activity"].endswith("+00:00")
    marked = await act(client, f"/rooms/{room}/read", {"seq": "999"}, csrf=csrf)
    assert marked.json() == {"last_read_seq": 3}
    assert "unread" not in (await client.get("/rooms")).text
    back = await act(client, f"/rooms/{room}/read", {"seq": "1"}, csrf=csrf)
    assert back.status_code == 200
    assert "unread" not in (await client.get("/rooms")).text  # the marker never moves back


async def test_room_rows_preview_the_last_text_message_as_plain_text(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, bob_key, csrf = await _signed_in_with_bob(client, platform, seeded)
    made = await act(
        client, "/rooms", {"title": "Chat", "participant": [bob_id, seeded.agent_id]}, csrf=csrf
    )
    room = made.json()["id"]
    quiet = (await act(client, "/rooms", {"title": "Quiet"}, csrf=csrf)).json()["id"]
    bob = {"X-API-Key": bob_key}
    text = f"<b>bold</b>  @{seeded.user_handle}\n look   here " + "x" * 200
    sent = await client.post(
        f"/api/v1/me/chats/{room}/messages", headers=bob, json={"message": {"content": text}}
    )
    assert sent.status_code == 201, sent.text
    # An event after it changes nothing: the preview is the newest text message.
    thought = await client.post(
        f"/api/v1/agent/chats/{room}/events",
        headers={"X-API-Key": seeded.agent_key},
        json={"event": {"content": "pondering", "message_type": "thought"}},
    )
    assert thought.status_code == 201, thought.text

    listed = {r["id"]: r for r in (await client.get("/rooms", headers=JSON)).json()["rooms"]}
    preview = listed[room]["preview"]
    assert preview.startswith("Bob: <b>bold</b> @Alice look here xxx"), preview
    assert preview.endswith("…") and len(preview) == len("Bob: ") + 120
    assert "@[[" not in preview and listed[quiet]["preview"] is None
    html = (await client.get("/rooms")).text
    assert "Bob: &lt;b&gt;bold&lt;/b&gt; @Alice look here" in html and "<b>bold" not in html
    assert html.count('class="room-preview"') == 1  # the quiet room shows none


async def test_participants_are_added_and_removed_from_the_room_page(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    await sign_in(client, seeded.user_key)
    csrf = await token(client)
    room = (await act(client, "/rooms", {"title": "Lab"}, csrf=csrf)).json()["id"]
    state = (await client.get(f"/rooms/{room}/timeline", headers=JSON)).json()
    assert [p["id"] for p in state["addable"]] == [seeded.agent_id]

    added = await act(
        client, f"/rooms/{room}/participants", {"participant": seeded.agent_id}, csrf=csrf
    )
    assert added.status_code == 201
    state = (await client.get(f"/rooms/{room}/timeline", headers=JSON)).json()
    assert state["addable"] == [] and len(state["participants"]) == 2

    removed = await act(client, f"/rooms/{room}/participants/{seeded.agent_id}/remove", csrf=csrf)
    assert removed.status_code == 200
    state = (await client.get(f"/rooms/{room}/timeline", headers=JSON)).json()
    assert [p["id"] for p in state["participants"]] == [seeded.user_id]


async def test_the_board_panel_reads_the_goal_and_active_tasks(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    _, bob_key, csrf = await _signed_in_with_bob(client, platform, seeded)
    room = (await act(client, "/rooms", {"title": "Plan"}, csrf=csrf)).json()["id"]
    empty = (await client.get(f"/rooms/{room}/board", headers=JSON)).json()
    assert (empty["board"]["goal_title"], empty["tasks"], empty["has_more"]) == (None, [], False)

    alice = {"X-API-Key": seeded.user_key}
    base = f"/api/v1/me/chats/{room}"
    await client.put(f"{base}/board", headers=alice, json={"goal_title": "Ship v1"})
    for subject in ("Write", "Review"):
        made = await client.post(f"{base}/tasks", headers=alice, json={"subject": subject})
        assert made.status_code == 201, made.text
    await client.post(f"{base}/tasks/1", headers=alice, json={"status": "in_progress"})
    await client.post(f"{base}/tasks/2", headers=alice, json={"state": "cancelled"})

    shown = (await client.get(f"/rooms/{room}/board", headers=JSON)).json()
    assert shown["board"]["goal_title"] == "Ship v1"
    assert [(t["number"], t["subject"], t["overall_status"]) for t in shown["tasks"]] == [
        (1, "Write", "in_progress")
    ]
    # Bob is Alice's contact but not in the room: the same 404 as for a room that isn't there.
    client.cookies.clear()
    assert (await client.get(f"/rooms/{room}/board", headers=JSON)).status_code == 401
    await sign_in(client, bob_key)
    assert (await client.get(f"/rooms/{room}/board", headers=JSON)).status_code == 404
