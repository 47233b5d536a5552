"""Mention delivery latency: a person's POST to the agent's socket receiving ``message_created``.

Open-loop load at several rates against the platform (SQLite, loopback), printed beside a floor
measured in the same run: a minimal app on the same server stack that does one durable SQLite
insert per POST and pushes one WebSocket frame.

    .venv/bin/python -m bench.mention_latency [--rates 50,200,1000] [--seconds 5]

Prints a table and writes bench/results/mention_latency.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import websockets

from bench._platform import free_port, seed, serve_floor, serve_platform

RESULTS = Path(__file__).parent / "results"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


async def drive(
    rate: int,
    seconds: float,
    post: Callable[[httpx.AsyncClient, str], Awaitable[int]],
    receive: Callable[[], Awaitable[str | None]],
    client: httpx.AsyncClient,
) -> dict[str, Any]:
    """Send ``rate`` posts per second for ``seconds``; match each push to its send time."""
    sent: dict[str, float] = {}
    latencies: list[float] = []
    errors = 0
    total = int(rate * seconds)

    async def reader() -> None:
        while len(latencies) < total:
            try:
                token = await receive()
            except websockets.ConnectionClosed:
                return  # the server dropped an overloaded listener: count what arrived
            if token is None:
                return
            t0 = sent.pop(token, None)
            if t0 is not None:
                latencies.append((time.perf_counter() - t0) * 1000)

    async def one(i: int) -> None:
        nonlocal errors
        token = f"t{rate}-{i}"
        sent[token] = time.perf_counter()
        try:
            status = await post(client, token)
        except httpx.HTTPError:
            status = 599  # timed out waiting for the overloaded server
        if status >= 300:
            errors += 1
            sent.pop(token, None)

    read_task = asyncio.create_task(reader())
    start = time.perf_counter()
    tasks = []
    for i in range(total):
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(i)))
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - start
    try:
        await asyncio.wait_for(read_task, timeout=10)
    except TimeoutError:
        read_task.cancel()
    return {
        "rate": rate,
        "sent": total,
        "received": len(latencies),
        "errors": errors,
        "achieved_rate": round(total / elapsed, 1),
        "p50_ms": round(percentile(latencies, 0.50), 2),
        "p99_ms": round(percentile(latencies, 0.99), 2),
        "mean_ms": round(statistics.fmean(latencies), 2) if latencies else None,
    }


async def bench_platform(rates: list[int], seconds: float) -> list[dict[str, Any]]:
    data = Path(tempfile.mkdtemp(prefix="band-bench-"))
    s = await seed(data)
    port = free_port()
    proc = serve_platform(data, port)
    out = []
    try:
        url = f"ws://127.0.0.1:{port}/api/v1/socket/websocket?vsn=2.0.0&agent_id={s.agent_id}"
        async with websockets.connect(
            url, additional_headers={"x-api-key": s.agent_key}, compression=None, ping_interval=None
        ) as ws:
            await ws.send(json.dumps(["1", "1", f"chat_room:{s.room_id}", "phx_join", {}]))
            reply = json.loads(await ws.recv())
            assert reply[4]["status"] == "ok", reply

            async def receive() -> str | None:
                while True:
                    frame = json.loads(await ws.recv())
                    if frame[3] == "message_created":
                        return str(frame[4]["content"]).rsplit(" ", 1)[-1]

            mention = [{"id": s.agent_id}]

            async def post(client: httpx.AsyncClient, token: str) -> int:
                r = await client.post(
                    f"/api/v1/me/chats/{s.room_id}/messages",
                    json={"message": {"content": f"ping {token}", "mentions": mention}},
                )
                return r.status_code

            limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}",
                headers={"x-api-key": s.user_key},
                limits=limits,
                timeout=30,
            ) as client:
                for rate in rates:
                    print(f"  platform @ {rate} msg/s ...", flush=True)
                    out.append(await drive(rate, seconds, post, receive, client))
    finally:
        proc.kill()
        proc.wait()
    return out


async def bench_floor(rates: list[int], seconds: float) -> list[dict[str, Any]]:
    data = Path(tempfile.mkdtemp(prefix="band-floor-"))
    port = free_port()
    proc = serve_floor(data, port)
    out = []
    try:
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws", compression=None, ping_interval=None
        ) as ws:

            async def receive() -> str | None:
                frame = json.loads(await ws.recv())
                return str(frame[4]["content"]).rsplit(" ", 1)[-1]

            async def post(client: httpx.AsyncClient, token: str) -> int:
                r = await client.post("/post", json={"content": f"ping {token}"})
                return r.status_code

            limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=30
            ) as client:
                for rate in rates:
                    print(f"  floor    @ {rate} msg/s ...", flush=True)
                    out.append(await drive(rate, seconds, post, receive, client))
    finally:
        proc.kill()
        proc.wait()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="50,200,1000")
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    rates = [int(r) for r in args.rates.split(",")]
    print("floor (one durable insert + one frame):", flush=True)
    floor = asyncio.run(bench_floor(rates, args.seconds))
    print("platform (Band POST -> agent socket):", flush=True)
    platform = asyncio.run(bench_platform(rates, args.seconds))
    print()
    header = f"{'rate':>6} | {'floor p50':>9} {'floor p99':>9} | {'band p50':>9} {'band p99':>9} |"
    print(header + f" {'p50 x':>6} {'p99 x':>6} | {'band recv':>9} {'achieved':>8}")
    print("-" * len(header) + "-" * 36)
    rows = []
    for f, p in zip(floor, platform, strict=True):
        r50 = p["p50_ms"] / f["p50_ms"] if f["p50_ms"] else float("nan")
        r99 = p["p99_ms"] / f["p99_ms"] if f["p99_ms"] else float("nan")
        cells = [
            f"{f['rate']:>6}",
            f"{f['p50_ms']:>9} {f['p99_ms']:>9}",
            f"{p['p50_ms']:>9} {p['p99_ms']:>9}",
            f"{r50:>6.2f} {r99:>6.2f}",
            f"{p['received']:>4}/{p['sent']:<4} {p['achieved_rate']:>8}",
        ]
        print(" | ".join(cells))
        rows.append({"floor": f, "platform": p, "p50_ratio": r50, "p99_ratio": r99})
    sustained = [p["rate"] for p in platform if p["p99_ms"] < 50 and p["received"] == p["sent"]]
    best = max(sustained) if sustained else None
    print(f"\nhighest rate tried with p99 < 50 ms and nothing lost: {best}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "mention_latency.json"
    out.write_text(json.dumps({"rows": rows, "sustained_rate": best}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
