"""The soak's people besides the posters: `python -m bench._soak_people SPEC_FILE` (bench-only).

SPEC: {"url", "reader_key", "web_key", "uploader_key", "rooms": [...], "reads", "pages",
       "files", "watched_rooms"}.

In one process, each at its own pace (per second): people reading histories over REST (the
latest page of a room, and sometimes the page before it); a person in the web app (signed in
with their key, as the sign-in form does) opening the room list, a room and the room's timeline
as its script reads it; files uploaded to a room and downloaded again, the bytes compared; and
one person's socket joined to a few rooms, as the room page holds it. Every answer is counted
by status class; a download whose bytes differ counts as a mismatch.

Lines on stdin: ``stop`` (no more requests; the socket stays), ``exit`` (print the results
as one JSON line and end). It prints ``{"phase": "ready"}`` once signed in and joined.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import uvloop
import websockets

from bench._loadgen import percentile

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


class People:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.rooms: list[str] = spec["rooms"]
        self.rng = random.Random(2026)
        self.counts: Counter[str] = Counter()
        self.latency: defaultdict[str, list[float]] = defaultdict(list)
        self.stored: list[tuple[str, str, str]] = []  # room, file id, sha256
        self.going = True

    def note(self, what: str, response: httpx.Response | None, started: float) -> None:
        """Count the answer by status class; no answer (a timeout after 30 s, a dropped
        connection) is a ``transport error``, not a status the node gave."""
        kind = "transport error" if response is None else f"{response.status_code // 100}xx"
        self.counts[f"{what} {kind}"] += 1
        self.latency[what].append((time.perf_counter() - started) * 1000)

    async def timed(
        self, what: str, send: Callable[[], Awaitable[httpx.Response]]
    ) -> httpx.Response | None:
        started = time.perf_counter()
        try:
            response: httpx.Response | None = await send()
        except httpx.HTTPError:
            response = None
        self.note(what, response, started)
        return response

    async def paced(self, per_second: float, step: Callable[[], Awaitable[None]]) -> None:
        if per_second <= 0:
            return
        while self.going:
            await asyncio.sleep(self.rng.expovariate(per_second))
            if self.going:
                await step()

    async def read_history(self, http: httpx.AsyncClient) -> None:
        room = self.rng.choice(self.rooms)
        path = f"/api/v1/me/chats/{room}/messages"
        latest = await self.timed("history", lambda: http.get(path, params={"limit": 50}))
        cursor = None if latest is None or latest.status_code != 200 else latest.json()
        cursor = ((cursor or {}).get("metadata") or {}).get("next_cursor")
        if cursor and self.rng.random() < 0.3:
            older = {"limit": 50, "cursor": cursor}
            await self.timed("history", lambda: http.get(path, params=older))

    async def open_page(self, web: httpx.AsyncClient) -> None:
        room = self.rng.choice(self.rooms)
        path = self.rng.choice(["/rooms", f"/rooms/{room}", f"/rooms/{room}/timeline"])
        accept = {"Accept": "application/json"} if path.endswith("timeline") else {}
        await self.timed("page", lambda: web.get(path, headers=accept))

    async def share_file(self, http: httpx.AsyncClient) -> None:
        """Upload new bytes to a room, then download a file shared earlier and compare."""
        room = self.rng.choice(self.rooms)
        body = os.urandom(self.rng.randint(2_000, 64_000))
        headers = {"x-file-name": f"soak-{len(self.stored)}.bin"}
        path = f"/api/v1/me/chats/{room}/files"
        up = await self.timed("upload", lambda: http.put(path, content=body, headers=headers))
        if up is not None and up.status_code in (200, 201):
            self.stored.append((room, up.json()["data"]["id"], hashlib.sha256(body).hexdigest()))
        if not self.stored:
            return
        room, file_id, digest = self.rng.choice(self.stored)
        where = f"/api/v1/me/chats/{room}/files/{file_id}"
        got = await self.timed("download", lambda: http.get(where))
        content = got.content if got is not None and got.status_code == 200 else None
        if content is not None and hashlib.sha256(content).hexdigest() != digest:
            self.counts["download mismatches"] += 1

    async def watch(self, ready: asyncio.Event) -> None:
        """A person's socket in a few rooms (the room page's), counting what it is pushed."""
        url = self.spec["url"].replace("http", "ws", 1) + "/api/v1/socket/websocket?vsn=2.0.0"
        headers = {"x-api-key": self.spec["reader_key"]}
        async with websockets.connect(url, additional_headers=headers, max_queue=None) as ws:
            for n, room in enumerate(self.rooms[: int(self.spec["watched_rooms"])]):
                await ws.send(json.dumps([str(n), str(n), f"chat_room:{room}", "phx_join", {}]))
            ready.set()
            beat = asyncio.create_task(heartbeats(ws))
            try:
                async for raw in ws:
                    if json.loads(raw)[3] in ("message_created", "event_created"):
                        self.counts["pushes to a person"] += 1
            finally:
                beat.cancel()

    async def sign_in(self, web: httpx.AsyncClient) -> None:
        form = await web.get("/login")
        found = CSRF.search(form.text)
        assert found, form.text
        data = {"api_key": self.spec["web_key"], "csrf": found[1]}
        signed = await web.post("/login", data=data)
        assert signed.status_code == 303, signed.text


async def heartbeats(ws: websockets.ClientConnection) -> None:
    for ref in range(1000, 10**9):
        await asyncio.sleep(25)
        await ws.send(json.dumps([None, str(ref), "phoenix", "heartbeat", {}]))


async def main(spec: dict[str, Any]) -> None:
    people = People(spec)
    url, timeout = spec["url"], httpx.Timeout(30)
    reader = httpx.AsyncClient(
        base_url=url, headers={"X-API-Key": spec["reader_key"]}, timeout=timeout
    )
    uploader = httpx.AsyncClient(
        base_url=url, headers={"X-API-Key": spec["uploader_key"]}, timeout=timeout
    )
    web = httpx.AsyncClient(base_url=url, timeout=timeout)
    await people.sign_in(web)
    joined = asyncio.Event()
    watcher = asyncio.create_task(people.watch(joined))
    await asyncio.wait_for(joined.wait(), 60)
    print(json.dumps({"phase": "ready"}), flush=True)
    loads = [
        asyncio.create_task(people.paced(spec["reads"], lambda: people.read_history(reader))),
        asyncio.create_task(people.paced(spec["pages"], lambda: people.open_page(web))),
        asyncio.create_task(people.paced(spec["files"], lambda: people.share_file(uploader))),
    ]
    loop = asyncio.get_running_loop()
    while (line := (await loop.run_in_executor(None, sys.stdin.readline)).strip()) != "exit":
        if line in ("stop", ""):
            people.going = False
            await asyncio.gather(*loads, return_exceptions=True)
        if line == "":
            break
    watcher.cancel()
    for client in (reader, uploader, web):
        await client.aclose()
    result = {
        "counts": dict(people.counts),
        "files_stored": len(people.stored),
        "latency_ms": {
            what: {"p50": percentile(v, 0.5), "p99": percentile(v, 0.99), "n": len(v)}
            for what, v in people.latency.items()
        },
    }
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        uvloop.run(main(json.load(f)))
