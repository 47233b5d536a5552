"""Harness for the compat suite: the official client in its own venv, our server as a process.

- `ensure_compat_venv` builds (once) and reuses `tests/compat/.venv` holding `band-sdk==6.0.1`
  from PyPI. The official SDK never enters the project's own environment.
- `ServerProcess` runs our platform (`launch_server.py`) on a free loopback port with a data
  folder of the test's own; it can be stopped, `kill -9`ed and restarted on the same folder.
- `AgentProcess` runs one of `agents/*.py` with the compat venv's interpreter and reads the
  JSON-lines observations it writes.
- `seed` writes a person, agents and rooms through our services, before the server starts.
- `HumanApi` / `AgentApi` are thin REST clients for the assertions.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import httpx

from .isolated_venv import (
    Unavailable,
    VenvSpec,
    clean_env,
    ensure_venv,
    installed_version,
)

COMPAT_DIR = Path(__file__).resolve().parent
AGENTS_DIR = COMPAT_DIR / "agents"
VENV_DIR = COMPAT_DIR / ".venv"
SDK_REQUIREMENT = "band-sdk==6.0.1"
SDK_VERSION = "6.0.1"
PROJECT_PYTHON = Path(sys.executable)

T = TypeVar("T")

# Log lines of the official client that mean our server pushed something it does not accept:
# a payload band-sdk-core rejects (dropped), an event with no handler on that topic, or a
# heartbeat left unanswered.
WIRE_COMPLAINTS = (
    "[WebSocket] Invalid ",
    "but no handler registered",
    "Heartbeat response not received",
)


class CompatUnavailable(Unavailable):
    """The compat venv could not be built for a reason outside the project (no registry)."""


# ----------------------------------------------------------------------------- venv

SDK_VENV = VenvSpec(VENV_DIR, (SDK_REQUIREMENT,), "band-sdk", SDK_VERSION)


def installed_sdk_version(venv: Path = VENV_DIR) -> str | None:
    return installed_version(venv, "band-sdk")


def ensure_compat_venv(progress: Callable[[str], None], venv: Path = VENV_DIR) -> Path:
    """The compat interpreter, building the venv first if it is missing or stale."""
    spec = SDK_VENV if venv == VENV_DIR else dataclasses.replace(SDK_VENV, path=venv)
    try:
        return ensure_venv(spec, progress)
    except Unavailable as exc:
        raise CompatUnavailable(str(exc)) from exc


# ----------------------------------------------------------------------------- polling


async def wait_for(
    probe: Callable[[], Awaitable[T | None]],
    *,
    within: float,
    what: str,
    interval: float = 0.2,
    diagnostics: Callable[[], str] | None = None,
) -> T:
    """Poll `probe` until it returns something other than None/False, or fail after timeout."""
    deadline = time.monotonic() + within
    last_error: BaseException | None = None
    while True:
        try:
            value = await probe()
            if value is not None and value is not False:
                return value
        except (httpx.HTTPError, AssertionError, KeyError, ValueError) as exc:
            last_error = exc
        if time.monotonic() >= deadline:
            extra = f"\nlast error: {last_error!r}" if last_error else ""
            diag = f"\n{diagnostics()}" if diagnostics else ""
            raise AssertionError(f"timed out after {within:.0f}s waiting for {what}{extra}{diag}")
        await asyncio.sleep(interval)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tail(path: Path, lines: int = 40) -> str:
    if not path.exists():
        return f"({path.name}: no output)"
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return f"--- last {min(lines, len(text))} lines of {path.name} ---\n" + "\n".join(text[-lines:])


# ----------------------------------------------------------------------------- server


@dataclass
class ServerProcess:
    """Our platform in a child process (project venv) on a loopback port."""

    data_dir: Path
    log_dir: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0
    env: dict[str, str] = field(default_factory=dict)  # extra settings for the child

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/v1/socket/websocket"

    @property
    def log_path(self) -> Path:
        return self.log_dir / f"server-{self.starts}.log"

    def _argv(self) -> list[str]:
        launcher = COMPAT_DIR / "launch_server.py"
        return [str(PROJECT_PYTHON), str(launcher), str(self.data_dir), str(self.port)]

    def _spawn(self) -> subprocess.Popen[bytes]:
        assert self.proc is None or self.proc.poll() is not None, "server already running"
        self.starts += 1
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                self._argv(),
                stdout=log,
                stderr=subprocess.STDOUT,
                env=clean_env(**self.env),
                cwd=str(self.log_dir),
            )
        return self.proc

    async def start(self, within: float = 45.0) -> None:
        """Start (or restart, on the same data folder and port) and wait for /healthz."""
        proc = self._spawn()

        async def healthy() -> bool:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited with {proc.returncode}\n{tail(self.log_path)}")
            try:
                async with httpx.AsyncClient(timeout=2) as c:
                    return (await c.get(f"{self.url}/healthz")).status_code == 200
            except httpx.HTTPError:
                return False

        await wait_for(
            healthy,
            within=within,
            what="the server's /healthz",
            diagnostics=lambda: tail(self.log_path),
        )

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


# ----------------------------------------------------------------------------- agents


class Endpoint(Protocol):
    """Where an agent connects: a server, or a balancer in front of several."""

    @property
    def url(self) -> str: ...

    @property
    def ws_url(self) -> str: ...


@dataclass
class AgentProcess:
    """One official-SDK agent script running in the compat venv."""

    name: str
    proc: subprocess.Popen[bytes]
    events_path: Path
    log_path: Path

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        if not self.events_path.exists():
            return []
        out = []
        for line in self.events_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record: dict[str, Any] = json.loads(line)
                if kind is None or record.get("event") == kind:
                    out.append(record)
        return out

    def turns_for(self, message_id: str) -> list[dict[str, Any]]:
        return [e for e in self.events("turn") if e.get("message_id") == message_id]

    def log_text(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    async def wait_log(self, needle: str, *, within: float = 20.0) -> None:
        """Wait until the SDK's own log (stderr) contains `needle`."""

        async def probe() -> bool:
            return self.log_path.exists() and needle in self.log_text()

        await wait_for(
            probe,
            within=within,
            what=f"agent {self.name} to log {needle!r}",
            diagnostics=self.diagnostics,
        )

    def diagnostics(self) -> str:
        state = "running" if self.proc.poll() is None else f"exited {self.proc.returncode}"
        events = "\n".join(json.dumps(e) for e in self.events()[-20:])
        return f"[agent {self.name}: {state}]\nevents:\n{events}\n{tail(self.log_path, 60)}"

    async def wait_event(
        self,
        kind: str,
        *,
        within: float = 30.0,
        match: Callable[[dict[str, Any]], bool] | None = None,
        what: str | None = None,
    ) -> dict[str, Any]:
        async def probe() -> dict[str, Any] | None:
            for e in self.events(kind):
                if match is None or match(e):
                    return e
            if self.proc.poll() is not None:
                raise RuntimeError(f"agent {self.name} exited early\n{self.diagnostics()}")
            return None

        return await wait_for(
            probe,
            within=within,
            what=what or f"agent {self.name} to report {kind!r}",
            diagnostics=self.diagnostics,
        )

    def kill9(self) -> None:
        """SIGKILL: the SDK gets no chance to clean up, exactly like a crash."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def start_agent(
    compat_python: Path,
    script: str,
    *,
    name: str,
    server: Endpoint,
    agent_id: str,
    api_key: str,
    workdir: Path,
    single_instance: bool = True,
    conflict_policy: str = "supersede",
    extra_env: dict[str, str] | None = None,
) -> AgentProcess:
    workdir.mkdir(parents=True, exist_ok=True)
    events = workdir / f"{name}.events.jsonl"
    log_path = workdir / f"{name}.log"
    tmp = workdir / f"{name}.tmp"
    tmp.mkdir(exist_ok=True)
    settings = {
        "COMPAT_AGENT_ID": agent_id,
        "COMPAT_API_KEY": api_key,
        "COMPAT_EVENTS": str(events),
        "COMPAT_SINGLE_INSTANCE": "1" if single_instance else "0",
        "COMPAT_CONFLICT_POLICY": conflict_policy,
        "BAND_REST_URL": server.url,
        "BAND_WS_URL": server.ws_url,
        # Deterministic runs: no periodic /next probe may stand in for a lost push.
        "IDLE_RESYNC_SECONDS": "3600",
        "IDLE_RESYNC_MAX_SECONDS": "3600",
        "TMPDIR": str(tmp),
    }
    env = clean_env(**{**settings, **(extra_env or {})})
    log = log_path.open("wb")
    proc = subprocess.Popen(
        [str(compat_python), str(AGENTS_DIR / script)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=str(workdir),
    )
    log.close()
    return AgentProcess(name=name, proc=proc, events_path=events, log_path=log_path)


# ----------------------------------------------------------------------------- seeding


@dataclass(frozen=True)
class Person:
    id: str
    key: str
    handle: str
    name: str


@dataclass(frozen=True)
class AgentCreds:
    id: str
    key: str
    handle: str
    name: str


async def seed(
    data_dir: Path,
    build: Callable[[Any], Awaitable[T]],
) -> T:
    """Migrate the data folder and run `build(seeder)` in one go, before the server starts."""
    from band_server.store.db import Database
    from band_server.store.migrate import upgrade

    data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(f"sqlite+aiosqlite:///{data_dir / 'band.db'}")
    try:
        await upgrade(db.engine)
        return await build(Seeder(db))
    finally:
        await db.dispose()


class Seeder:
    def __init__(self, db: Any) -> None:
        self.db = db

    async def person(self, handle: str, name: str) -> Person:
        from band_server.services.identity import accounts

        async with self.db.write() as session:
            user, key = await accounts.create_user(session, name=name, handle=handle)
            return Person(user.id, key, user.handle, user.name)

    async def agent(self, owner: Person, name: str) -> AgentCreds:
        from band_server.services.identity import accounts

        async with self.db.write() as session:
            user = await accounts.get_user(session, owner.id)
            agent, key = await accounts.create_agent(
                session, user, name=name, description="Compat test agent (official band-sdk)"
            )
            return AgentCreds(agent.id, key, agent.handle, agent.name)

    async def room(self, owner: Person, title: str, agents: list[AgentCreds]) -> str:
        from band_server.services.identity import accounts
        from band_server.services.rooms import membership as rooms

        async with self.db.write() as session:
            user = await accounts.get_user(session, owner.id)
            principal = accounts.user_principal(user)
            room, _ = await rooms.create_room(session, principal, title=title, task_id=None)
            for a in agents:
                await rooms.add_participant(session, principal, room, a.id)
            return str(room.id)


# ----------------------------------------------------------------------------- REST


class Api:
    """A REST client with one key. Every answer is returned; callers assert on it."""

    def __init__(self, base_url: str, key: str) -> None:
        self.client = httpx.AsyncClient(base_url=base_url, headers={"X-API-Key": key}, timeout=15.0)

    async def aclose(self) -> None:
        await self.client.aclose()


class HumanApi(Api):
    async def post_message(
        self, room_id: str, content: str, mention_ids: list[str]
    ) -> httpx.Response:
        body = {"message": {"content": content, "mentions": [{"id": i} for i in mention_ids]}}
        return await self.client.post(f"/api/v1/me/chats/{room_id}/messages", json=body)

    async def messages(self, room_id: str) -> list[dict[str, Any]]:
        """The room's messages and events, oldest first (sorted by seq when served)."""
        r = await self.client.get(
            f"/api/v1/me/chats/{room_id}/messages", params={"sort_order": "asc"}
        )
        assert r.status_code == 200, f"GET messages: {r.status_code} {r.text}"
        data: list[dict[str, Any]] = r.json()["data"]
        if data and all(isinstance(m.get("seq"), int) for m in data):
            data = sorted(data, key=lambda m: int(m["seq"]))
        return data

    async def add_participant(self, room_id: str, participant_id: str) -> httpx.Response:
        body = {"participant": {"participant_id": participant_id, "role": "member"}}
        return await self.client.post(f"/api/v1/me/chats/{room_id}/participants", json=body)


