"""Shared pieces of the end-to-end tests: child processes (server, agents), a person, waits.

- `ServerChild` runs our platform (`tests/compat/launch_server.py`) as a real process on a
  loopback port with its own data folder; it can be `kill -9`ed and restarted on the same
  folder and port.
- `AgentChild` runs an agent script with the project's interpreter and captures its log.
- `seed_world` writes a person, an agent and a room straight into a data folder.
- `Person` drives a room over the human REST API.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

E2E_DIR = Path(__file__).resolve().parent
LAUNCH_SERVER = E2E_DIR.parent / "compat" / "launch_server.py"
PROJECT_PYTHON = Path(sys.executable)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a child: no stray BAND_* / OPENAI_* / pytest settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"}
        and not k.startswith(("BAND_", "OPENAI_", "PYTEST_"))
    }
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def seed_agent_env(rest_url: str, ws_url: str, openai_base_url: str, tmp: Path) -> dict[str, str]:
    """The environment the seed page's agent runs in: our platform, the fake OpenAI endpoint."""
    return clean_env(
        BAND_REST_URL=rest_url,
        BAND_WS_URL=ws_url,
        OPENAI_API_KEY="fake",
        OPENAI_BASE_URL=openai_base_url,
        TMPDIR=str(tmp),
    )


def tail(path: Path, lines: int = 60) -> str:
    if not path.exists():
        return f"({path.name}: no output)"
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return f"--- last {min(lines, len(text))} lines of {path.name} ---\n" + "\n".join(text[-lines:])


async def until(
    probe: Callable[[], Awaitable[Any]],
    *,
    within: float,
    what: str,
    every: float = 0.1,
    diagnostics: Callable[[], str] | None = None,
) -> Any:
    """Poll `probe` until it returns something truthy; fail with `what` after `within` s."""
    deadline = time.monotonic() + within
    last_error: BaseException | None = None
    while True:
        try:
            value = await probe()
            if value:
                return value
        except httpx.HTTPError as exc:
            last_error = exc
        if time.monotonic() >= deadline:
            extra = f"\nlast error: {last_error!r}" if last_error else ""
            diag = f"\n{diagnostics()}" if diagnostics else ""
            raise AssertionError(f"timed out after {within:.0f}s waiting for {what}{extra}{diag}")
        await asyncio.sleep(every)


# ----------------------------------------------------------------------------- processes


