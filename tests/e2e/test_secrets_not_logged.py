"""No secret in any log line, at any level: `band serve --log-level debug` (every logger at
DEBUG: SQL statements and rows, WebSocket handshakes, uvicorn) and an agent on our SDK with
every logger at DEBUG, through a flow that makes and uses every kind of key and token.

The flow, from this process (whose own logs are not looked at): a person signs in to the web
app (session cookie, sign-in CSRF cookie, page CSRF token) and there connects an agent,
regenerates its key and adds a person; an agent is registered over REST; a person registers a
target system and consents; their mention of the agent (on our SDK) is answered, redeemed for a
delegated token, which the system introspects; a socket is opened with ``?api_key=`` in its
URL; a wrong key is typed at sign-in. Then every secret made is looked for in both logs.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
from websockets.asyncio.client import connect

from compat.compat_harness import AgentProcess, Person, start_agent
from faults.cluster import ECHO_AGENT, PROJECT_PYTHON, NodeProcess, World, seed_world

pytestmark = [pytest.mark.timeout(240)]

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
JSON = {"Accept": "application/json"}


@dataclass
class Deployment:
    node: NodeProcess
    agent: AgentProcess
    world: World
    secrets: dict[str, str] = field(default_factory=dict)  # what it is -> the secret

    def keep(self, what: str, secret: str) -> str:
        assert secret and len(secret) >= 20, (what, secret)
        self.secrets[what] = secret
        return secret


@pytest_asyncio.fixture
async def deployment(tmp_path: Path) -> AsyncIterator[Deployment]:
    data = tmp_path / "data"
    data.mkdir()
    world = await seed_world(f"sqlite+aiosqlite:///{data / 'band.db'}", ["Echo"])
    node = NodeProcess(data, tmp_path / "logs", name="debug", options=["--log-level", "debug"])
    await node.start(within=90)
    [echo] = world.agents
    agent = start_agent(
        PROJECT_PYTHON,
        ECHO_AGENT,
        name="echo",
        server=node,
        agent_id=echo.id,
        api_key=echo.key,
        workdir=tmp_path / "agent",
        extra_env={"COMPAT_LOG_LEVEL": "DEBUG"},
    )
    try:
        await agent.wait_event("ready", within=60)
        deployment = Deployment(node, agent, world)
        for person in world.people:
            deployment.keep(f"{person.handle}'s key", person.key)
        deployment.keep("Echo's key", echo.key)
        yield deployment
    finally:
        agent.stop()
        node.stop()


def _csrf(page: httpx.Response) -> str:
    found = CSRF.search(page.text)
    assert found, page.text
    return found[1]


async def _web(d: Deployment, web: httpx.AsyncClient, alice: Person) -> None:
    """Sign in (a wrong key first), connect an agent, regenerate its key, add a person."""
    form = await web.get("/login")
    d.keep("the sign-in CSRF cookie", web.cookies["band_login_csrf"])
    typed = d.keep("a wrong key typed at sign-in", "band_u_" + "x" * 43)
    wrong = await web.post("/login", data={"api_key": typed, "csrf": _csrf(form)})
    assert wrong.status_code == 401
    signed = await web.post("/login", data={"api_key": alice.key, "csrf": _csrf(wrong)})
    assert signed.status_code == 303, signed.text
    d.keep("the session cookie", web.cookies["band_session"])
    csrf = d.keep("the session's CSRF token", _csrf(await web.get("/rooms")))
    made = await web.post(
        "/agents",
        data={"name": "Helper", "description": "Helps with the logs test", "csrf": csrf},
        headers=JSON,
    )
    assert made.status_code == 201, made.text
    d.keep("a key from Connect agent", made.json()["api_key"])
    again = await web.post(
        f"/agents/{made.json()['agent_id']}/regenerate-key", data={"csrf": csrf}, headers=JSON
    )
    assert again.status_code == 200, again.text
    d.keep("a regenerated key", again.json()["api_key"])
    person = await web.post(
        "/people", data={"name": "Carol", "handle": "carol", "csrf": csrf}, headers=JSON
    )
    assert person.status_code == 201, person.text
    d.keep("a key from Add person", person.json()["api_key"])


async def _delegation(d: Deployment, api: httpx.AsyncClient, room: str) -> None:
    """Bob registers a system, consents to Echo there, and asks Echo; Echo answers and
    redeems Bob's message for a token the system introspects."""
    bob = d.world.people[1]
    [echo] = d.world.agents
    as_bob = {"X-API-Key": bob.key}
    made = await api.post(
        "/api/v1/me/delegation/systems", json={"system": {"name": "Calendar"}}, headers=as_bob
    )
    assert made.status_code == 201, made.text
    system = made.json()["data"]
    system_key = d.keep("a target system's key", system["credentials"]["api_key"])
    consent = {"consent": {"agent_id": echo.id, "system_id": system["system"]["id"]}}
    agreed = await api.post("/api/v1/me/delegation/consents", json=consent, headers=as_bob)
    assert agreed.status_code == 201, agreed.text
    body = {"message": {"content": f"@{echo.handle} what is on?", "mentions": [{"id": echo.id}]}}
    asked = await api.post(f"/api/v1/me/chats/{room}/messages", json=body, headers=as_bob)
    assert asked.status_code == 201, asked.text
    message_id = asked.json()["data"]["id"]
    await d.agent.wait_event("replied", within=60)
    exchange = {"audience": system["system"]["id"], "message_id": message_id}
    token = await api.post(
        "/api/v1/agent/delegation/token", json=exchange, headers={"X-API-Key": echo.key}
    )
    assert token.status_code == 200, token.text
    access = d.keep("a delegated token", token.json()["access_token"])
    seen = await api.post(
        "/api/v1/delegation/introspect", json={"token": access}, headers={"X-API-Key": system_key}
    )
    assert seen.json()["active"] is True, seen.text