class AgentApi(Api):
    async def next_message(self, room_id: str) -> httpx.Response:
        return await self.client.get(f"/api/v1/agent/chats/{room_id}/messages/next")


def delivery_of(message: dict[str, Any], agent_id: str) -> dict[str, Any] | None:
    meta = message.get("metadata") or {}
    status = (meta.get("delivery_status") or {}).get(agent_id)
    return status if isinstance(status, dict) else None


# ----------------------------------------------------------------------------- world


@dataclass
class World:
    """A running server with a person (alice), two agents (Echo, Other) and two rooms.

    `room` holds alice, Echo and Other; `side_room` holds only alice. The official-SDK agent
    processes run as Echo (`agent`) unless `spawn(..., creds=world.other)` runs one as Other.
    """

    tmp: Path
    server: ServerProcess
    person: Person
    agent: AgentCreds
    other: AgentCreds
    room: str
    side_room: str
    human: HumanApi
    agent_api: AgentApi
    compat_python: Path | None = None
    agents: list[AgentProcess] = field(default_factory=list)

    def spawn(
        self,
        script: str,
        name: str,
        *,
        single_instance: bool = True,
        conflict_policy: str = "supersede",
        creds: AgentCreds | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> AgentProcess:
        """Run `script` as Echo (default) or as the agent `creds` names (e.g. `self.other`)."""
        assert self.compat_python is not None, "this test did not request compat_python"
        who = creds or self.agent
        proc = start_agent(
            self.compat_python,
            script,
            name=name,
            server=self.server,
            agent_id=who.id,
            api_key=who.key,
            workdir=self.tmp / "agents",
            single_instance=single_instance,
            conflict_policy=conflict_policy,
            extra_env=extra_env,
        )
        self.agents.append(proc)
        return proc

    def assert_wire_clean(self) -> None:
        """No agent saw a push the official client rejects or has no handler for."""
        for a in self.agents:
            for line in a.log_text().splitlines():
                assert not any(marker in line for marker in WIRE_COMPLAINTS), (
                    f"agent {a.name} complained about the wire: {line}"
                )

    def diagnostics(self) -> str:
        parts = [a.diagnostics() for a in self.agents]
        parts.append(tail(self.server.log_path, 60))
        return "\n".join(parts)
