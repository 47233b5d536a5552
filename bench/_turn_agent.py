"""The agent process of bench/agent_turn.py: one reply per mention, no model latency at all.

``BENCH_AGENT_MODE=sdk`` runs EITHER SDK (our venv or tests/compat/.venv, it imports only
``band``): a scripted adapter whose "model" answers every message at once with one
``band_send_message`` call (``tools.execute_tool_call``, the path a model's tool call takes),
content ``re <last word of the mention>``, mentioning the sender. ``BENCH_AGENT_MODE=raw`` is
the floor: no SDK, one WebSocket (joins the rooms of ``BENCH_ROOMS``) and one keep-alive
HTTP/1.1 connection per room in flight, the same reply posted straight to the REST API.
``BENCH_AGENT_MODE=raw-sdk`` is that floor sending what our SDK sends a turn: its socket asks
for the claim with the push (``claim_on_push=working``), the reply carries a ``turn_id``, the
mention's handle and an ``Idempotency-Key``, and ``/processed`` follows the reply (what the
SDK's requests cost the platform, apart from what its code costs the agent). A raw agent
whose request is refused exits (status 3): no turn of a meaningless floor counts as done.

Environment: BENCH_AGENT_ID, BENCH_API_KEY, BAND_WS_URL, BAND_REST_URL, BENCH_ROOMS (raw),
BENCH_PERSON_HANDLE (raw-sdk), BENCH_AGENT_CALLS (cProfile stats written there).
Prints ``BENCH_READY <epoch seconds>`` once started (the SDK: ``Agent.start()`` returned).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench._timeline, any venv
from bench import _timeline


def count_calls() -> None:
    """With ``BENCH_AGENT_CALLS`` (``bench._turn_calls``): cProfile from SIGUSR1 on, its stats
    written there at exit."""
    calls = os.environ.get("BENCH_AGENT_CALLS")
    if calls:
        import atexit
        import cProfile

        profile = cProfile.Profile()
        signal.signal(signal.SIGUSR1, lambda *_: profile.enable())
        atexit.register(lambda: profile.dump_stats(calls))


def reply_text(content: str) -> str:
    return "re " + content.rsplit(" ", 1)[-1]


async def run_sdk() -> None:
    from band import Agent
    from band.core import SimpleAdapter

    class Scripted(SimpleAdapter[None]):  # type: ignore[misc]
        """A zero-latency model that calls ``band_send_message`` once per message."""

        async def on_message(  # type: ignore[no-untyped-def]
            self,
            msg,
            tools,
            history,
            participants_msg,
            contacts_msg,
            *,
            is_session_bootstrap,
            room_id,
        ) -> None:
            await tools.execute_tool_call(
                "band_send_message",
                {"content": reply_text(msg.content), "mentions": [msg.sender_id]},
            )

    agent = Agent.create(
        adapter=Scripted(),
        agent_id=os.environ["BENCH_AGENT_ID"],
        api_key=os.environ["BENCH_API_KEY"],
        ws_url=os.environ["BAND_WS_URL"],
        rest_url=os.environ["BAND_REST_URL"],
    )
    await agent.start()
    count_calls()
    print(f"BENCH_READY {time.time():.6f}", flush=True)
    await agent.run_forever()


async def run_raw(sdk_traffic: bool) -> None:
    import uuid

    import websockets

    agent_id, key = os.environ["BENCH_AGENT_ID"], os.environ["BENCH_API_KEY"]
    rest = urlsplit(os.environ["BAND_REST_URL"])
    host, port = rest.hostname or "127.0.0.1", rest.port or 80
    url = f"{os.environ['BAND_WS_URL']}?vsn=2.0.0&agent_id={agent_id}"
    if sdk_traffic:
        url += "&claim_on_push=working"
    ws = await websockets.connect(
        url, additional_headers={"x-api-key": key}, compression=None, max_queue=None
    )
    rooms = os.environ["BENCH_ROOMS"].split(",")
    for i, room in enumerate(rooms):
        await ws.send(json.dumps([str(i), str(i), f"chat_room:{room}", "phx_join", {}]))
        reply = json.loads(await ws.recv())
        assert reply[4]["status"] == "ok", reply
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    head = f"Host: {host}\r\nx-api-key: {key}\r\nContent-Type: application/json\r\n"

    async def answer(room: str, payload: dict[str, Any]) -> None:
        path = f"/api/v1/agent/chats/{room}/messages"
        mention: dict[str, str] = {"id": payload["sender_id"]}
        message: dict[str, Any] = {"content": reply_text(payload["content"])}
        extra = ""
        if sdk_traffic:
            message["turn_id"] = str(uuid.uuid4())
            mention["handle"] = os.environ["BENCH_PERSON_HANDLE"]  # the SDK's, from its roster
            extra = f"Idempotency-Key: band-turn-{uuid.uuid4().hex}\r\n"
        message["mentions"] = [mention]
        await post(path, json.dumps({"message": message}).encode(), extra)
        if sdk_traffic:
            await post(f"{path}/{payload['id']}/processed", b"", "")

    async def post(path: str, body: bytes, extra: str) -> None:
        request = (
            f"POST {path} HTTP/1.1\r\n{head}{extra}Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        conn = idle.pop() if idle else await asyncio.open_connection(host, port)
        reader, writer = conn
        _timeline.stamp("request")  # before the write: the server may run before it returns
        writer.write(request)
        try:
            response = await reader.readuntil(b"\r\n\r\n")
        except (OSError, asyncio.IncompleteReadError):  # the server closed an idle connection
            writer.close()
            conn = reader, writer = await asyncio.open_connection(host, port)
            writer.write(request)
            response = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in response.split(b"\r\n")[1:]:
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        body = await reader.readexactly(length)
        if not response.startswith((b"HTTP/1.1 2", b"HTTP/1.0 2")):
            # A refused request makes the floor meaningless: stop, so no turn counts as done.
            sys.stderr.write(f"refused: POST {path}: {response[:60]!r} {body[:200]!r}\n")
            os._exit(3)
        idle.append(conn)

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(20)
            await ws.send(json.dumps([None, "hb", "phoenix", "heartbeat", {}]))

    beat = asyncio.create_task(heartbeat())
    count_calls()
    print(f"BENCH_READY {time.time():.6f}", flush=True)
    tasks: set[asyncio.Task[None]] = set()
    async for raw in ws:
        _timeline.stamp("frame")
        frame: list[Any] = json.loads(raw)
        payload = frame[4]
        if frame[3] != "message_created" or payload.get("sender_type") != "User":
            continue
        room = frame[2].split(":", 1)[1]
        task = asyncio.create_task(answer(room, payload))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    beat.cancel()


def main() -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    mode = os.environ.get("BENCH_AGENT_MODE", "sdk")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # exits through atexit: stamps kept
    if os.environ.get("BENCH_AGENT_PROBES"):  # our SDK: its methods stamp their steps
        _timeline.install("agent", _timeline.AGENT_PROBES)
    else:
        _timeline.activate("agent")  # a raw agent stamps its own steps; band-sdk none
    if mode.startswith("raw"):
        asyncio.run(run_raw(sdk_traffic=mode == "raw-sdk"))
    else:
        asyncio.run(run_sdk())


if __name__ == "__main__":
    main()
