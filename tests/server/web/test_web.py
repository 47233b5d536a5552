"""The web app for people: sign-in, pages, CSRF on every action, cookies, static files."""

from __future__ import annotations

import hashlib
import re
from importlib import resources

import httpx
import pytest
from socket_testkit import TIMEOUT, PhxClient, make_room, seed, socket_url
from web_testkit import JSON, act, csrf_of, sign_in, token
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from band_server.context import Platform
from band_server.services.identity import accounts
from band_server.services.identity.web_sessions import COOKIE_NAME
from band_server.services.messages import posts as messages
from band_server.services.rooms import membership as rooms
from band_server.web.render import PHOENIX_VERSION
from conftest import LiveServer, Seeded, make_user


async def stored(platform: Platform, room_id: str) -> list[str]:
    async with platform.db.read() as session:
        room = await rooms.get_room(session, room_id)
        page = await messages.list_messages(session, room, messages.Window())
    return [m.content for m in page.items]


async def test_signing_in_with_a_persons_key_shows_only_their_rooms(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, _ = await make_user(platform, "bob")
    await make_room(platform, seeded.user_id)
    async with platform.db.write() as session:
        bob = accounts.user_principal(await accounts.get_user(session, bob_id))
        await rooms.create_room(session, bob, title="Bob secret plans", task_id=None)

    signed = await sign_in(client, seeded.user_key)

    assert signed.status_code == 303 and signed.headers["location"] == "/rooms"
    cookie = signed.headers["set-cookie"].lower()
    assert f"{COOKIE_NAME}=" in cookie and "httponly" in cookie and "samesite=lax" in cookie
    home = await client.get("/rooms")
    assert "Test room" in home.text and "Bob secret plans" not in home.text
    assert "@alice" in home.text
    # The sidebar: Agents, Rooms, Contacts, and People for the admin (the first person).
    for label in (">Agents<", ">Rooms<", ">Contacts<"):
        assert label in home.text
    for link in ("/agents", "/rooms", "/contacts", "/people"):
        assert f'href="{link}"' in home.text


async def test_a_wrong_key_or_an_agent_key_does_not_sign_in(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    for key in ("band_u_not-a-real-key", seeded.agent_key):
        refused = await sign_in(client, key)
        assert refused.status_code == 401
        assert 'role="alert"' in refused.text and COOKIE_NAME not in client.cookies
    assert "Sign in" in (await client.get("/")).text


async def test_sign_in_without_the_form_token_is_refused(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    refused = await client.post("/login", data={"api_key": seeded.user_key})
    assert refused.status_code == 403 and COOKIE_NAME not in client.cookies


async def test_signed_out_pages_send_to_sign_in_and_the_script_gets_401(
    client: httpx.AsyncClient,
) -> None:
    for path in ("/rooms", "/agents", "/contacts", "/people", "/rooms/x"):
        page = await client.get(path)
        assert page.status_code == 303 and page.headers["location"] == "/login"
    data = await client.get("/rooms/x/timeline", headers=JSON)
    assert data.status_code == 401 and data.json()["error"]["code"] == "signed_out"
    posted = await client.post("/agents", data={"name": "Nope"}, headers=JSON)
    assert posted.status_code == 401


async def test_another_persons_room_is_not_found(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, _ = await make_user(platform, "bob")
    bobs = await make_room(platform, bob_id)
    await sign_in(client, seeded.user_key)
    page = await client.get(f"/rooms/{bobs}")
    assert page.status_code == 404 and "<h1>404</h1>" in page.text
    assert (await client.get(f"/rooms/{bobs}/timeline", headers=JSON)).status_code == 404
    csrf = await token(client)
    posted = await act(client, f"/rooms/{bobs}/messages", {"content": "hi"}, csrf=csrf)
    assert posted.status_code == 404 and await stored(platform, bobs) == []


POSTS = [
    "/logout",
    "/agents",
    "/agents/{agent}/regenerate-key",
    "/agents/{agent}/delete",
    "/rooms",
    "/rooms/{room}/messages",
    "/rooms/{room}/read",
    "/rooms/{room}/participants",
    "/rooms/{room}/participants/{agent}/remove",
    "/people",
    "/people/{user}/disable",
    "/people/{user}/enable",
    "/contacts/requests",
    "/contacts/requests/x/approve",
    "/contacts/requests/x/reject",
    "/contacts/requests/x/cancel",
]


@pytest.mark.parametrize("path", POSTS)
async def test_every_state_changing_request_needs_the_csrf_token(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, path: str
) -> None:
    room = await make_room(platform, seeded.user_id, seeded.agent_id)
    await sign_in(client, seeded.user_key)
    url = path.format(agent=seeded.agent_id, room=room, user=seeded.user_id)
    body = {"content": "forged", "name": "Forged", "handle": "forged", "participant": "x"}
    for headers in ({}, {"X-CSRF-Token": "wrong"}):
        refused = await client.post(url, data=body, headers={**JSON, **headers})
        assert refused.status_code == 403, (url, refused.text)
        assert refused.json()["error"]["code"] == "csrf_failed"
    # Nothing changed: the agent still answers with its key, the room is empty, still signed in.
    assert await stored(platform, room) == []
    agent = await client.get("/api/v1/agent/me", headers={"X-API-Key": seeded.agent_key})
    assert agent.status_code == 200
    assert (await client.get("/rooms")).status_code == 200


async def test_posting_from_the_composer_mentions_by_handle_and_by_name(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room = await make_room(platform, seeded.user_id, seeded.agent_id)
    await sign_in(client, seeded.user_key)
    csrf = csrf_of(await client.get(f"/rooms/{room}"))

    sent = await act(client, f"/rooms/{room}/messages", {"content": "hello @Echo"}, csrf=csrf)
    assert sent.status_code == 201, sent.text
    assert [r["id"] for r in sent.json()["recipients"]] == [seeded.agent_id]
    plain = await client.post(
        f"/rooms/{room}/messages", data={"content": f"and @{seeded.agent_handle}", "csrf": csrf}
    )
    assert plain.status_code == 303 and plain.headers["location"] == f"/rooms/{room}"
    assert await stored(platform, room) == [
        f"hello @[[{seeded.agent_id}]]",
        f"and @[[{seeded.agent_id}]]",
    ]
    blank = await act(client, f"/rooms/{room}/messages", {"content": "  "}, csrf=csrf)
    assert blank.status_code == 422


async def test_the_timeline_gives_messages_after_a_sequence_number_with_the_roster(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room = await make_room(platform, seeded.user_id, seeded.agent_id)
    await sign_in(client, seeded.user_key)
    csrf = await token(client)
    for text in ("one", "two", "<script>alert(1)</script>"):
        await act(client, f"/rooms/{room}/messages", {"content": text}, csrf=csrf)

    first = (await client.get(f"/rooms/{room}/timeline", headers=JSON)).json()
    assert [m["content"] for m in first["items"]] == ["one", "two", "<script>alert(1)</script>"]
    assert first["me"] == seeded.user_id
    assert {p["id"]: p["removable"] for p in first["participants"]} == {
        seeded.user_id: True,
        seeded.agent_id: True,
    }
    later = (await client.get(f"/rooms/{room}/timeline?after=2", headers=JSON)).json()
    assert [m["seq"] for m in later["items"]] == [3]
    bad = await client.get(f"/rooms/{room}/timeline?after=-1", headers=JSON)
    assert bad.status_code == 422 and "/after" in bad.json()["error"]["details"]


async def test_pages_carry_security_headers(client: httpx.AsyncClient) -> None:
    phoenix = f"/static/vendor/phoenix-{PHOENIX_VERSION}/phoenix.js"
    for path in ("/", "/login", "/static/app.js", "/static/room.js", "/static/app.css", phoenix):
        response = await client.get(path)
        assert response.status_code == 200, path
        csp = response.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert response.headers["x-content-type-options"] == "nosniff"
    assert "javascript" in (await client.get("/static/app.js")).headers["content-type"]
    assert (await client.get("/static/nope.js")).status_code == 404
    assert (await client.get("/static/../app.py")).status_code == 404


def test_the_phoenix_client_is_the_vendored_npm_package_with_its_licence() -> None:
    folder = resources.files("band_server.web").joinpath(
        "static", "vendor", f"phoenix-{PHOENIX_VERSION}"
    )
    sums = dict(
        reversed(line.split()) for line in folder.joinpath("SHA256SUMS").read_text().splitlines()
    )
    for name in ("phoenix.js", "LICENSE.md"):
        digest = hashlib.sha256(folder.joinpath(name).read_bytes()).hexdigest()
        assert sums[name] == digest, name
    assert "MIT License" in folder.joinpath("LICENSE.md").read_text()


async def test_the_room_page_loads_the_phoenix_client_and_no_inline_script(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room = await make_room(platform, seeded.user_id)
    await sign_in(client, seeded.user_key)
    page = await client.get(f"/rooms/{room}")
    assert f'src="/static/vendor/phoenix-{PHOENIX_VERSION}/phoenix.js"' in page.text
    scripts = re.findall(r"<script[^>]*>", page.text)
    assert scripts and all(re.fullmatch(r'<script src="/static/[^"]+" defer>', t) for t in scripts)


async def test_signing_out_ends_the_session(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room = await make_room(platform, seeded.user_id)
    await sign_in(client, seeded.user_key)
    session_cookie = client.cookies[COOKIE_NAME]
    rooms_page = await client.get("/rooms")
    assert (await client.post("/logout", data={})).status_code == 403

    out = await client.post("/logout", data={"csrf": csrf_of(rooms_page)})

    assert out.status_code == 303 and COOKIE_NAME not in client.cookies
    assert "Sign in" in (await client.get("/")).text
    client.cookies.set(COOKIE_NAME, session_cookie)  # the old cookie is worthless now
    assert (await client.get(f"/rooms/{room}")).headers["location"] == "/login"


async def test_the_socket_accepts_a_session_cookie_and_streams_messages(
    live_server: LiveServer,
) -> None:
    s = await seed(live_server.platform)
    room = await make_room(live_server.platform, s.user_id, s.agent_id)
    async with httpx.AsyncClient(base_url=live_server.url) as client:
        await sign_in(client, s.user_key)
        cookie = f"{COOKIE_NAME}={client.cookies[COOKIE_NAME]}"
        csrf = await token(client, f"/rooms/{room}")
        url = socket_url(live_server.ws_url)
        async with connect(
            url, additional_headers={"Cookie": cookie}, open_timeout=TIMEOUT, proxy=None
        ) as ws:
            c = PhxClient(ws)
            assert (await c.join(f"chat_room:{room}"))[4]["status"] == "ok"
            assert (await c.heartbeat())[4]["status"] == "ok"
            await act(client, f"/rooms/{room}/messages", {"content": "live"}, csrf=csrf)
            frame = await c.recv()
            assert frame[2:4] == [f"chat_room:{room}", "message_created"]
            assert frame[4]["content"] == "live" and frame[4]["sender_id"] == s.user_id

        evil = {"Cookie": cookie, "Origin": "http://evil.example"}
        try:
            async with connect(url, additional_headers=evil, open_timeout=TIMEOUT, proxy=None):
                raise AssertionError("a cross-site socket was accepted")
        except InvalidStatus as exc:
            assert exc.response.status_code == 401
