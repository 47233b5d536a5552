"""The Agents page: Connect remote agent, the key shown once, Regenerate API key, Delete."""

from __future__ import annotations

import httpx
import yaml
from web_testkit import act, sign_in, token

from band_server.context import Platform
from conftest import Seeded

SEED_DESCRIPTION = "A support assistant that answers product questions."


async def _connect(client: httpx.AsyncClient, csrf: str, **fields: str) -> httpx.Response:
    body = {"name": "Parlant Agent", "description": SEED_DESCRIPTION, **fields}
    return await act(client, "/agents", body, csrf=csrf)


async def test_connect_agent_shows_the_id_key_and_config_once(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    await sign_in(client, seeded.user_key)
    csrf = await token(client, "/agents")

    created = await _connect(client, csrf, tags="support, Docs, support")

    assert created.status_code == 201, created.text
    shown = created.json()
    assert shown["title"] == "Agent Created Successfully!"
    config = yaml.safe_load(shown["config"])
    assert config == {"my_agent": {"agent_id": shown["agent_id"], "api_key": shown["api_key"]}}
    me = await client.get("/api/v1/agent/me", headers={"X-API-Key": shown["api_key"]})
    assert me.status_code == 200 and me.json()["data"]["id"] == shown["agent_id"]

    page = await client.get("/agents")
    assert "Parlant Agent" in page.text and "@alice/parlant-agent" in page.text
    assert SEED_DESCRIPTION in page.text and ">support<" in page.text and ">Docs<" in page.text
    assert shown["api_key"] not in page.text  # never shown again


async def test_the_dialog_is_validated_by_the_server(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    await sign_in(client, seeded.user_key)
    csrf = await token(client, "/agents")

    short = await _connect(client, csrf, description="Too short")  # 9 characters
    assert short.status_code == 422
    assert "/agent/description" in short.json()["error"]["details"]
    bad_name = await _connect(client, csrf, name="No_underscores!")
    assert "/agent/name" in bad_name.json()["error"]["details"]
    bad_handle = await _connect(client, csrf, handle="Not A Handle")
    assert "/agent/handle" in bad_handle.json()["error"]["details"]
    too_many = await _connect(client, csrf, tags="a,b,c,d,e,f")
    assert "/agent/tags" in too_many.json()["error"]["details"]

    mine = await _connect(client, csrf, handle="helpdesk")
    assert mine.status_code == 201
    taken = await _connect(client, csrf, handle="helpdesk")
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "handle_taken"
    page = await client.get("/agents")
    assert page.text.count('class="card agent"') == 2  # Echo and the one that was created


async def test_regenerate_replaces_the_key_at_once_and_delete_removes_the_agent(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    await sign_in(client, seeded.user_key)
    csrf = await token(client, "/agents")
    old = {"X-API-Key": seeded.agent_key}
    assert (await client.get("/api/v1/agent/me", headers=old)).status_code == 200

    fresh = await act(client, f"/agents/{seeded.agent_id}/regenerate-key", csrf=csrf)

    assert fresh.status_code == 200 and fresh.json()["agent_id"] == seeded.agent_id
    assert (await client.get("/api/v1/agent/me", headers=old)).status_code == 401
    new = {"X-API-Key": fresh.json()["api_key"]}
    assert (await client.get("/api/v1/agent/me", headers=new)).status_code == 200

    gone = await act(client, f"/agents/{seeded.agent_id}/delete", csrf=csrf)
    assert gone.status_code == 200
    assert (await client.get("/api/v1/agent/me", headers=new)).status_code == 401
    assert "@alice/echo" not in (await client.get("/agents")).text


async def test_another_persons_agent_can_be_neither_regenerated_nor_deleted(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    from conftest import make_user

    _, bob_key = await make_user(platform, "bob")
    await sign_in(client, bob_key)
    csrf = await token(client, "/agents")
    for action in ("regenerate-key", "delete"):
        refused = await act(client, f"/agents/{seeded.agent_id}/{action}", csrf=csrf)
        assert refused.status_code == 404
    ok = await client.get("/api/v1/agent/me", headers={"X-API-Key": seeded.agent_key})
    assert ok.status_code == 200
