"""Delegated-token exchange: Bob asks Alice's agent Echo to read his calendar.

Bob registered the calendar as a target system and consented to Echo there. His message that
mentions Echo carries a platform-minted envelope; Echo redeems it for a short-lived token; the
calendar checks that token with the platform. Every refusal is checked as Echo would see it.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from band_server.app import create_app
from band_server.config import Settings
from band_server.context import Platform
from conftest import make_agent, make_user

TOKEN = "/api/v1/agent/delegation/token"
INTROSPECT = "/api/v1/delegation/introspect"


def h(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


@dataclass
class World:
    client: httpx.AsyncClient
    platform: Platform
    alice: str  # keys
    bob: str
    echo: str
    other: str
    echo_id: str
    other_id: str
    bob_id: str
    room: str
    calendar: str  # Bob's system (the audience)
    calendar_key: str
    consent: str

    async def bob_asks(self, text: str = "@alice/echo read my calendar") -> dict[str, Any]:
        r = await self.client.post(
            f"/api/v1/me/chats/{self.room}/messages",
            json={"message": {"content": text}},
            headers=h(self.bob),
        )
        assert r.status_code == 201, r.text
        return await self.message(r.json()["data"]["id"])

    async def message(self, message_id: str) -> dict[str, Any]:
        r = await self.client.get(
            f"/api/v1/me/chats/{self.room}/messages", params={"limit": 200}, headers=h(self.bob)
        )
        found: dict[str, Any] = next(m for m in r.json()["data"] if m["id"] == message_id)
        return found

    async def exchange(
        self, message_id: str, audience: str | None = None, key: str | None = None
    ) -> httpx.Response:
        body = {"audience": audience or self.calendar, "message_id": message_id}
        return await self.client.post(TOKEN, json=body, headers=h(key or self.echo))

    async def introspect(self, token: str, key: str | None = None) -> httpx.Response:
        return await self.client.post(
            INTROSPECT, json={"token": token}, headers=h(key or self.calendar_key)
        )


Worlds = Callable[..., AbstractAsyncContextManager[World]]


@pytest.fixture
def world(tmp_path: Path) -> Worlds:
    @asynccontextmanager
    async def make(**overrides: Any) -> AsyncIterator[World]:
        settings = Settings(data_dir=tmp_path / "data", database_url=None, redis_url=None)
        app = create_app(dataclasses.replace(settings, **overrides))
        async with app.router.lifespan_context(app):
            platform: Platform = app.state.platform
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
                yield await _seed(c, platform)

    return make


async def _seed(c: httpx.AsyncClient, platform: Platform) -> World:
    alice_id, alice = await make_user(platform, "alice")
    bob_id, bob = await make_user(platform, "bob")
    echo_id, echo, _ = await make_agent(platform, alice_id, "Echo")
    other_id, other, _ = await make_agent(platform, alice_id, "Other")
    r = await c.post(
        "/api/v1/me/contacts/requests",
        json={"contact_request": {"recipient_handle": "alice"}},
        headers=h(bob),
    )
    assert r.status_code == 201, r.text
    r = await c.post(
        f"/api/v1/me/contacts/requests/{r.json()['data']['id']}/approve", headers=h(alice)
    )
    assert r.status_code == 200, r.text
    room = (await c.post("/api/v1/me/chats", json={}, headers=h(alice))).json()["data"]["id"]
    for who in (echo_id, other_id, bob_id):
        r = await c.post(
            f"/api/v1/me/chats/{room}/participants",
            json={"participant": {"participant_id": who}},
            headers=h(alice),
        )
        assert r.status_code == 201, r.text
    r = await c.post(
        "/api/v1/me/delegation/systems", json={"system": {"name": "Calendar"}}, headers=h(bob)
    )
    assert r.status_code == 201, r.text
    system = r.json()["data"]
    r = await c.post(
        "/api/v1/me/delegation/consents",
        json={"consent": {"agent_id": echo_id, "system_id": system["system"]["id"]}},
        headers=h(bob),
    )
    assert r.status_code == 201, r.text
    return World(
        c,
        platform,
        alice,
        bob,
        echo,
        other,
        echo_id,
        other_id,
        bob_id,
        room,
        system["system"]["id"],
        system["credentials"]["api_key"],
        r.json()["data"]["id"],
    )


def refused(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code, r.text


async def test_a_mention_across_owners_carries_the_envelope_and_only_then(world: Worlds) -> None:
    async with world() as w:
        asked = await w.bob_asks()
        sealed = asked["metadata"]["delegation"]
        assert sealed["version"] == 1 and sealed["message_id"] == asked["id"]
        assert sealed["originator"] == {"uuid": w.bob_id, "handle": "bob", "display_name": "Bob"}
        assert sealed["hop"] is None
        minted = datetime.fromisoformat(sealed["minted_at"].replace("Z", "+00:00"))
        assert abs(datetime.now(UTC) - minted) < timedelta(minutes=1)

        r = await w.client.post(
            f"/api/v1/me/chats/{w.room}/messages",
            json={"message": {"content": "@alice/echo my own agent"}},
            headers=h(w.alice),
        )
        own = await w.message(r.json()["data"]["id"])
        assert "delegation" not in own["metadata"]

        forged = {"originator": {"uuid": w.bob_id, "handle": "bob", "display_name": "Bob"}}
        r = await w.client.post(
            f"/api/v1/agent/chats/{w.room}/events",
            json={
                "event": {
                    "content": "x",
                    "message_type": "thought",
                    "metadata": {"delegation": forged, "k": 1},
                }
            },
            headers=h(w.echo),
        )
        assert r.status_code == 201, r.text
        event = await w.message(r.json()["data"]["id"])
        assert event["metadata"] == {"k": 1}, "a client can't write an envelope"


async def test_the_exchange_mints_a_token_the_target_system_checks(world: Worlds) -> None:
    async with world() as w:
        asked = await w.bob_asks()
        r = await w.client.post(
            TOKEN,
            json={"audience": w.calendar, "message_id": asked["id"]},
            headers={**h(w.echo), "Idempotency-Key": "exchange-1"},
        )
        assert r.status_code == 200, r.text
        token = r.json()
        assert token["token_type"] == "bearer" and r.headers["cache-control"] == "no-store"
        assert token["obo"] == {
            "agent_uuid": w.echo_id,
            "audience": w.calendar,
            "originator_uuid": w.bob_id,
            "originator_handle": "bob",
        }
        expires = datetime.fromisoformat(token["expires_at"].replace("Z", "+00:00"))
        assert timedelta(minutes=4) < expires - datetime.now(UTC) <= timedelta(minutes=5)

        seen = (await w.introspect(token["access_token"])).json()
        assert seen["active"] is True and seen["sub"] == w.bob_id and seen["username"] == "bob"
        assert seen["aud"] == w.calendar and seen["act"] == {"sub": w.echo_id}
        assert seen["message_id"] == asked["id"] and seen["exp"] == int(expires.timestamp())

        # Another system sees nothing; a wrong system key is 401; junk is inactive.
        r = await w.client.post(
            "/api/v1/me/delegation/systems", json={"system": {"name": "Mail"}}, headers=h(w.bob)
        )
        mail_key = r.json()["data"]["credentials"]["api_key"]
        assert (await w.introspect(token["access_token"], mail_key)).json() == {"active": False}
        refused(await w.introspect(token["access_token"], "band_s_nope"), 401, "unauthorized")
        assert (await w.introspect("band_d_junk")).json() == {"active": False}

        # Stored hashed only: neither the tokens table nor the idempotency record holds it.
        async with w.platform.db.read() as session:
            for table in ("delegated_tokens", "idempotency_keys", "delegation_systems"):
                rows = (await session.execute(text(f"SELECT * FROM {table}"))).all()
                dump = repr(rows)
                assert token["access_token"] not in dump and w.calendar_key not in dump


async def test_refusals_no_consent_wrong_agent_own_owner_and_bad_input(world: Worlds) -> None:
    async with world() as w:
        asked = await w.bob_asks()
        refused(await w.exchange(asked["id"], audience=str(uuid.uuid4())), 403, "consent_required")
        # Other (in the room, not mentioned) and an unknown message: nothing was delivered.
        refused(await w.exchange(asked["id"], key=w.other), 404, "message_not_found")
        refused(await w.exchange(str(uuid.uuid4())), 404, "message_not_found")
        # The agent's own owner asking: no ownership boundary, no delegation.
        r = await w.client.post(
            f"/api/v1/me/chats/{w.room}/messages",
            json={"message": {"content": "@alice/echo from your owner"}},
            headers=h(w.alice),
        )
        refused(await w.exchange(r.json()["data"]["id"]), 403, "no_delegation")
        refused(await w.exchange(asked["id"], audience="Calendar"), 422, "validation_error")
        refused(await w.exchange(asked["id"], key=w.bob), 403, "agent_key_required")


async def test_the_per_message_cap_refuses_a_replay(world: Worlds) -> None:
    async with world(delegation_exchanges_per_message=2) as w:
        asked = await w.bob_asks()
        first, second = (await w.exchange(asked["id"]), await w.exchange(asked["id"]))
        assert first.status_code == second.status_code == 200
        assert first.json()["access_token"] != second.json()["access_token"]
        refused(await w.exchange(asked["id"]), 403, "exchange_limit_reached")
        # A fresh ask has its own budget.
        assert (await w.exchange((await w.bob_asks())["id"])).status_code == 200


async def test_an_expired_window_is_refused_and_costs_nothing(world: Worlds) -> None:
    async with world(delegation_window=0.0, delegation_exchanges_per_message=1) as w:
        asked = await w.bob_asks()
        for _ in range(3):
            refused(await w.exchange(asked["id"]), 403, "window_expired")
        async with w.platform.db.read() as session:
            count = await session.scalar(text("SELECT count(*) FROM delegated_tokens"))
        assert count == 0


async def test_revoking_consent_or_leaving_the_room_ends_delegation(world: Worlds) -> None:
    async with world() as w:
        asked = await w.bob_asks()
        token = (await w.exchange(asked["id"])).json()["access_token"]
        r = await w.client.delete(f"/api/v1/me/delegation/consents/{w.consent}", headers=h(w.bob))
        assert r.status_code == 200 and r.json()["data"]["revoked_at"], r.text
        assert (await w.introspect(token)).json() == {"active": False}
        refused(await w.exchange(asked["id"]), 403, "consent_required")
        listed = await w.client.get("/api/v1/me/delegation/consents", headers=h(w.bob))
        assert listed.json()["data"] == []

        # Consent again, then Bob leaves the room: his ask can no longer be redeemed.
        r = await w.client.post(
            "/api/v1/me/delegation/consents",
            json={"consent": {"agent_id": w.echo_id, "system_id": w.calendar}},
            headers=h(w.bob),
        )
        assert r.status_code == 201 and r.json()["data"]["id"] == w.consent
        assert (await w.exchange(asked["id"])).status_code == 200
        r = await w.client.delete(
            f"/api/v1/me/chats/{w.room}/participants/{w.bob_id}", headers=h(w.bob)
        )
        assert r.status_code == 200, r.text
        refused(await w.exchange(asked["id"]), 403, "originator_not_participant")


async def test_deleting_the_system_ends_its_key_and_tokens(world: Worlds) -> None:
    async with world() as w:
        asked = await w.bob_asks()
        token = (await w.exchange(asked["id"])).json()["access_token"]
        r = await w.client.delete(f"/api/v1/me/delegation/systems/{w.calendar}", headers=h(w.alice))
        refused(r, 403, "forbidden")
        r = await w.client.delete(f"/api/v1/me/delegation/systems/{w.calendar}", headers=h(w.bob))
        assert r.status_code == 200, r.text
        refused(await w.introspect(token), 401, "unauthorized")
        refused(await w.exchange(asked["id"]), 403, "consent_required")


async def test_the_rate_limit_comes_before_everything_else(world: Worlds) -> None:
    async with world(delegation_exchange_rate="2/minute") as w:
        asked = await w.bob_asks()
        assert (await w.exchange(asked["id"])).status_code == 200
        refused(await w.exchange(str(uuid.uuid4())), 404, "message_not_found")
        r = await w.exchange(str(uuid.uuid4()))
        refused(r, 429, "rate_limited")
        wait = int(r.headers["retry-after"])
        assert 1 <= wait <= 60 and r.json()["error"]["details"]["retry_after"] == wait
        # Another agent has its own allowance.
        refused(await w.exchange(asked["id"], key=w.other), 404, "message_not_found")


async def test_an_agent_holding_a_delegation_cannot_forward_it(world: Worlds) -> None:
    async with world() as w:
        asked = await w.bob_asks()
        r = await w.client.post(
            f"/api/v1/agent/chats/{w.room}/messages/{asked['id']}/processing", headers=h(w.echo)
        )
        assert r.status_code == 200, r.text
        r = await w.client.post(
            f"/api/v1/agent/chats/{w.room}/messages",
            json={"message": {"content": "over to you", "mentions": [{"id": w.other_id}]}},
            headers=h(w.echo),
        )
        forwarded = await w.message(r.json()["data"]["id"])
        assert forwarded["metadata"]["delegation"] == {
            "kind": "terminated",
            "reason": "forwarding_not_supported",
            "version": 1,
        }
        # The forwarded message carries no authority for Other.
        refused(await w.exchange(forwarded["id"], key=w.other), 403, "no_delegation")
        # Without a delegation in hand, an agent-to-agent mention carries no delegation key.
        await w.client.post(
            f"/api/v1/agent/chats/{w.room}/messages/{asked['id']}/processed", headers=h(w.echo)
        )
        r = await w.client.post(
            f"/api/v1/agent/chats/{w.room}/messages",
            json={"message": {"content": "and this", "mentions": [{"id": w.other_id}]}},
            headers=h(w.echo),
        )
        assert "delegation" not in (await w.message(r.json()["data"]["id"]))["metadata"]


async def test_consents_are_for_other_owners_agents_at_live_systems(world: Worlds) -> None:
    async with world() as w:
        alice_agent = {"consent": {"agent_id": w.echo_id, "system_id": w.calendar}}
        r = await w.client.post(
            "/api/v1/me/delegation/consents", json=alice_agent, headers=h(w.alice)
        )
        refused(r, 422, "own_agent")
        unknown = {"consent": {"agent_id": str(uuid.uuid4()), "system_id": w.calendar}}
        r = await w.client.post("/api/v1/me/delegation/consents", json=unknown, headers=h(w.bob))
        refused(r, 404, "not_found")
        r = await w.client.delete(f"/api/v1/me/delegation/consents/{w.consent}", headers=h(w.alice))
        refused(r, 404, "not_found")
        systems = await w.client.get("/api/v1/me/delegation/systems", headers=h(w.alice))
        listed = systems.json()["data"]
        assert [s["id"] for s in listed] == [w.calendar] and "api_key" not in repr(listed)
