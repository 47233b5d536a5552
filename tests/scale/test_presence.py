"""Presence across nodes sharing Redis: ``online`` and ``on_conflict=reject`` are judged
cluster-wide, and a killed node's agents go offline within the presence ttl."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from band_server.config import Settings
from band_server.realtime.hub import RESYNC_CLOSE_CODE

from .nodes import Node, serve, serve_process
from .real_services import RedisServer
from .test_two_nodes import World, make_world

TTL = 2.0
INTERVAL = 0.25
WITHIN = 30.0  # generous: a loaded 2-core machine


@pytest.fixture
def settings(tmp_path: Path, pg_url: str, redis_server: RedisServer) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=pg_url,
        redis_url=redis_server.url,
        presence_ttl=TTL,
        presence_interval=INTERVAL,
    )


@pytest.fixture
async def nodes(settings: Settings) -> AsyncIterator[tuple[Node, Node]]:
    async with serve(settings) as a, serve(settings) as b:
        yield a, b


@asynccontextmanager
async def agent_socket(
    ws_url: str, w: World, policy: str = "supersede"
) -> AsyncIterator[ClientConnection]:
    query = urlencode({"vsn": "2.0.0", "agent_id": w.agent_id, "on_conflict": policy})
    async with connect(f"{ws_url}?{query}", additional_headers={"x-api-key": w.agent_key}) as ws:
        yield ws


async def until(check: Callable[[], Awaitable[bool]], what: str, within: float = WITHIN) -> float:
    """Wait for ``check`` to hold; how long it took."""
    started = time.monotonic()
    while not await check():
        assert time.monotonic() - started < within, f"not within {within}s: {what}"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def online_on(node_url: str, w: World) -> tuple[bool, bool]:
    """The agent's ``online`` flag in the room's participants and in its owner's agent row."""
    async with httpx.AsyncClient(base_url=node_url, headers={"X-API-Key": w.user_key}) as c:
        rows = (await c.get(f"/api/v1/me/chats/{w.room_id}/participants")).json()["data"]
        agent = (await c.get(f"/api/v1/me/agents/{w.agent_id}")).json()["data"]
    (row,) = [r for r in rows if r["id"] == w.agent_id]
    return bool(row["online"]), bool(agent["online"])


def shown(node_url: str, w: World, expected: bool) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return await online_on(node_url, w) == (expected, expected)

    return check


@asynccontextmanager
async def reconnecting_agent(ws_url: str, w: World) -> AsyncIterator[None]:
    """An agent that holds a socket and reconnects after the server closes it with 1012
    (resync), as the SDKs do; it gives up on any other close."""

    async def hold() -> None:
        while True:
            try:
                async with agent_socket(ws_url, w) as ws:
                    code = await _closed_with(ws, within=None)
            except (OSError, InvalidStatus):
                code = RESYNC_CLOSE_CODE  # the server refused while Redis was away: try again
            if code != RESYNC_CLOSE_CODE:
                return
            await asyncio.sleep(0.1)

    task = asyncio.create_task(hold())
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def refused_with(ws_url: str, w: World) -> int | None:
    """Open a ``reject`` socket: None when admitted (then closed), else the refusal status."""
    try:
        async with agent_socket(ws_url, w, "reject"):
            return None
    except InvalidStatus as exc:
        return exc.response.status_code


async def test_online_is_judged_on_every_node(nodes: tuple[Node, Node]) -> None:
    a, b = nodes
    w = await make_world(a)
    assert await online_on(a.url, w) == (False, False)
    async with agent_socket(b.ws_url, w):
        await until(shown(a.url, w, True), "online on A while the socket is on B")
        assert await online_on(b.url, w) == (True, True)
    await until(shown(a.url, w, False), "offline on A once the socket on B closed")
    await until(shown(b.url, w, False), "offline on B")


async def test_reject_is_refused_while_connected_on_another_node(nodes: tuple[Node, Node]) -> None:
    a, b = nodes
    w = await make_world(a)
    async with agent_socket(a.ws_url, w):
        await until(shown(b.url, w, True), "online on B")
        assert await refused_with(b.ws_url, w) == 409
        assert await refused_with(a.ws_url, w) == 409
    await until(shown(b.url, w, False), "offline on B")
    assert await refused_with(b.ws_url, w) is None


async def test_two_reject_sockets_on_two_nodes_never_both_pass(nodes: tuple[Node, Node]) -> None:
    a, b = nodes
    w = await make_world(a)
    for _ in range(5):
        async with AsyncExitStack() as stack:

            async def attempt(ws_url: str) -> bool:
                try:
                    await stack.enter_async_context(agent_socket(ws_url, w, "reject"))
                except InvalidStatus as exc:
                    assert exc.response.status_code == 409
                    return False
                return True

            admitted = await asyncio.gather(attempt(a.ws_url), attempt(b.ws_url))
            assert sorted(admitted) == [False, True]
        await until(shown(a.url, w, False), "offline again")
        await until(shown(b.url, w, False), "offline again on B")


