"""The person of bench/agent_turn.py: `python -m bench._turn_driver SPEC_JSON` prints one result.

Bench-only, in its own process (uvloop), as lean as ``bench._loadgen`` (whose pre-built
HTTP/1.1 requests on keep-alive connections it reuses). The person's socket joins every room;
mentions of the agent are posted open-loop at ``rate`` per second, round-robin over the rooms,
content ``@<handle> q <token>``; a turn ends when the person's socket has the agent's
``message_created`` whose content ends ``re <token>`` (the server puts the mention first),
timed when its bytes arrive (``bench._ws_receiver``), before the person decodes it.
Latency counts from each mention's *scheduled* send time (no coordinated omission), and
also from the moment its task starts: the loop's timer fires up to a millisecond late
(uvloop's timers count whole milliseconds), which is the person's share, not the platform's
or the agent's. Waiting for a free connection still counts in both.

SPEC: {"host", "port", "person_key", "agent_id", "agent_handle", "rooms": [...], "rate",
       "seconds", "connections", "token_prefix"}
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import uvloop

from bench import _timeline
from bench._loadgen import Conn, open_loop, percentile
from bench._ws_receiver import listen


async def run(spec: dict[str, Any]) -> dict[str, Any]:
    rate, seconds = float(spec["rate"]), float(spec["seconds"])
    if spec.get("timeline"):
        _timeline.activate("person", Path(spec["timeline"]))
    total = max(1, int(rate * seconds))
    rooms: list[str] = spec["rooms"]
    host, port, key = spec["host"], int(spec["port"]), spec["person_key"]
    prefix = spec["token_prefix"]
    mention = json.dumps([{"id": spec["agent_id"]}])
    scheduled: dict[str, tuple[float, float]] = {}
    turn_ms: list[float] = []
    from_start_ms: list[float] = []
    late_ms: list[float] = []
    errors = 0
    all_in = asyncio.Event()

    def on_frame(text: str, arrived: float) -> None:
        if " re " not in text:  # cheap: only the agent's replies are parsed
            return
        frame = json.loads(text)
        payload = frame[4]
        if frame[3] != "message_created" or payload.get("sender_type") != "Agent":
            return
        token = str(payload["content"]).rsplit(" ", 1)[-1]
        times = scheduled.pop(token, None)
        if times is not None:
            _timeline.stamp("reply", token, arrived)
            turn_ms.append((arrived - times[0]) * 1000)
            from_start_ms.append((arrived - times[1]) * 1000)
            if len(turn_ms) >= total:
                all_in.set()

    joins = [[str(i), str(i), f"chat_room:{room}", "phx_join", {}] for i, room in enumerate(rooms)]
    listener = await listen(
        f"ws://{host}:{port}/api/v1/socket/websocket?vsn=2.0.0", {"x-api-key": key}, joins, on_frame
    )

    pool: asyncio.Queue[Conn] = asyncio.Queue()
    for _ in range(int(spec["connections"])):
        r, w = await asyncio.open_connection(host, port, limit=1 << 20)
        pool.put_nowait(Conn(r, w))

    async def one(i: int, t0: float) -> None:
        nonlocal errors
        started = time.perf_counter()
        late_ms.append((started - t0) * 1000)
        token = f"{prefix}{i}"
        room = rooms[i % len(rooms)]
        body = (
            '{"message": {"content": "@' + spec["agent_handle"] + " q " + token + '", '
            '"mentions": ' + mention + "}}"
        ).encode()
        request = (
            f"POST /api/v1/me/chats/{room}/messages HTTP/1.1\r\nHost: {host}\r\n"
            f"x-api-key: {key}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        scheduled[token] = (t0, started)
        _timeline.stamp("start", token, started)
        conn = await pool.get()
        try:
            status = await conn.exchange(request)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            status = 599
        finally:
            pool.put_nowait(conn)
        if not 200 <= status < 300:
            errors += 1
            scheduled.pop(token, None)

    await open_loop(rate, total, one)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(all_in.wait(), timeout=20)
    listener.close()
    return {
        "rate": rate,
        "sent": total,
        "errors": errors,
        "replied": len(turn_ms),
        "turn_p50_ms": percentile(turn_ms, 0.50),
        "turn_p90_ms": percentile(turn_ms, 0.90),
        "turn_p99_ms": percentile(turn_ms, 0.99),
        "turn_max_ms": percentile(turn_ms, 1.0),
        "from_start_p50_ms": percentile(from_start_ms, 0.50),
        "from_start_p99_ms": percentile(from_start_ms, 0.99),
        "timer_late_p50_ms": percentile(late_ms, 0.50),
    }


if __name__ == "__main__":
    print(json.dumps(uvloop.run(run(json.loads(sys.argv[1])))))
