"""The idle-socket swarm's two clients (picows, websockets) tell the same story of the same
sockets against the platform: every socket connected, each join answered as the server
answered it (refusals included, with the same reply), every heartbeat answered, a wrong key
refused at the handshake.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from bench._socket_swarm import CLIENTS
from tests.conftest import LiveServer, make_agent, make_user

ROOT = Path(__file__).resolve().parents[2]


async def _swarm(spec: dict[str, Any], folder: Path) -> dict[str, Any]:
    path = folder / f"swarm-{spec['client']}.json"
    path.write_text(json.dumps(spec))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench._socket_swarm",
        str(path),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    first = json.loads(await asyncio.wait_for(proc.stdout.readline(), 60))
    assert first["phase"] == "connected"
    proc.stdin.write(b"\n")
    await proc.stdin.drain()
    result: dict[str, Any] = json.loads(await asyncio.wait_for(proc.stdout.readline(), 60))
    assert await asyncio.wait_for(proc.wait(), 30) == 0
    return result


def _story(result: dict[str, Any]) -> dict[str, Any]:
    """What both clients must agree on (timings and CPU aside)."""
    return {
        "connected": result["connected"],
        "answered": result["heartbeats_answered"],
        "answered_after": result["heartbeats_answered_after_hold"],
        "joins_timed": len(result["join_ms"]),
        "opens_timed": len(result["open_ms"]),
        "failures": result["failures"],
        # (the first five failures are kept: a refused join's text names no agent)
        "refusals": sorted({f for f in result["first_failures"] if f.startswith("join ")}),
    }


@pytest.mark.parametrize("rate", [0, 200])
async def test_both_clients_report_the_same_sockets(
    live_server: LiveServer, tmp_path: Path, rate: int
) -> None:
    owner, _ = await make_user(live_server.platform, "owner")
    agents = [
        list((await make_agent(live_server.platform, owner, f"Idle {i}"))[:2]) for i in range(6)
    ]
    agents.append([agents[0][0], "band_sk_wrong"])  # refused at the handshake
    spec: dict[str, Any] = {
        "ws_url": live_server.ws_url,
        "agents": agents,
        "in_flight": 4,
        "rate": rate,
        "hold_seconds": 0.2,
        # The last topic is no agent topic: each join of it is refused, and said so.
        "topics": ["agent_control", "agent_rooms", "chat_room"],
    }
    stories = {}
    for client in CLIENTS:
        stories[client] = _story(await _swarm({**spec, "client": client}, tmp_path))
    assert stories["picows"] == stories["websockets"]
    story = stories["picows"]
    assert story["connected"] == story["answered"] == story["answered_after"] == 6
    assert story["opens_timed"] == 6
    assert story["joins_timed"] == 18
    assert story["failures"] == 7  # six refused joins and one refused handshake
    [refusal] = story["refusals"]
    assert refusal.startswith("join chat_room: {'status': 'error'")
