"""The web app for people: sign-in, rooms, posting with CSRF, escaping, live updates."""

from __future__ import annotations

import json
import re

import httpx
from socket_testkit import TIMEOUT, PhxClient, make_room, seed, socket_url
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from band.protocol.messages import EventCreateFields
from band_server.context import Platform
from band_server.services import accounts, messages, rooms
from band_server.services.unit import write
from band_server.services.web_sessions import COOKIE_NAME
from conftest import LiveServer, Seeded, make_user

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(page: httpx.Response) -> str:
    found = CSRF.search(page.text)
    assert found, page.text
    return found[1]


async def sign_in(client: httpx.AsyncClient, key: str) -> httpx.Response:
    """Open the sign-in form, then send it with the key (as a browser would)."""
    form = await client.get("/")
    return await client.post("/login", data={"api_key": key, "csrf": csrf_of(form)})


async def stored(platform: Platform, room_id: str) -> list[str]:
    async with platform.db.read() as session:
        room = await rooms.get_room(session, room_id)
        page = await messages.list_messages(session, room)
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

    assert signed.status_code == 303 and signed.headers["location"] == "/"
    cookie = signed.headers["set-cookie"].lower()
    assert f"{COOKIE_NAME}=" in cookie and "httponly" in cookie and "samesite=lax" in cookie
    home = await client.get("/")
    assert "Test room" in home.text and "Bob secret plans" not in home.text
    assert "@alice" in home.text


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


async def test_another_persons_room_is_not_found(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, _ = await make_user(platform, "bob")
    bobs = await make_room(platform, bob_id)
    await sign_in(client, seeded.user_key)
    page = await client.get(f"/rooms/{bobs}")
    assert page.status_code == 404 and "<h1>404</h1>" in page.text
    home = await client.get("/")
    posted = await client.post(
        f"/rooms/{bobs}/messages", data={"content": "hi", "csrf": csrf_of(home)}
    )
    assert posted.status_code == 404 and await stored(platform, bobs) == []


async def test_posting_through_the_form_needs_the_csrf_token(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room = await make_room(platform, seeded.user_id, seeded.agent_id)
    await sign_in(client, seeded.user_key)
    page = await client.get(f"/rooms/{room}")
    token = csrf_of(page)

    for data in ({"content": "forged"}, {"content": "forged", "csrf": "wrong"}):
        refused = await client.post(f"/rooms/{room}/messages", data=data)
        assert refused.status_code == 403
    assert await stored(platform, room) == []

    sent = await client.post(
        f"/rooms/{room}/messages", data={"content": f"hello @{seeded.agent_handle}", "csrf": token}
    )
    assert sent.status_code == 303 and sent.headers["location"] == f"/rooms/{room}"
    # Stored with the mention normalised to its id, shown with the handle again.
    assert await stored(platform, room) == [f"hello @[[{seeded.agent_id}]]"]
    assert f"hello @{seeded.agent_handle}" in (await client.get(f"/rooms/{room}")).text


async def test_content_is_escaped_and_events_are_folded(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room_id = await make_room(platform, seeded.user_id, seeded.agent_id)
    async with write(platform) as uow:
        agent = accounts.agent_principal(
            await accounts.owned_agent(uow.session, seeded.user_id, seeded.agent_id)
        )
        room = await rooms.get_room(uow.session, room_id)
        call = {"name": "<img src=x onerror=alert(1)>", "args": {}}
        await messages.post_event(
            uow, agent, room, EventCreateFields(content=json.dumps(call), message_type="tool_call")
        )
    await sign_in(client, seeded.user_key)
    page = await client.get(f"/rooms/{room_id}")
    await client.post(
        f"/rooms/{room_id}/messages",
        data={
            "content": f"<script>alert(1)</script> @[[{seeded.agent_id}]]",
            "csrf": csrf_of(page),
        },
    )

    page = await client.get(f"/rooms/{room_id}")
    assert "<script>alert(1)" not in page.text and "<img src=x" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert f"@{seeded.agent_handle}" in page.text and f"@[[{seeded.agent_id}]]" not in page.text
    assert '<span class="kind">tool_call</span> <span class="label">&lt;img' in page.text
    assert page.text.count("<script") == 1  # only the page's own /static/app.js


async def test_pages_carry_security_headers(client: httpx.AsyncClient) -> None:
    for path in ("/", "/static/app.js", "/static/app.css"):
        response = await client.get(path)
        assert response.status_code == 200
        csp = response.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert response.headers["x-content-type-options"] == "nosniff"
    assert "javascript" in (await client.get("/static/app.js")).headers["content-type"]
    assert (await client.get("/static/nope.js")).status_code == 404


async def test_signing_out_ends_the_session(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room = await make_room(platform, seeded.user_id)
    await sign_in(client, seeded.user_key)
    token = client.cookies[COOKIE_NAME]
    home = await client.get("/")
    assert (await client.post("/logout", data={})).status_code == 403

    out = await client.post("/logout", data={"csrf": csrf_of(home)})

    assert out.status_code == 303 and COOKIE_NAME not in client.cookies
    assert "Sign in" in (await client.get("/")).text
    client.cookies.set(COOKIE_NAME, token)  # the old cookie is worthless now
    assert (await client.get(f"/rooms/{room}")).headers["location"] == "/"


async def test_the_socket_accepts_a_session_cookie_and_streams_messages(
    live_server: LiveServer,
) -> None:
    s = await seed(live_server.platform)
    room = await make_room(live_server.platform, s.user_id, s.agent_id)
    async with httpx.AsyncClient(base_url=live_server.url) as client:
        await sign_in(client, s.user_key)
        cookie = f"{COOKIE_NAME}={client.cookies[COOKIE_NAME]}"
        token = csrf_of(await client.get(f"/rooms/{room}"))
        url = socket_url(live_server.ws_url)
        async with connect(
            url, additional_headers={"Cookie": cookie}, open_timeout=TIMEOUT, proxy=None
        ) as ws:
            c = PhxClient(ws)
            assert (await c.join(f"chat_room:{room}"))[4]["status"] == "ok"
            assert (await c.heartbeat())[4]["status"] == "ok"
            await client.post(f"/rooms/{room}/messages", data={"content": "live", "csrf": token})
            frame = await c.recv()
            assert frame[2:4] == [f"chat_room:{room}", "message_created"]
            assert frame[4]["content"] == "live" and frame[4]["sender_id"] == s.user_id

        evil = {"Cookie": cookie, "Origin": "http://evil.example"}
        try:
            async with connect(url, additional_headers=evil, open_timeout=TIMEOUT, proxy=None):
                raise AssertionError("a cross-site socket was accepted")
        except InvalidStatus as exc:
            assert exc.response.status_code == 401
