"""People (admins) and Contacts pages."""

from __future__ import annotations

import httpx
from web_testkit import act, make_admin, sign_in, token

from band_server.context import Platform
from band_server.services.identity.web_sessions import COOKIE_NAME
from conftest import Seeded, make_user


async def test_an_admin_creates_a_person_whose_key_is_shown_once(
    client: httpx.AsyncClient, platform: Platform
) -> None:
    _, key = await make_admin(platform)
    await sign_in(client, key)
    page = await client.get("/rooms")
    assert 'href="/people"' in page.text
    csrf = await token(client, "/people")

    made = await act(client, "/people", {"name": "Carol", "handle": "carol"}, csrf=csrf)

    assert made.status_code == 201, made.text
    carol_key = made.json()["api_key"]
    me = await client.get("/api/v1/me/profile", headers={"X-API-Key": carol_key})
    assert me.status_code == 200 and me.json()["data"]["handle"] == "carol"
    listing = await client.get("/people")
    assert "Carol" in listing.text and "@carol" in listing.text and carol_key not in listing.text
    dup = await act(client, "/people", {"name": "Carol", "handle": "carol"}, csrf=csrf)
    assert dup.status_code == 409
    bad = await act(client, "/people", {"name": "X", "handle": "No Spaces"}, csrf=csrf)
    assert bad.status_code == 422 and "/user/handle" in bad.json()["error"]["details"]


async def test_only_an_admin_sees_or_changes_people(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    _, bob_key = await make_user(platform, "bob", "Bob")  # alice, the first person, is admin
    await sign_in(client, bob_key)
    assert 'href="/people"' not in (await client.get("/rooms")).text
    assert (await client.get("/people")).status_code == 403
    csrf = await token(client)
    made = await act(client, "/people", {"name": "Eve", "handle": "eve"}, csrf=csrf)
    assert made.status_code == 403 and made.json()["error"]["code"] == "admin_required"
    refused = await act(client, f"/people/{seeded.user_id}/disable", csrf=csrf)
    assert refused.status_code == 403


async def test_a_disabled_persons_keys_and_sessions_stop_at_once(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    headers = {"X-API-Key": seeded.user_key}
    assert (await client.get("/api/v1/me/profile", headers=headers)).status_code == 200
    async with httpx.AsyncClient(
        transport=client._transport, base_url="http://band.test"
    ) as alice_browser:
        await sign_in(alice_browser, seeded.user_key)
        assert (await alice_browser.get("/rooms")).status_code == 200

        admin_id, admin_key = await make_admin(platform)
        await sign_in(client, admin_key)
        csrf = await token(client, "/people")
        own = await act(client, f"/people/{admin_id}/disable", csrf=csrf)
        assert own.status_code == 422  # an admin can't lock themself out

        off = await act(client, f"/people/{seeded.user_id}/disable", csrf=csrf)

        assert off.status_code == 200 and off.json()["disabled"] is True
        assert (await client.get("/api/v1/me/profile", headers=headers)).status_code == 401
        assert (await alice_browser.get("/rooms")).headers["location"] == "/login"
        assert (await sign_in(alice_browser, seeded.user_key)).status_code == 401
        assert "Disabled" in (await client.get("/people")).text

        on = await act(client, f"/people/{seeded.user_id}/enable", csrf=csrf)
        assert on.status_code == 200 and on.json()["disabled"] is False
        assert (await client.get("/api/v1/me/profile", headers=headers)).status_code == 200
        alice_browser.cookies.delete(COOKIE_NAME)
        assert (await sign_in(alice_browser, seeded.user_key)).status_code == 303


async def test_contact_requests_are_sent_approved_and_rejected(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    _, bob_key = await make_user(platform, "bob", "Bob")
    _, carol_key = await make_user(platform, "carol", "Carol")
    for key in (bob_key, carol_key):
        async with httpx.AsyncClient(transport=client._transport, base_url="http://band.test") as c:
            await sign_in(c, key)
            sent = await act(
                c, "/contacts/requests", {"handle": "alice", "message": "hi!"}, csrf=await token(c)
            )
            assert sent.status_code == 200 and sent.json()["status"] == "pending"

    await sign_in(client, seeded.user_key)
    page = await client.get("/contacts")
    assert "Approve Bob" in page.text and "Reject Carol" in page.text and "hi!" in page.text
    csrf = await token(client, "/contacts")
    received = (
        await client.get("/api/v1/me/contacts/requests", headers={"X-API-Key": seeded.user_key})
    ).json()["data"]
    by_name = {r["from_name"]: r["id"] for r in received}

    approved = await client.post(
        f"/contacts/requests/{by_name['Bob']}/approve", data={"csrf": csrf}
    )
    assert approved.status_code == 303 and approved.headers["location"].endswith("approved")
    await act(client, f"/contacts/requests/{by_name['Carol']}/reject", csrf=csrf)

    page = await client.get("/contacts")
    assert "@bob" in page.text and "Approve" not in page.text and "@carol" not in page.text
    again = await act(client, f"/contacts/requests/{by_name['Carol']}/approve", csrf=csrf)
    assert again.status_code == 409
    # Bob, now a contact, can be put in a room from the Create room dialog.
    assert "@bob" in (await client.get("/rooms")).text