@dataclass
class ServerChild:
    """Our platform in a child process on a fixed loopback port."""

    data_dir: Path
    log_dir: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0
    env: dict[str, str] = field(default_factory=dict)  # extra settings, e.g. BAND_MAX_FILE_BYTES

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/v1/socket/websocket"

    @property
    def log_path(self) -> Path:
        return self.log_dir / f"server-{self.starts}.log"

    def _spawn(self) -> subprocess.Popen[bytes]:
        assert self.proc is None or self.proc.poll() is not None, "server already running"
        self.starts += 1
        self.log_dir.mkdir(parents=True, exist_ok=True)
        argv = [str(PROJECT_PYTHON), str(LAUNCH_SERVER), str(self.data_dir), str(self.port)]
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, env=clean_env(**self.env)
            )
        return self.proc

    async def start(self, within: float = 30.0) -> None:
        """Start (or restart, same folder and port) and wait until /healthz answers."""
        proc = self._spawn()

        async def healthy() -> bool:
            if proc.poll() is not None:
                raise AssertionError(f"server exited {proc.returncode}\n{tail(self.log_path)}")
            try:
                async with httpx.AsyncClient(timeout=2) as c:
                    return (await c.get(f"{self.url}/healthz")).status_code == 200
            except httpx.HTTPError:
                return False

        await until(healthy, within=within, what="the server's /healthz", every=0.1)

    def kill9(self) -> None:
        """SIGKILL: no shutdown hook, no flush, exactly like a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@dataclass
class AgentChild:
    """One agent script running with the project's interpreter; stdout+stderr in `log_path`."""

    proc: subprocess.Popen[bytes]
    log_path: Path

    @classmethod
    def start(cls, script: Path, *, cwd: Path, env: dict[str, str], log_path: Path) -> AgentChild:
        with log_path.open("ab") as log:
            proc = subprocess.Popen(
                [str(PROJECT_PYTHON), str(script)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=str(cwd),
            )
        return cls(proc, log_path)

    def log_text(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def diagnostics(self) -> str:
        state = "running" if self.proc.poll() is None else f"exited {self.proc.returncode}"
        return f"[agent: {state}]\n{tail(self.log_path)}"

    async def wait_log(self, needle: str, *, within: float = 20.0) -> None:
        async def probe() -> bool:
            if needle in self.log_text():
                return True
            if self.proc.poll() is not None:
                raise AssertionError(f"agent exited early\n{self.diagnostics()}")
            return False

        await until(
            probe, within=within, what=f"agent log {needle!r}", diagnostics=self.diagnostics
        )

    async def interrupt(self, within: float = 10.0) -> int:
        """Ctrl-C (SIGINT) and wait for the exit code."""
        self.proc.send_signal(signal.SIGINT)
        deadline = time.monotonic() + within
        while self.proc.poll() is None:
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"agent still running {within}s after SIGINT\n{tail(self.log_path)}"
                )
            await asyncio.sleep(0.05)
        return int(self.proc.returncode)

    def kill9(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


# ----------------------------------------------------------------------------- world


@dataclass(frozen=True)
class World:
    """A person, an agent of theirs, and a room holding both."""

    person_id: str
    person_key: str
    agent_id: str
    agent_key: str
    agent_handle: str
    agent_name: str
    room_id: str


async def seed_world(data_dir: Path, agent_name: str = "Echo") -> World:
    """Migrate `data_dir` and write the world through our services, before the server starts."""
    from band_server.services.identity import accounts
    from band_server.services.rooms import membership as rooms
    from band_server.store.db import Database
    from band_server.store.migrate import upgrade

    data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(f"sqlite+aiosqlite:///{data_dir / 'band.db'}")
    try:
        await upgrade(db.engine)
        async with db.write() as session:
            user, user_key = await accounts.create_user(session, name="Alice", handle="alice")
            agent, agent_key = await accounts.create_agent(
                session, user, name=agent_name, description="End-to-end test agent"
            )
            principal = accounts.user_principal(user)
            room, _ = await rooms.create_room(session, principal, title="E2E", task_id=None)
            await rooms.add_participant(session, principal, room, agent.id)
            return World(
                user.id, user_key, agent.id, agent_key, agent.handle, agent.name, str(room.id)
            )
    finally:
        await db.dispose()


@dataclass
class Person:
    """A person using the human REST surface with their own key."""

    http: httpx.AsyncClient
    user_id: str

    async def say(self, room_id: str, content: str, *mention_ids: str) -> str:
        body = {"message": {"content": content, "mentions": [{"id": m} for m in mention_ids]}}
        r = await self.http.post(f"/api/v1/me/chats/{room_id}/messages", json=body)
        assert r.status_code in (200, 201), f"POST messages: {r.status_code} {r.text}"
        return str(r.json()["data"]["id"])

    async def timeline(self, room_id: str) -> list[dict[str, Any]]:
        """Every message and event of the room, oldest first."""
        r = await self.http.get(
            f"/api/v1/me/chats/{room_id}/messages", params={"limit": 100, "sort_order": "asc"}
        )
        assert r.status_code == 200, f"GET messages: {r.status_code} {r.text}"
        data: list[dict[str, Any]] = r.json()["data"]
        if data and all(isinstance(m.get("seq"), int) for m in data):
            data = sorted(data, key=lambda m: int(m["seq"]))
        return data

    async def texts_from(self, room_id: str, sender_id: str) -> list[str]:
        return [
            str(m["content"])
            for m in await self.timeline(room_id)
            if m["sender_id"] == sender_id and m["message_type"] == "text"
        ]


@asynccontextmanager
async def served_world(tmp_path: Path) -> AsyncIterator[tuple[ServerChild, World]]:
    """A seeded data folder under ``tmp_path`` and our platform serving it (stopped after)."""
    world = await seed_world(tmp_path / "data")
    child = ServerChild(data_dir=tmp_path / "data", log_dir=tmp_path / "logs")
    await child.start()
    try:
        yield child, world
    finally:
        child.stop()
