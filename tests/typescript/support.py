"""What the TypeScript tests share: the Node toolchain ``scripts/build-ts`` builds into
``.tools/node`` (Node 24, from npm), the built packages, ``band serve`` as a real process, and
a child process with its log.

When ``BAND_REQUIRE_TS=1`` (``scripts/test`` sets it once the toolchain is built) a missing
toolchain fails the tests; otherwise they are skipped with the command that builds it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from e2e.e2e_support import Person, ServerChild, World, seed_world
from integrations.support import Child

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NODE_BIN = ROOT / ".tools" / "node" / "node_modules" / ".bin"
SDK = ROOT / "sdk-ts"
SEED_PROJECT = HERE / "seed"
CHANNEL = ROOT / "openclaw-channel"

__all__ = [
    "CHANNEL",
    "NODE_BIN",
    "ROOT",
    "SDK",
    "SEED_PROJECT",
    "BandServe",
    "GroupChild",
    "agent_texts",
    "node_env",
    "npx",
    "online",
    "require_built",
    "served_band",
]


def require_built(*paths: Path) -> None:
    """Skip (or fail, under ``BAND_REQUIRE_TS=1``) unless Node 24 and ``paths`` exist."""
    missing = [p for p in (NODE_BIN / "node", *paths) if not p.exists()]
    if not missing:
        return
    text = (
        f"not built: {', '.join(str(p.relative_to(ROOT)) for p in missing)} (run scripts/build-ts)"
    )
    if os.environ.get("BAND_REQUIRE_TS") == "1":
        pytest.fail(text)
    pytest.skip(text)


def node_env(**extra: str) -> dict[str, str]:
    """The environment of a Node child: Node 24 first on PATH, loopback never proxied, no
    stray BAND_* settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("BAND_", "OPENAI_", "PYTEST_", "PARLANT_"))
    }
    env["PATH"] = f"{NODE_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env.update(extra)
    return env


def npx() -> str:
    found = shutil.which("npx", path=str(NODE_BIN)) or shutil.which("npx")
    assert found, "npx is not installed"
    return found


class BandServe(ServerChild):
    """Our platform started exactly as an operator does: ``band serve --port P --data D``."""

    def _spawn(self) -> subprocess.Popen[bytes]:
        assert self.proc is None or self.proc.poll() is not None, "server already running"
        self.starts += 1
        self.log_dir.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "band.cli", "serve", "--host", "127.0.0.1"]
        argv += ["--port", str(self.port), "--data", str(self.data_dir)]
        env = {**os.environ, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
        return self.proc


class GroupChild(Child):
    """A child in its own process group (``npx`` runs node under it): Ctrl+C and kill reach
    the whole group, as a terminal's Ctrl+C does."""

    @classmethod
    def start(
        cls, name: str, argv: Sequence[str], *, cwd: Path, env: dict[str, str], log_dir: Path
    ) -> GroupChild:
        log_path = log_dir / f"{name}.log"
        with log_path.open("ab") as log:
            proc = subprocess.Popen(
                list(argv),
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=str(cwd),
                start_new_session=True,
            )
        return cls(name, proc, log_path)

    def interrupt(self, within: float = 20.0) -> int:
        """Ctrl+C: SIGINT to the group, then the exit status (killed after ``within`` s)."""
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            return self.proc.wait(timeout=within)
        except subprocess.TimeoutExpired:
            self.kill9()
            raise AssertionError(
                f"{self.name} still running {within:.0f} s after Ctrl+C\n{self.diagnostics()}"
            ) from None

    def kill9(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill9()


@contextlib.asynccontextmanager
async def served_band(
    tmp_path: Path, agent_name: str
) -> AsyncIterator[tuple[BandServe, World, Person]]:
    """``band serve`` on a seeded data folder (Alice, her agent ``agent_name``, a room with
    both), and Alice's REST client; stopped after."""
    world = await seed_world(tmp_path / "data", agent_name=agent_name)
    server = BandServe(data_dir=tmp_path / "data", log_dir=tmp_path / "logs")
    await server.start(within=90)
    headers = {"X-API-Key": world.person_key}
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=15) as http:
        try:
            yield server, world, Person(http, world.person_id)
        finally:
            server.stop()


async def online(person: Person, room_id: str, agent_id: str) -> bool:
    """The agent holds a live connection (its ``online`` flag in the room's participants)."""
    r = await person.http.get(f"/api/v1/me/chats/{room_id}/participants")
    return any(p["id"] == agent_id and p.get("online") for p in r.json()["data"])


async def agent_texts(person: Person, room_id: str, agent_id: str) -> list[dict[str, Any]]:
    """The agent's text messages in the room, oldest first."""
    return [
        m
        for m in await person.timeline(room_id)
        if m["sender_id"] == agent_id and m["message_type"] == "text"
    ]
