"""A node's start: reach the database (and migrate it) and Redis, then serve; wait for what is
out of reach instead of exiting.

How it works: docs/internals/server.md, "A node's start".

While it waits, every request is answered 503; after ``wait`` seconds the node gives up.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from .context import Platform
from .fanout.bus import Deliver
from .http.errors import RETRY_AFTER_SECONDS, error_response
from .realtime.handshake import Denial, deny
from .services.background import cancelled
from .store.migrate import upgrade
from .store.outage import dependency_unavailable

log = logging.getLogger("band_server.startup")

FIRST_RETRY = 0.5
LAST_RETRY = 5.0  # the backoff doubles up to this many seconds between tries
LOG_EVERY = 3.0  # a waiting node logs at most one line this often (then every try: 5 s)
HEALTH_PATHS = frozenset({"/health", "/healthz"})

ReadyHook = Callable[[Platform], Awaitable[None]]
GiveUp = Callable[[str], None]


class Fatal(Exception):
    """A start-up error that waiting will not mend (a broken migration, a bug)."""


@dataclass
class NodeStart:
    """Starts ``platform``'s database, bus and presence, and tells what is still missing."""

    platform: Platform
    deliver: Deliver
    on_ready: ReadyHook | None = None
    missing: dict[str, str] = field(default_factory=dict)  # dependency -> why, while waiting
    ready: bool = False
    _done: set[str] = field(default_factory=set)  # steps that succeeded
    _task: asyncio.Task[None] | None = None

    async def begin(self, wait: float, on_give_up: GiveUp | None) -> None:
        """One try now; when something is out of reach, keep trying in a task for ``wait``
        seconds (forever without ``on_give_up``). A fatal error is raised from the first try."""
        started = time.monotonic()
        if await self._attempt():
            return
        self._log(wait, started)
        self._task = asyncio.create_task(self._keep_trying(wait, started, on_give_up))

    async def close(self) -> None:
        """Stop trying, and stop what was started (on the app's shutdown)."""
        task, self._task = self._task, None
        await cancelled(task)
        platform = self.platform
        await platform.leases.stop()
        await platform.jobs.stop()
        await platform.served_heads.close()
        if "presence" in self._done:  # each stops only what it started
            await platform.presence.stop()
        if "bus" in self._done:
            await platform.bus.stop()
        await platform.db.dispose()

    def describe(self) -> str:
        """What is missing, for answers and log lines: ``redis (cannot reach ...)``."""
        return "; ".join(f"{name} ({why})" for name, why in sorted(self.missing.items()))

    async def answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request while waiting: 503, naming what is missing."""
        down = ", ".join(sorted(self.missing)) or "start-up"
        if scope["type"] == "websocket":
            message = f"The platform is starting (waiting for {down}); retry shortly"
            await deny(WebSocket(scope, receive, send), Denial(503, "unavailable", message))
            return
        request = Request(scope, receive)
        headers = {"retry-after": str(RETRY_AFTER_SECONDS), "cache-control": "no-store"}
        if scope.get("path") in HEALTH_PATHS:
            checks = {name: {"ok": False, "error": why} for name, why in self.missing.items()}
            details = {"starting": True, "checks": checks}
            response = error_response(
                request, 503, "unavailable", f"unreachable: {down}", details, headers
            )
        else:
            message = f"The platform is starting: waiting for {down}; retry shortly"
            response = error_response(request, 503, "unavailable", message, headers=headers)
        await response(scope, receive, send)

    # -- the tries ---------------------------------------------------------------------------

    def _steps(self) -> list[tuple[str, str, frozenset[str], Callable[[], Awaitable[object]]]]:
        """(step, the dependency it reaches, the steps it needs done first, what it runs)."""
        platform, deliver = self.platform, self.deliver
        first = frozenset({"migrations", "bus", "presence"})  # then the node's own work
        steps: list[tuple[str, str, frozenset[str], Callable[[], Awaitable[object]]]] = [
            ("migrations", "database", frozenset(), lambda: upgrade(platform.db.engine)),
            ("bus", "redis", frozenset(), lambda: platform.bus.start(deliver)),
            ("presence", "redis", frozenset({"bus"}), lambda: platform.presence.start(deliver)),
            ("jobs", "database", first, lambda: platform.jobs.resume(platform)),
        ]
        if self.on_ready is not None:
            hook = self.on_ready
            steps.append(("ready hook", "database", first | {"jobs"}, lambda: hook(platform)))
        return steps

    async def _attempt(self) -> bool:
        """Every step not done yet whose prerequisites are, the database's and Redis's side by
        side (so all that is missing is named); True once all are done and the node serves."""
        blocked: set[str] = set()
        for step, dependency, needs, run in self._steps():
            if step in self._done or not needs <= self._done:
                continue
            try:
                await run()
            except Exception as exc:
                if dependency == "database" and not dependency_unavailable(exc):
                    raise Fatal(f"start-up failed ({step}): {exc!r}") from exc
                self.missing[dependency] = _why(exc)
                blocked.add(dependency)
                continue
            self._done.add(step)
        for dependency in ("database", "redis"):
            if dependency not in blocked:
                self.missing.pop(dependency, None)
        if len(self._done) < len(self._steps()):
            return False
        platform = self.platform
        platform.leases.start(platform)
        self.ready = True
        log.info(
            "platform ready: database=%s bus=%s",
            platform.db.engine.url.drivername,
            type(platform.bus).__name__,
        )
        return True

    async def _keep_trying(self, wait: float, started: float, on_give_up: GiveUp | None) -> None:
        delay, logged = FIRST_RETRY, time.monotonic()
        while True:
            left = wait - (time.monotonic() - started)
            if on_give_up is not None and left <= 0:
                on_give_up(f"gave up after {wait:g}s: still out of reach: {self.describe()}")
                return
            await asyncio.sleep(delay if on_give_up is None else min(delay, max(left, 0.0)))
            delay = min(delay * 2, LAST_RETRY)
            try:
                if await self._attempt():
                    return
            except Fatal as exc:
                if on_give_up is not None:
                    on_give_up(str(exc))
                else:  # embedded: the app keeps answering 503, the log says why
                    log.error("%s", exc)
                return
            if time.monotonic() - logged >= LOG_EVERY:
                logged = time.monotonic()
                self._log(wait if on_give_up is not None else None, started)

    def _log(self, wait: float | None, started: float) -> None:
        if wait is None:
            bound = ""
        else:
            bound = f"; giving up in {max(0.0, wait - (time.monotonic() - started)):.0f}s"
        log.warning("waiting for %s: retrying%s", self.describe(), bound)


def _why(exc: BaseException) -> str:
    """The error in one short line (the Redis bus names the URL it tried, without password)."""
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]
