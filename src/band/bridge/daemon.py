"""Daemon mode: a provider process per room with work, started on demand.

``ProviderPool.target(agent_id, room_id)`` returns the URL of that room's provider, first
starting it from the configured command when it is not running (never started, stopped
after ``idle_timeout`` seconds without work, or dead). A provider is any process that
serves the runtime contract on ``$BAND_RUNTIME_PORT`` (``band runtime`` with an adapter,
for instance); the command may use ``{port}``, ``{room_id}`` and ``{agent_id}``. Providers
are asyncio child processes: stopping one (SIGTERM, then SIGKILL after ``STOP_GRACE``
seconds) never blocks the bridge's event loop, whose sockets and other rooms go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

__all__ = ["ProviderPool"]

log = logging.getLogger("band.bridge.daemon")

START_TIMEOUT = 60.0
STOP_GRACE = 10.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class _Provider:
    room_id: str
    port: int
    proc: asyncio.subprocess.Process
    last_used: float = field(default_factory=time.monotonic)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/invocations"


class ProviderPool:
    """Starts, reuses, stops and restarts the providers of one bridge."""

    def __init__(
        self,
        command: str,
        *,
        idle_timeout: float = 300.0,
        env: dict[str, str] | None = None,
        credentials: dict[str, str] | None = None,
    ) -> None:
        self.command = command
        self.idle_timeout = idle_timeout
        self.env = dict(env or {})
        self.credentials = dict(credentials or {})  # agent id -> api key
        self._providers: dict[tuple[str, str], _Provider] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._reaper: asyncio.Task[None] | None = None
        self.starts = 0

    async def target(self, agent_id: str, room_id: str) -> str:
        """The room's provider URL, starting the provider if it is not running."""
        key = (agent_id, room_id)
        async with self._locks.setdefault(key, asyncio.Lock()):
            provider = self._providers.get(key)
            if provider is not None and provider.proc.returncode is not None:
                log.warning(
                    "Provider for room %s exited with code %s; restarting",
                    room_id,
                    provider.proc.returncode,
                )
                del self._providers[key]
                provider = None
            if provider is None:
                provider = await self._start(agent_id, room_id)
                self._providers[key] = provider
            provider.last_used = time.monotonic()
            if self._reaper is None:
                self._reaper = asyncio.create_task(self._reap(), name="band-daemon-reaper")
            return provider.url

    def touched(self, agent_id: str, room_id: str, _result: dict[str, Any]) -> None:
        """Work was delivered: the idle clock of that provider starts again."""
        provider = self._providers.get((agent_id, room_id))
        if provider is not None:
            provider.last_used = time.monotonic()

    async def aclose(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
        keys = list(self._providers)
        await asyncio.gather(*(self._stop(key, "the bridge stopped") for key in keys))

    async def _start(self, agent_id: str, room_id: str) -> _Provider:
        port = _free_port()
        values = {"port": str(port), "room_id": room_id, "agent_id": agent_id}
        argv = [part.format(**values) for part in shlex.split(self.command)]
        env = {
            **os.environ,
            **self.env,
            "BAND_RUNTIME_PORT": str(port),
            "BAND_ROOM_ID": room_id,
            "BAND_AGENT_ID": agent_id,
        }
        if agent_id in self.credentials:
            env["BAND_API_KEY"] = self.credentials[agent_id]
        proc = await asyncio.create_subprocess_exec(*argv, env=env)
        self.starts += 1
        provider = _Provider(room_id, port, proc)
        await self._wait_ready(provider)
        log.info("Provider started for room %s (pid %d, port %d)", room_id, proc.pid, port)
        return provider

    async def _wait_ready(self, provider: _Provider) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        async with httpx.AsyncClient(timeout=2.0) as client:
            while time.monotonic() < deadline:
                if provider.proc.returncode is not None:
                    raise RuntimeError(f"provider exited with {provider.proc.returncode} at start")
                with contextlib.suppress(httpx.HTTPError):
                    response = await client.get(f"http://127.0.0.1:{provider.port}/ping")
                    if response.status_code == 200:
                        return
                await asyncio.sleep(0.1)
        with contextlib.suppress(ProcessLookupError):
            provider.proc.kill()
        await provider.proc.wait()
        raise RuntimeError(f"provider for room {provider.room_id} did not answer /ping")

    async def _reap(self) -> None:
        async with httpx.AsyncClient(timeout=2.0) as client:
            while True:
                await asyncio.sleep(min(1.0, self.idle_timeout / 2))
                now = time.monotonic()
                for key, provider in list(self._providers.items()):
                    lock = self._locks.get(key)
                    idle = now - provider.last_used >= self.idle_timeout
                    if not idle or (lock is not None and lock.locked()):
                        continue
                    if await self._busy(client, provider):
                        provider.last_used = now  # a long turn is work, not idleness
                        continue
                    await self._stop(key, f"idle for {self.idle_timeout:.0f}s")

    @staticmethod
    async def _busy(client: httpx.AsyncClient, provider: _Provider) -> bool:
        """The runtime contract's ``/ping`` says ``HealthyBusy`` while an invocation runs."""
        try:
            response = await client.get(f"http://127.0.0.1:{provider.port}/ping")
            return bool(response.json().get("status") == "HealthyBusy")
        except (httpx.HTTPError, ValueError, AttributeError):
            return False

    async def _stop(self, key: tuple[str, str], why: str) -> None:
        """SIGTERM, and SIGKILL after ``STOP_GRACE`` s; the loop keeps serving meanwhile."""
        provider = self._providers.pop(key, None)
        if provider is None:
            return
        proc = provider.proc
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), STOP_GRACE)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        log.info("Provider stopped for room %s (%s)", provider.room_id, why)
