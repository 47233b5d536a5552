"""A lean open-loop load generator: `python -m bench._loadgen SPEC_JSON` prints one JSON result.

Bench-only. It runs in its own process (uvloop) so that the client's own CPU never counts as
the server's, and it is deliberately cheap per request (pre-built HTTP/1.1 requests on
keep-alive connections, no client library), so 1,000 requests a second leave CPU for the
server on two cores. Latency is measured from each message's *scheduled* send time, so a
server that falls behind shows its queueing (no coordinated omission); a push is timed when
its bytes arrive (``bench._ws_receiver``), before the generator decodes it.

SPEC: {"host", "port", "path", "headers": {...}, "body_template": "...{token}...",
       "ws_url", "ws_headers", "join": [frame...], "rate", "seconds", "connections",
       "token_prefix"}
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import uvloop

from bench._ws_receiver import listen


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return round(ordered[k], 2)


def collector_off() -> None:
    """Freeze what setup allocated and turn the cycle collector off until :func:`collector_on`:
    a run's objects are freed by their counts, and nothing pauses the sender meanwhile."""
    gc.collect()
    gc.freeze()
    gc.disable()


def collector_on() -> None:
    gc.enable()
    gc.unfreeze()


async def open_loop(rate: float, total: int, one: Callable[[int, float], Awaitable[None]]) -> float:
    """Start ``one(i, t0)`` at each scheduled time ``t0`` (``rate`` a second), whatever the
    earlier ones are doing; seconds until all ``total`` have finished."""
    start = time.perf_counter()
    tasks: list[asyncio.Task[None]] = []
    for i in range(total):
        t0 = start + i / rate
        delay = t0 - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(i, t0)))
    await asyncio.gather(*tasks)
    return time.perf_counter() - start


class Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def exchange(self, request: bytes) -> int:
        status, _ = await self.request(request)
        return status

    async def request(self, request: bytes) -> tuple[int, bytes]:
        """Send one pre-built HTTP/1.1 request; its status and body (``Content-Length``)."""
        self.writer.write(request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        body = await self.reader.readexactly(length) if length else b""
        return status, body


async def run(spec: dict[str, Any]) -> dict[str, Any]:
    rate, seconds = int(spec["rate"]), float(spec["seconds"])
    total = int(rate * seconds)
    prefix = spec["token_prefix"]
    head = f"POST {spec['path']} HTTP/1.1\r\nHost: {spec['host']}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in spec["headers"].items())
    head += "Content-Type: application/json\r\n"
    template: str = spec["body_template"]

    scheduled: dict[str, float] = {}
    push_ms: list[float] = []
    ack_ms: list[float] = []
    errors = 0
    acked = 0

    everything = asyncio.get_running_loop().create_future()

    def pushed(text: str, arrived: float) -> None:
        frame = json.loads(text)
        if frame[3] != "message_created":
            return
        token = str(frame[4]["content"]).rsplit(" ", 1)[-1]
        t0 = scheduled.pop(token, None)
        if t0 is not None:
            push_ms.append((arrived - t0) * 1000)
            if len(push_ms) >= total and not everything.done():
                everything.set_result(None)

    listener = await listen(
        spec["ws_url"], spec.get("ws_headers") or {}, spec.get("join") or [], pushed
    )

    pool: asyncio.Queue[Conn] = asyncio.Queue()
    for _ in range(int(spec["connections"])):
        r, w = await asyncio.open_connection(spec["host"], int(spec["port"]), limit=1 << 20)
        pool.put_nowait(Conn(r, w))

    async def one(i: int, t0: float) -> None:
        nonlocal errors, acked
        token = f"{prefix}{i}"
        body = template.replace("{token}", token).encode()
        request = (head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        scheduled[token] = t0
        conn = await pool.get()
        try:
            status = await conn.exchange(request)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            status = 599
        finally:
            pool.put_nowait(conn)
        if 200 <= status < 300:
            acked += 1
            ack_ms.append((time.perf_counter() - t0) * 1000)
        else:
            errors += 1
            scheduled.pop(token, None)

    collector_off()  # until the last push is in
    try:
        sent_for = await open_loop(rate, total, one)
        # every push in, or the socket closed (a push lost then stays missing), or 15 s
        await asyncio.wait(
            {everything, listener.closed}, timeout=15, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        collector_on()
    listener.close()
    return {
        "rate": rate,
        "sent": total,
        "acked": acked,
        "errors": errors,
        "received": len(push_ms),
        "achieved_rate": round(total / sent_for, 1),
        "push_p50_ms": percentile(push_ms, 0.50),
        "push_p99_ms": percentile(push_ms, 0.99),
        "ack_p50_ms": percentile(ack_ms, 0.50),
        "ack_p99_ms": percentile(ack_ms, 0.99),
    }


if __name__ == "__main__":
    print(json.dumps(uvloop.run(run(json.loads(sys.argv[1])))))
