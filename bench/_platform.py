"""Bench helpers: seed a data folder, and serve the platform from it in a subprocess."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from band_server.services.identity import accounts
from band_server.services.identity.principals import Principal
from band_server.services.rooms import membership as rooms
from band_server.store.db import Database
from band_server.store.migrate import upgrade

_ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Seed:
    user_key: str
    user_id: str
    agent_id: str
    agent_key: str
    room_id: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def seed(data_dir: Path, database_url: str | None = None) -> Seed:
    """A person, their agent and a room with both, written straight to the database."""
    data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(database_url or f"sqlite+aiosqlite:///{data_dir / 'band.db'}")
    await upgrade(db.engine)
    async with db.write() as session:
        user, user_key = await accounts.create_user(session, name="Bench", handle="bench")
        agent, agent_key = await accounts.create_agent(
            session, user, name="Target", description="The agent the benchmark mentions"
        )
        owner = Principal("user", user.id, user.name, user.handle)
        room, _ = await rooms.create_room(session, owner, title="bench", task_id=None)
        await rooms.add_participant(session, owner, room, agent.id)
        result = Seed(user_key, user.id, agent.id, agent_key, room.id)
    await db.dispose()
    return result


def seed_by(tree: Path, data: Path) -> Seed:
    """The seed written by another build's own code (its schema may be older than ours)."""
    code = (
        "import asyncio, dataclasses, json, pathlib, sys;"
        "from bench._platform import seed;"
        "s = asyncio.run(seed(pathlib.Path(sys.argv[1])));"
        "print(json.dumps(dataclasses.asdict(s)))"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree / "src"), str(_ROOT)]))
    out = subprocess.run(
        [sys.executable, "-c", code, str(data)], env=env, capture_output=True, text=True, cwd=_ROOT
    )
    if out.returncode != 0:
        raise RuntimeError(f"seeding with {tree} failed:\n{out.stderr[-2000:]}")
    return Seed(**json.loads(out.stdout.strip().splitlines()[-1]))


def wait_http(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1.0).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server at {url} did not come up")


def serve_platform(
    data_dir: Path,
    port: int,
    database_url: str | None = None,
    redis_url: str | None = None,
    pythonpath: Path | None = None,
    prefix: tuple[str, ...] = (),
    start_timeout: float = 60.0,
    preamble: str = "",
) -> subprocess.Popen[bytes]:
    """``band serve``'s stack (server_stack.uvicorn_options), without the access log.

    ``pythonpath``: a source folder served instead of the installed one (another build);
    ``prefix``: a command the server runs under (e.g. valgrind), which may start it slowly;
    ``preamble``: Python statements the server process runs first (e.g. bench probes).
    """
    code = preamble + (
        "import uvicorn, pathlib;"
        "from band_server.app import create_app;"
        "from band_server.config import Settings;"
        "from band_server.server_stack import uvicorn_options;"
        f"app = create_app(Settings(data_dir=pathlib.Path({str(data_dir)!r}),"
        f" database_url={database_url!r}, redis_url={redis_url!r}));"
        f"uvicorn.run(app, host='127.0.0.1', port={port}, log_level='warning',"
        " access_log=False, **uvicorn_options())"
    )
    env = dict(os.environ, BAND_DATABASE_URL="", BAND_REDIS_URL="")
    env.pop("BAND_DATABASE_URL")
    env.pop("BAND_REDIS_URL")
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen([*prefix, sys.executable, "-c", code], env=env)
    wait_http(f"http://127.0.0.1:{port}/healthz", timeout=start_timeout)
    return proc


def serve_floor(
    data_dir: Path, port: int, prefix: tuple[str, ...] = (), start_timeout: float = 20.0
) -> subprocess.Popen[bytes]:
    """``bench/floor_app.py`` on ``port`` (``prefix`` as for :func:`serve_platform`)."""
    env = dict(os.environ, FLOOR_DB=str(data_dir / "floor.db"))
    script = Path(__file__).with_name("floor_app.py")
    proc = subprocess.Popen([*prefix, sys.executable, str(script), str(port)], env=env)
    deadline = time.monotonic() + start_timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.1)
    raise RuntimeError("floor server did not come up")


def floor_mention_spec(port: int, connections: int = 64) -> dict[str, Any]:
    """The load generator's spec (``bench/_loadgen.py``) for the floor's POST and socket."""
    return {
        "host": "127.0.0.1",
        "port": port,
        "path": "/post",
        "headers": {},
        "body_template": '{"content": "ping {token}"}',
        "ws_url": f"ws://127.0.0.1:{port}/ws",
        "connections": connections,
    }


def mention_spec(s: Seed, post_port: int, ws_port: int, connections: int = 64) -> dict[str, Any]:
    """The load generator's spec: the seed's person mentions its agent, whose socket is on
    ``ws_port`` (joined to the room)."""
    mention = json.dumps([{"id": s.agent_id}])
    return {
        "host": "127.0.0.1",
        "port": post_port,
        "path": f"/api/v1/me/chats/{s.room_id}/messages",
        "headers": {"x-api-key": s.user_key},
        "body_template": '{"message": {"content": "ping {token}", "mentions": ' + mention + "}}",
        "ws_url": f"ws://127.0.0.1:{ws_port}/api/v1/socket/websocket?vsn=2.0.0"
        f"&agent_id={s.agent_id}",
        "ws_headers": {"x-api-key": s.agent_key},
        "join": [["1", "1", f"chat_room:{s.room_id}", "phx_join", {}]],
        "connections": connections,
    }


def fsync_probe(folder: Path, commits: int = 200, gap: float = 0.0) -> dict[str, float]:
    """What one durable SQLite commit costs on this disk now (WAL, synchronous=FULL, one
    insert per transaction): the floor under every acknowledged write, so every latency of
    a run is read beside it (the disk is shared, and its fsync varies by 10x in a day).

    ``gap``: seconds of idle before each commit. On this machine a commit after 10 ms of
    idle takes about twice one right after another (the disk's path wakes up), with the CPU
    busy or not: a run at a low rate pays that on each of its commits."""
    import sqlite3
    import statistics

    path = folder / "fsync-probe.db"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("CREATE TABLE t (x INTEGER)")
        took = []
        for i in range(commits):
            if gap:
                time.sleep(gap)
            t0 = time.perf_counter()
            conn.execute("BEGIN")
            conn.execute("INSERT INTO t VALUES (?)", (i,))
            conn.execute("COMMIT")
            took.append((time.perf_counter() - t0) * 1000)
    finally:
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    took.sort()
    return {
        "commit_p50_ms": round(statistics.median(took), 3),
        "commit_p99_ms": round(took[min(len(took) - 1, round(0.99 * (len(took) - 1)))], 3),
    }


def write_results(
    path: Path, load: float, fsync: dict[str, float], args: object, **figures: object
) -> None:
    """A benchmark's JSON: when, the machine's load and fsync before, its arguments, figures."""
    import argparse

    path.parent.mkdir(exist_ok=True)
    payload = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_average_before": load,
        "fsync_before": fsync,
        "args": vars(args) if isinstance(args, argparse.Namespace) else args,
        **figures,
    }
    path.write_text(json.dumps(payload, indent=2))
    print(f"wrote {path}")


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]
