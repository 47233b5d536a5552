"""Processes and waits for the integration-shape tests: our platform (as ``band serve`` runs it),
``band runtime`` / ``band bridge`` children, and a person driving rooms over REST."""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from e2e.e2e_support import Person, ServerChild, World, clean_env, free_port, seed_world, tail

__all__ = [
    "SEED_ADAPTER",
    "Child",
    "Person",
    "ServerChild",
    "World",
    "add_room",
    "replies",
    "seed_world",
    "start_world",
    "workdir_for",
]

SEED_ADAPTER = Path(__file__).resolve().parents[1] / "e2e" / "seed" / "chat_adapter.py"


@dataclass
class Child:
    """A ``python -m band.cli ...`` (or any) child process with its log."""

    name: str
    proc: subprocess.Popen[bytes]
    log_path: Path

    @classmethod
    def start(
        cls, name: str, argv: Sequence[str], *, cwd: Path, env: dict[str, str], log_dir: Path
    ) -> Child:
        log_path = log_dir / f"{name}.log"
        with log_path.open("ab") as log:
            proc = subprocess.Popen(
                list(argv), stdout=log, stderr=subprocess.STDOUT, env=env, cwd=str(cwd)
            )
        return cls(name, proc, log_path)

    def log_text(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def diagnostics(self) -> str:
        state = "running" if self.proc.poll() is None else f"exited {self.proc.returncode}"
        return f"[{self.name}: {state}]\n{tail(self.log_path, 80)}"

    async def wait_log(self, needle: str, *, within: float = 30.0, count: int = 1) -> None:
        deadline = time.monotonic() + within
        while self.log_text().count(needle) < count:
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.name} exited early\n{self.diagnostics()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no {needle!r} in {self.name}'s log\n{self.diagnostics()}")
            await asyncio.sleep(0.1)

    def kill9(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def band_command(*args: str) -> list[str]:
    """The ``band`` console script, run with this interpreter."""
    return [sys.executable, "-m", "band.cli", *args]


def workdir_for(tmp_path: Path, world: World) -> Path:
    """A reader's folder: the seed page's adapter and ``agent_config.yaml``."""
    workdir = tmp_path / "agent"
    workdir.mkdir(exist_ok=True)
    shutil.copyfile(SEED_ADAPTER, workdir / "chat_adapter.py")
    config = (
        f"my_agent:\n  agent_id: {json.dumps(world.agent_id)}\n"
        f"  api_key: {json.dumps(world.agent_key)}\n"
    )
    (workdir / "agent_config.yaml").write_text(config, encoding="utf-8")
    return workdir


async def add_room(person: Person, title: str, *member_ids: str) -> str:
    r = await person.http.post("/api/v1/me/chats", json={"chat": {"title": title}})
    assert r.status_code in (200, 201), r.text
    room_id = str(r.json()["data"]["id"])
    for member in member_ids:
        body = {"participant": {"participant_id": member}}
        r = await person.http.post(f"/api/v1/me/chats/{room_id}/participants", json=body)
        assert r.status_code in (200, 201), r.text
    return room_id


async def replies(person: Person, room_id: str, agent_id: str) -> list[str]:
    return await person.texts_from(room_id, agent_id)


async def start_world(tmp_path: Path) -> tuple[ServerChild, World, Person]:
    """Our platform as a real process on a loopback port, with Alice, Echo and a room."""
    world = await seed_world(tmp_path / "data")
    server = ServerChild(data_dir=tmp_path / "data", log_dir=tmp_path / "logs")
    await server.start()
    http = httpx.AsyncClient(
        base_url=server.url, headers={"X-API-Key": world.person_key}, timeout=15
    )
    return server, world, Person(http, world.person_id)


def agent_env(server: ServerChild, tmp_path: Path, **extra: str) -> dict[str, str]:
    return clean_env(
        BAND_REST_URL=server.url,
        BAND_WS_URL=server.ws_url,
        NO_PROXY="127.0.0.1,localhost",
        TMPDIR=str(tmp_path),
        **extra,
    )


async def until(
    probe: Callable[[], Any], *, within: float, what: str, diagnostics: Callable[[], str]
) -> Any:
    deadline = time.monotonic() + within
    while True:
        value = await probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{diagnostics()}")
        await asyncio.sleep(0.1)


__all__ += ["agent_env", "band_command", "free_port", "until"]
