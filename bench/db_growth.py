"""What grows with the database: each route of the soak's load timed on a fresh database and on
one pre-filled as after a long soak (``bench.prefill``), and each SQL statement they ran.

The app runs in this process (no sockets, no other load); a person and the soak's agents do
their turns (mention, ``/next``, ``/processing``, an event, a keyed reply, ``/processed``)
and the person reads ``GET /rooms`` (the web app's room list) and a room's history. For every
route: the median milliseconds at each size. With ``--statements``, every distinct statement
SQLite ran at the large size (traced), timed again alone with its ``EXPLAIN QUERY PLAN``.

    .venv/bin/python -m bench.db_growth [--rooms 50] [--agents-per-room 20] [--turns 4000]
        [--calls 30] [--statements]

Prints a table and writes bench/results/db_growth.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx

from bench.prefill import prefill
from bench.soak import World, seed
from compat.compat_harness import AgentCreds, Person

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
TRACED: list[str] = []


def _trace_sqlite() -> None:
    """Every SQLite connection the app opens records the statements it runs (expanded)."""
    from band_server.store import sqlite_inline

    original = sqlite_inline._pragmas

    def traced(conn: sqlite3.Connection, *, writer: bool) -> None:
        original(conn, writer=writer)
        conn.set_trace_callback(TRACED.append)

    sqlite_inline._pragmas = traced  # type: ignore[assignment]


async def _timed(times: dict[str, list[float]], name: str, call: Awaitable[httpx.Response]) -> Any:
    started = time.perf_counter()
    answer = await call
    times.setdefault(name, []).append((time.perf_counter() - started) * 1000)
    assert answer.status_code < 400, (name, answer.status_code, answer.text[:300])
    return answer.json() if "json" in answer.headers.get("content-type", "") else None


async def _rounds(data: Path, world: World, calls: int) -> dict[str, list[float]]:
    from band_server.app import create_app
    from band_server.config import Settings

    app = create_app(Settings(data_dir=data, database_url=None, redis_url=None))
    times: dict[str, list[float]] = {}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(transport=transport, base_url="http://band.test") as http,
            httpx.AsyncClient(transport=transport, base_url="http://band.test") as web,
        ):
            form = await web.get("/login")
            token = CSRF.search(form.text)
            assert token, form.text
            signed = await web.post("/login", data={"api_key": world.person.key, "csrf": token[1]})
            assert signed.status_code == 303, signed.text
            person = {"x-api-key": world.person.key}
            for n in range(calls):
                room = world.rooms[n % len(world.rooms)]
                agent = world.room_agents[n % len(world.rooms)][n % len(world.room_agents[0])]
                mine = {"x-api-key": agent.key}
                body = {
                    "message": {"content": f"@{agent.handle} q{n}", "mentions": [{"id": agent.id}]}
                }
                base = f"/api/v1/agent/chats/{room}"
                said = {**person, "idempotency-key": f"mention-{n}-{time.time()}"}
                await _timed(
                    times,
                    "person posts a mention",
                    http.post(f"/api/v1/me/chats/{room}/messages", json=body, headers=said),
                )
                got = await _timed(
                    times, "agent GET /next", http.get(f"{base}/messages/next", headers=mine)
                )
                msg = got["data"]["id"]
                await _timed(
                    times,
                    "agent /processing",
                    http.post(f"{base}/messages/{msg}/processing", headers=mine),
                )
                event = {"event": {"content": "looking", "message_type": "tool_call"}}
                await _timed(
                    times,
                    "agent posts an event",
                    http.post(f"{base}/events", json=event, headers=mine),
                )
                reply = {
                    "message": {
                        "content": f"@{world.person.handle} done",
                        "mentions": [{"id": world.person.id}],
                    }
                }
                keyed = {**mine, "idempotency-key": f"reply-{msg}"}
                await _timed(
                    times,
                    "agent posts a reply",
                    http.post(f"{base}/messages", json=reply, headers=keyed),
                )
                await _timed(
                    times,
                    "agent /processed",
                    http.post(f"{base}/messages/{msg}/processed", headers=mine),
                )
                await _timed(
                    times,
                    "person GET history",
                    http.get(
                        f"/api/v1/me/chats/{room}/messages", params={"limit": 50}, headers=person
                    ),
                )
                await _timed(
                    times, "web GET /rooms", web.get("/rooms", headers={"accept": "text/html"})
                )
    return times


def _replay(path: Path, statements: list[str]) -> list[dict[str, Any]]:
    """Each distinct statement timed alone (median of 3) with its query plan, slowest first."""
    conn = sqlite3.connect(path, isolation_level=None)
    seen: dict[str, dict[str, Any]] = {}
    for sql in statements:
        head = sql.strip().split()[0].upper() if sql.strip() else ""
        if head not in ("SELECT", "UPDATE", "INSERT", "DELETE", "WITH") or sql in seen:
            continue
        shape = re.sub(r"'[^']*'|\b\d+\b", "?", sql)
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql)]
        runs = []
        for _ in range(3):
            started = time.perf_counter()
            conn.execute("BEGIN")
            with contextlib.suppress(sqlite3.Error):
                conn.execute(sql).fetchall()
            conn.execute("ROLLBACK")
            runs.append((time.perf_counter() - started) * 1000)
        entry = seen.setdefault(sql, {"shape": shape, "ms": statistics.median(runs), "plan": plan})
        entry["ms"] = statistics.median(runs)
    conn.close()
    worst: dict[str, dict[str, Any]] = {}
    for entry in seen.values():  # the slowest instance of each shape
        if entry["shape"] not in worst or entry["ms"] > worst[entry["shape"]]["ms"]:
            worst[entry["shape"]] = entry
    return sorted(worst.values(), key=lambda e: -e["ms"])


async def _world(args: argparse.Namespace, data: Path) -> tuple[World, bool]:
    """The seeded world, or the one kept in ``data`` by an earlier ``--keep`` run (then
    already pre-filled: True)."""
    saved = data / "world.json"
    if saved.exists():
        raw = json.loads(saved.read_text())
        world = World(
            Person(**raw["person"]),
            [AgentCreds(**a) for a in raw["agents"]],
            raw["rooms"],
            [[AgentCreds(**a) for a in room] for room in raw["room_agents"]],
        )
        return world, True
    data.mkdir(parents=True, exist_ok=True)
    agents = args.rooms * args.agents_per_room
    print(f"seeding {agents} agents in {args.rooms} rooms ...", flush=True)
    world = await seed(data, agents, args.agents_per_room)
    saved.write_text(json.dumps(asdict(world)))
    return world, False


async def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    from sqlalchemy.ext.asyncio import create_async_engine

    _trace_sqlite()
    data = args.keep or work / "data"
    world, filled = await _world(args, data)
    out: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}, "sizes": []}
    for turns in (args.turns,) if filled else (0, args.turns):
        if turns and not filled:
            engine = create_async_engine(f"sqlite+aiosqlite:///{data / 'band.db'}")
            started = time.monotonic()
            written = await prefill(
                engine, turns, on_batch=lambda n: print(f"  prefilled {n} messages", flush=True)
            )
            await engine.dispose()
            print(f"prefilled {written} messages in {time.monotonic() - started:.0f} s", flush=True)
        size = (data / "band.db").stat().st_size / 2**20
        TRACED.clear()
        started = time.monotonic()
        times = await _rounds(data, world, args.calls)
        medians = {name: round(statistics.median(v), 2) for name, v in times.items()}
        out["sizes"].append(
            {"turns_per_room": turns, "db_mib": round(size, 1), "median_ms": medians}
        )
        print(f"{turns} turns a room ({size:.0f} MiB): " + json.dumps(medians), flush=True)
    if args.statements:
        out["statements"] = _replay(data / "band.db", list(TRACED))[:25]
    return out


def table(out: dict[str, Any]) -> str:
    small, large = out["sizes"][0], out["sizes"][-1]
    lines = [
        f"| route | ms at {small['db_mib']} MiB | ms at {large['db_mib']} MiB |",
        "| --- | --- | --- |",
    ]
    for name, ms in small["median_ms"].items():
        lines.append(f"| {name} | {ms} | {large['median_ms'].get(name)} |")
    for entry in out.get("statements", [])[:12]:
        lines.append(
            f"\n{entry['ms']:.2f} ms  {entry['shape'][:300]}\n    " + "\n    ".join(entry["plan"])
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=50, help="rooms (the soak's: 50)")
    parser.add_argument("--agents-per-room", type=int, default=20, help="agents in each room")
    parser.add_argument("--turns", type=int, default=4000, help="finished turns prefilled a room")
    parser.add_argument("--calls", type=int, default=30, help="turns timed at each size")
    parser.add_argument("--statements", action="store_true", help="time each statement alone")
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="a folder kept for the next run: the world and the pre-filled database (a next run"
        " with it times the large size only, after the migrations the app runs at start)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "db_growth.json", help="JSON out")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="band-growth-") as tmp:
        out = asyncio.run(run(args, Path(tmp)))
    print(table(out))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2, default=str))


if __name__ == "__main__":
    main()
