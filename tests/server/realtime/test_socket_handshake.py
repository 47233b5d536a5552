"""Upgrade admission: refused upgrades answer with an HTTP status and the error envelope."""

from __future__ import annotations

import asyncio
import logging

import pytest
from socket_testkit import phx, refused, seed

from band_server.services.identity import accounts
from conftest import LiveServer, Seeded, make_agent


@pytest.fixture
async def seeded_live(live_server: LiveServer) -> Seeded:
    return await seed(live_server.platform)


def assert_envelope(body: dict[str, object], code: str) -> None:
    err = body["error"]
    assert isinstance(err, dict)
    assert err["code"] == code
    assert err["message"]
    assert err["request_id"]


async def test_agent_connects_with_header_key_and_its_agent_id(
    live_server: LiveServer, seeded_live: Seeded
) -> None:
    async with phx(live_server.ws_url, seeded_live.agent_key, agent_id=seeded_live.agent_id) as c:
        reply = await c.heartbeat()
        assert reply[4] == {"status": "ok", "response": {}}
        assert live_server.platform.hub.is_online(seeded_live.agent_id)


async def test_api_key_query_parameter_is_accepted_as_fallback(
    live_server: LiveServer, seeded_live: Seeded
) -> None:
    async with phx(live_server.ws_url, None, api_key=seeded_live.agent_key) as c:
        assert (await c.heartbeat())[4]["status"] == "ok"


async def test_person_connects_with_own_key(live_server: LiveServer, seeded_live: Seeded) -> None:
    async with phx(live_server.ws_url, seeded_live.user_key) as c:
        assert (await c.heartbeat())[4]["status"] == "ok"
        assert live_server.platform.hub.is_online(seeded_live.user_id)


async def test_presence_ends_when_the_socket_closes(
    live_server: LiveServer, seeded_live: Seeded
) -> None:
    async with phx(live_server.ws_url, seeded_live.agent_key) as c:
        await c.heartbeat()
    hub = live_server.platform.hub
    for _ in range(100):
        if not hub.is_online(seeded_live.agent_id):
            break
        await _tick()
    assert not hub.is_online(seeded_live.agent_id)


async def test_bad_key_is_refused_with_401_envelope(live_server: LiveServer) -> None:
    status, body = await refused(live_server.ws_url, "band_nope")
    assert status == 401
    assert_envelope(body, "unauthorized")


async def test_missing_key_is_refused_with_401(live_server: LiveServer) -> None:
    status, body = await refused(live_server.ws_url, None)
    assert status == 401
    assert_envelope(body, "unauthorized")


async def test_revoked_key_is_refused_with_401(
    live_server: LiveServer, seeded_live: Seeded
) -> None:
    async with live_server.platform.db.write() as session:
        await accounts.revoke_keys(session, seeded_live.agent_id)
    status, body = await refused(live_server.ws_url, seeded_live.agent_key)
    assert status == 401
    assert_envelope(body, "unauthorized")


async def test_a_key_revoked_behind_the_key_cache_opens_no_socket(
    live_server: LiveServer, seeded_live: Seeded
) -> None:
    # The REST key cache holds the key (seconds-long), then the key is revoked straight in the
    # database (as a CLI command would, with no broadcast): the upgrade still asks the database.
    platform = live_server.platform
    assert (await platform.authenticate(seeded_live.agent_key)).id == seeded_live.agent_id
    assert platform.auth.get(seeded_live.agent_key) is not None
    async with platform.db.write() as session:
        await accounts.revoke_keys(session, seeded_live.agent_id)
    status, body = await refused(live_server.ws_url, seeded_live.agent_key)
    assert status == 401
    assert_envelope(body, "unauthorized")


async def test_agent_id_of_another_agent_is_refused_with_400(
    live_server: LiveServer, seeded_live: Seeded
) -> None:
    other_id, _, _ = await make_agent(live_server.platform, seeded_live.user_id, "Other")
    status, body = await refused(live_server.ws_url, seeded_live.agent_key, agent_id=other_id)
    assert status == 400
    assert_envelope(body, "agent_mismatch")


async def test_person_key_with_agent_id_is_refused_with_400(
    live_server: LiveServer, seeded_live: Seeded
) -> None:
    status, body = await refused(
        live_server.ws_url, seeded_live.user_key, agent_id=seeded_live.agent_id
    )
    assert status == 400
    assert_envelope(body, "agent_mismatch")


@pytest.mark.parametrize("vsn", ["1.0.0", ""])
async def test_other_serializer_versions_are_refused_with_400(
    live_server: LiveServer, seeded_live: Seeded, vsn: str
) -> None:
    status, body = await refused(live_server.ws_url, seeded_live.agent_key, vsn=vsn)
    assert status == 400
    assert_envelope(body, "unsupported_vsn")


async def test_unknown_conflict_policy_is_refused_with_400(
    live_server: LiveServer, seeded_live: Seeded
) -> None:
    status, body = await refused(live_server.ws_url, seeded_live.agent_key, on_conflict="fight")
    assert status == 400
    assert_envelope(body, "bad_request")


async def test_reject_policy_with_no_live_socket_connects(
    live_server: LiveServer, seeded_live: Seeded
) -> None:
    async with phx(
        live_server.ws_url,
        seeded_live.agent_key,
        agent_id=seeded_live.agent_id,
        on_conflict="reject",
    ) as c:
        assert (await c.heartbeat())[4]["status"] == "ok"


async def test_reject_policy_with_a_live_socket_is_refused_with_409(
    live_server: LiveServer, seeded_live: Seeded
) -> None:
    key, agent_id = seeded_live.agent_key, seeded_live.agent_id
    async with phx(live_server.ws_url, key, agent_id=agent_id) as first:
        await first.join(f"agent_control:{agent_id}")
        status, body = await refused(
            live_server.ws_url, key, agent_id=agent_id, on_conflict="reject"
        )
        assert status == 409
        assert_envelope(body, "connection_conflict")
        # The live socket is untouched by the refused one.
        assert (await first.heartbeat())[4]["status"] == "ok"
        assert await first.silent(0.2)


async def test_connect_and_disconnect_are_logged(
    live_server: LiveServer, seeded_live: Seeded, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="band_server.realtime")
    async with phx(live_server.ws_url, seeded_live.agent_key) as c:
        await c.heartbeat()
    for _ in range(100):
        if any("socket closed" in r.getMessage() for r in caplog.records):
            break
        await _tick()
    lines = [r.getMessage() for r in caplog.records if r.name == "band_server.realtime"]
    assert any("socket open" in line and seeded_live.agent_handle in line for line in lines)
    assert any("socket closed" in line and seeded_live.agent_handle in line for line in lines)


async def _tick() -> None:
    await asyncio.sleep(0.02)
