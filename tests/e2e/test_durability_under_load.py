"""kill -9 under full load: every POST that was answered 2xx is there after the restart.

A person's client posts mentions at 1,000 msg/s (open loop, keep-alive connections) while the
server is killed with SIGKILL mid-burst. After a restart on the same data folder, every
message whose POST got a 2xx answer must be in the room, once, with its delivery to the
mentioned agent, and the room's sequence must have no gaps or duplicates. Bounded: a few
seconds of load, then the check.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import ServerChild, World, served_world

RATE = 1000
KILL_AFTER = 1.0  # seconds of load at least before the kill ...
MIN_ACKED = 20  # ... and this many POSTs answered
AFTER_KILL = 0.5  # the load goes on this long after the kill
MAX_SECONDS = 30.0
CONNECTIONS = 32

pytestmark = pytest.mark.slow


class Poster:
    """Pre-built POSTs on keep-alive connections; remembers which ones were answered 2xx."""

    def __init__(self, port: int, world: World) -> None:
        self.port = port
        self.path = f"/api/v1/me/chats/{world.room_id}/messages"
        self.head = (
            f"POST {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {world.person_key}\r\n"
            "Content-Type: application/json\r\n"
        )
        self.mention = [{"id": world.agent_id}]
        self.acked: dict[str, str] = {}  # token -> message id
        self.failed = 0
        # A slot holds a live connection, or None once its connection died (the next post
        # through it tries to reconnect, which fails fast while the server is down).
        self.pool: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter] | None] = (
            asyncio.Queue()
        )

    async def open(self) -> None:
        for _ in range(CONNECTIONS):
            self.pool.put_nowait(await asyncio.open_connection("127.0.0.1", self.port))

    async def post(self, token: str) -> None:
        body = json.dumps({"message": {"content": f"load {token}", "mentions": self.mention}})
        raw = body.encode()
        request = (self.head + f"Content-Length: {len(raw)}\r\n\r\n").encode() + raw
        slot = await self.pool.get()
        try:
            async with asyncio.timeout(20):
                if slot is None:
                    slot = await asyncio.open_connection("127.0.0.1", self.port)
                reader, writer = slot
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                answer = await reader.readexactly(length)
        except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            self.failed += 1
            if slot is not None:
                slot[1].close()
            self.pool.put_nowait(None)
            return  # the connection died with the server: not acknowledged
        self.pool.put_nowait(slot)
        if head.startswith((b"HTTP/1.1 200", b"HTTP/1.1 201")):
            self.acked[token] = json.loads(answer)["data"]["id"]
        else:
            self.failed += 1

    def close(self) -> None:
        while not self.pool.empty():
            slot = self.pool.get_nowait()
            if slot is not None:
                slot[1].close()


async def room_log(http: httpx.AsyncClient, room_id: str) -> list[dict[str, Any]]:
    """Every message of the room, oldest first, through the keyset cursor."""
    out: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 100, "sort_order": "asc"}
        if cursor:
            params["cursor"] = cursor
        r = await http.get(f"/api/v1/me/chats/{room_id}/messages", params=params)
        assert r.status_code == 200, r.text
        body = r.json()
        out.extend(body["data"])
        cursor = body["metadata"].get("next_cursor")
        if not cursor:
            return out


async def test_kill_9_mid_burst_at_1000_msgs_loses_nothing_acknowledged(tmp_path: Path) -> None:
    async with served_world(tmp_path) as (server, world):
        await burst_kill_and_check(server, world)


async def burst_kill_and_check(server: ServerChild, world: World) -> None:
    poster = Poster(server.port, world)
    await poster.open()
    tasks: list[asyncio.Task[None]] = []
    start = time.perf_counter()
    killed_at: float | None = None
    i = 0
    while True:
        due = start + i / RATE
        elapsed = due - start
        # Mid-burst: once the load runs and answers arrive (a busy machine is slow to start).
        if killed_at is None and elapsed >= KILL_AFTER and len(poster.acked) >= MIN_ACKED:
            server.kill9()
            killed_at = elapsed
        if killed_at is not None and elapsed >= killed_at + AFTER_KILL:
            break
        if elapsed >= MAX_SECONDS:
            break
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(poster.post(f"t{i}")))
        i += 1
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    poster.close()
    killed = killed_at is not None
    assert killed, f"fewer than {MIN_ACKED} POSTs answered in {MAX_SECONDS:g} s of load"
    assert poster.acked, "no POST was answered before the kill"
    print(f"acknowledged before the kill: {len(poster.acked)}, refused or cut: {poster.failed}")

    await server.start()
    headers = {"X-API-Key": world.person_key}
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=30) as http:
        log = await room_log(http, world.room_id)

    by_token = {str(m["content"]).rsplit(" ", 1)[-1]: m for m in log}
    missing = sorted(set(poster.acked) - set(by_token))
    assert not missing, f"{len(missing)} acknowledged messages lost, e.g. {missing[:5]}"
    for token, message_id in poster.acked.items():
        stored = by_token[token]
        assert stored["id"] == message_id
        status = stored["metadata"].get("delivery_status", {})
        assert world.agent_id in status, f"no delivery for acknowledged {token}"
    seqs = [int(m["seq"]) for m in log]
    assert seqs == list(range(1, len(seqs) + 1)), "the room's sequence has a gap or a duplicate"
    assert len(by_token) == len(log), "a message was stored twice"