async def test_supersede_closes_the_socket_on_the_other_node(nodes: tuple[Node, Node]) -> None:
    a, b = nodes
    w = await make_world(a)
    async with agent_socket(a.ws_url, w) as old, agent_socket(b.ws_url, w):
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(old.recv(), WITHIN)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        await until(lambda: _hub_empty(a, w), "A's hub let go of the old socket")
        # Still online (on B), seen from both nodes; reject on A is refused.
        await until(shown(a.url, w, True), "online on A through B's socket")
        assert await refused_with(a.ws_url, w) == 409


async def _hub_empty(node: Node, w: World) -> bool:
    return not node.platform.hub.is_online(w.agent_id)


async def test_agents_of_a_killed_node_go_offline(
    nodes: tuple[Node, Node], settings: Settings
) -> None:
    a, _ = nodes
    w = await make_world(a)
    env = {"BAND_PRESENCE_TTL": str(TTL), "BAND_PRESENCE_INTERVAL": str(INTERVAL)}
    async with serve_process(settings, **env) as c, agent_socket(c.ws_url, w):
        await until(shown(a.url, w, True), "online on A while the socket is on C")
        assert await refused_with(a.ws_url, w) == 409
        c.kill()
        took = await until(shown(a.url, w, False), "offline after C was killed")
    # Bounded by the ttl plus a refresh, with room for a loaded machine.
    assert took < TTL + 10
    assert await refused_with(a.ws_url, w) is None


async def _closed_with(ws: ClientConnection, within: float | None) -> int | None:
    """The close code the server sent within ``within`` seconds (None: however long); None if
    still open."""
    try:
        async with asyncio.timeout(within):
            while True:
                await ws.recv()
    except TimeoutError:
        return None
    except ConnectionClosed as exc:
        return exc.rcvd.code if exc.rcvd is not None else None


async def test_a_killed_node_is_a_fanout_gap_for_the_others(
    nodes: tuple[Node, Node], settings: Settings
) -> None:
    """A node that dies may have committed mentions it never published: once its presence
    expires, the other nodes tell their agents to reconnect and drain ``/next`` (1012). A node
    stopped cleanly is not a gap."""
    a, _ = nodes
    w = await make_world(a)
    env = {"BAND_PRESENCE_TTL": str(TTL), "BAND_PRESENCE_INTERVAL": str(INTERVAL)}
    async with agent_socket(a.ws_url, w) as ws:
        async with serve_process(settings, **env):
            await until(lambda: _sees_others(a, 2), "A sees B and the process node")
        # A clean stop (SIGTERM) takes the node out before its expiry: no resync.
        assert await _closed_with(ws, TTL + 2) is None
        async with serve_process(settings, **env) as c:
            await until(lambda: _sees_others(a, 2), "A sees B and the second process node")
            c.kill()
            assert await _closed_with(ws, TTL + 15) == 1012


async def _sees_others(node: Node, others: int) -> bool:
    view = getattr(node.platform.presence, "cluster_view", None)
    return view is not None and view().other_nodes >= others


async def test_presence_comes_back_after_redis_restarts_empty(
    nodes: tuple[Node, Node], redis_server: RedisServer
) -> None:
    a, b = nodes
    w = await make_world(a)
    # Redis restarting is a fan-out gap (the bus missed what was published meanwhile): B
    # closes its agent sockets with 1012, and the agent reconnects, as both SDKs do. Whether
    # that close comes before or after B rewrites its hash depends on timing, so the agent here
    # reconnects too; what must hold is that it is shown online again on A.
    async with reconnecting_agent(b.ws_url, w):
        await until(shown(a.url, w, True), "online on A")
        seen = await presence_metrics(a)
        assert seen["band_presence_other_nodes"] == 1, seen
        assert seen["band_presence_remote_principals"] == 1, seen
        assert seen["band_presence_sync_age_seconds"] < TTL, seen
        redis_server.stop()
        try:
            # Without Redis, A forgets B's sockets once their last read expiry passed.
            await until(shown(a.url, w, False), "A stops vouching for B's sockets")
            assert await online_on(b.url, w) == (True, True)
            assert await refused_with(a.ws_url, w) == 503
            seen = await presence_metrics(a)
            assert seen["band_presence_other_nodes"] == 0, seen
            assert seen["band_presence_sync_age_seconds"] > INTERVAL, seen
        finally:
            redis_server.start()  # same port, no data
        await until(shown(a.url, w, True), "B rewrote its sockets into the new Redis")
    await until(shown(a.url, w, False), "offline on A")


async def presence_metrics(node: Node) -> dict[str, float]:
    """The node's ``band_presence_*`` samples from ``/metrics``."""
    async with httpx.AsyncClient(base_url=node.url) as c:
        text = (await c.get("/metrics")).text
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("band_presence_"):
            name, value = line.split()
            found[name] = float(value)
    return found
