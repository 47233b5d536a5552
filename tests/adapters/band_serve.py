"""``band serve`` as a child process and Alice driving it: the platform of the coding-agent
end-to-end tests (Codex, ACP)."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sdk"))

from e2e_support import World, clean_env, free_port, seed_world, tail
from runtime_support import Person, delivery_status, until

__all__ = ["BandServe", "Room", "alice", "band_serve", "room"]

BAND = Path(sys.executable).parent / "band"


@dataclass
class BandServe:
    """``band serve`` on a loopback port, exactly as an operator starts it."""

    url: str
    ws_url: str
    world: World
    log: Path


@pytest.fixture(scope="session")
def band_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BandServe]:
    base = tmp_path_factory.mktemp("band-serve")
    world = asyncio.run(seed_world(base / "data", agent_name="Coder"))
    port = free_port()
    log = base / "serve.log"
    argv = [str(BAND), "serve", "--host", "127.0.0.1", "--port", str(port), "--data"]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*argv, str(base / "data")], stdout=out, stderr=subprocess.STDOUT, env=clean_env()
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"band serve exited {proc.returncode}\n{tail(log)}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"band serve did not answer /healthz\n{tail(log)}")
        time.sleep(0.1)
    try:
        yield BandServe(url, f"ws://127.0.0.1:{port}/api/v1/socket/websocket", world, log)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture
async def alice(band_serve: BandServe) -> AsyncIterator[Person]:
    headers = {"x-api-key": band_serve.world.person_key}
    async with httpx.AsyncClient(base_url=band_serve.url, headers=headers, timeout=30) as http:
        yield Person(http, band_serve.world.person_id)


TOKEN = re.compile(r"Approval id: `([0-9a-f]{8})`")


class Room:
    """A room of the seeded world where Alice talks to the agent under test."""

    def __init__(self, person: Person, room_id: str, agent_id: str, workspace: Path) -> None:
        self.person, self.id, self.agent_id, self.workspace = person, room_id, agent_id, workspace

    async def say(self, text: str) -> str:
        return await self.person.say(self.id, text, self.agent_id)

    async def ask(self, text: str, status: str = "processed") -> str:
        """Say ``text`` and wait until the agent's delivery of it reaches ``status``."""
        message_id = await self.say(text)
        await self.wait_status(message_id, status)
        return message_id

    async def wait_status(self, message_id: str, wanted: str, limit: float = 90) -> None:
        async def reached() -> bool:
            found = await delivery_status(self.person, self.id, message_id, self.agent_id)
            return found == wanted

        await until(reached, limit=limit, every=0.2)

    async def texts(self) -> list[str]:
        """The agent's text messages (replies and notices), oldest first."""
        return await self.person.replies(self.id, self.agent_id)

    async def wait_text(self, check: Callable[[str], bool], limit: float = 90) -> str:
        """The first text message of the agent that passes ``check``."""

        async def probe() -> str | None:
            texts = await self.person.replies(self.id, self.agent_id)
            return next((t for t in texts if check(t)), None)

        found: str = await until(probe, limit=limit, every=0.2)
        return found

    async def events(self, kind: str) -> list[dict[str, Any]]:
        return await self.person.events(self.id, kind)

    async def wait_task(self, check: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """The room's task events, once one of them passes ``check``."""

        async def probe() -> list[dict[str, Any]] | None:
            tasks = await self.events("task")
            return tasks if any(check(t) for t in tasks) else None

        found: list[dict[str, Any]] = await until(probe, limit=60, every=0.2)
        return found

    async def approval_token(self, kind: str) -> str:
        """The token of the approval notice of ``kind`` (it must be about proof.txt)."""
        notice = await self.wait_text(lambda t: f"Approval requested ({kind})" in t)
        match = TOKEN.search(notice)
        assert match and "proof.txt" in notice, notice
        assert f"/approve {match.group(1)}" in notice
        return match.group(1)


@pytest.fixture
async def room(alice: Person, band_serve: BandServe, tmp_path: Path, request: Any) -> Room:
    """A fresh room with Alice and the agent; the agent's workspace is ``tmp_path/<room>``."""
    agent_id = band_serve.world.agent_id
    room_id = await alice.create_room(request.node.name[:40], agent_id)
    return Room(alice, room_id, agent_id, tmp_path / room_id)