async def test_no_key_or_token_reaches_any_log_line_at_debug(deployment: Deployment) -> None:
    d = deployment
    alice, bob = d.world.people
    [echo] = d.world.agents
    async with httpx.AsyncClient(base_url=d.node.url, timeout=30) as web:
        await _web(d, web, alice)
    async with httpx.AsyncClient(base_url=d.node.url, timeout=30) as api:
        as_alice = {"X-API-Key": alice.key}
        room = (await api.post("/api/v1/me/chats", json={}, headers=as_alice)).json()["data"]["id"]
        for who in (echo.id, bob.id):
            added = await api.post(
                f"/api/v1/me/chats/{room}/participants",
                json={"participant": {"participant_id": who}},
                headers=as_alice,
            )
            assert added.status_code == 201, added.text
        registered = await api.post(
            "/api/v1/me/agents/register",
            json={"agent": {"name": "Registered", "description": "Registered over REST"}},
            headers=as_alice,
        )
        assert registered.status_code == 201, registered.text
        d.keep(
            "a key from POST /agents/register", registered.json()["data"]["credentials"]["api_key"]
        )
        await _delegation(d, api, room)
    url = f"{d.node.ws_url}?vsn=2.0.0&api_key={alice.key}"  # a key in a socket's URL
    async with connect(url) as ws:
        await ws.send('[null, "1", "phoenix", "heartbeat", {}]')
        assert '"ok"' in str(await ws.recv())
    d.agent.stop()
    d.node.stop()

    logs = {"server": d.node.log_path.read_text(), "agent": d.agent.log_path.read_text()}
    leaks = {
        (log, what)
        for log, text in logs.items()
        for what, secret in d.secrets.items()
        if secret in text
    }
    assert leaks == set(), f"secrets in the logs: {sorted(leaks)}"
    # Every logger did write at DEBUG, and the lines that held secrets are there, masked.
    server, agent = logs["server"], logs["agent"]
    assert "DEBUG   sqlalchemy.engine" in server and "Row (" in server
    assert re.search(
        r'"WebSocket /api/v1/socket/websocket\?vsn=2\.0\.0&api_key=\[redacted\]"', server
    )
    assert re.search(r"< x-api-key: \[redacted\]", server), "the handshake's headers at DEBUG"
    assert "DEBUG band.platform.websocket: > x-api-key: [redacted]" in agent
    # The agent's REST link sends over aiohttp, which writes no request lines at DEBUG; over
    # httpx (a transport or a proxy) httpcore's lines are in the scan above.
