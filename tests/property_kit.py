"""Helpers for the property tests that drive a real platform: an event loop in a thread (each
example runs its coroutines there), a uvicorn server in a thread, and hypothesis settings for
examples that run against live services."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import uvicorn
from hypothesis import HealthCheck, Phase, settings

from band_server.server_stack import uvicorn_options
from conftest import free_port

T = TypeVar("T")


class LoopThread:
    """A running loop; :meth:`run` waits for one coroutine on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def serve_in_thread(config: uvicorn.Config) -> tuple[uvicorn.Server, threading.Thread]:
    """Start a uvicorn server in a thread of its own (no signal handlers there); returns once
    it listens."""
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the platform did not start"
        time.sleep(0.02)
    return server, thread


@contextmanager
def serve_beside(app: Any, variants: dict[str, dict[str, Any]]) -> Iterator[dict[str, int]]:
    """The same app served once per variant (uvicorn options over the server's own, e.g. a
    protocol of uvicorn's beside ours), each in a thread; yields each variant's port."""
    ports: dict[str, int] = {}
    running = []
    try:
        for name, overrides in variants.items():
            port = free_port()
            options = {**uvicorn_options(), **overrides}
            config = uvicorn.Config(
                app, host="127.0.0.1", port=port, log_level="critical", **options
            )
            config.lifespan = "off"
            running.append(serve_in_thread(config))
            ports[name] = port
        yield ports
    finally:
        for served, thread in running:
            served.should_exit = True
            thread.join(30)


def live(examples: int, *, shrink: bool = True) -> settings:
    """Settings for examples run against live services: no deadline (a loaded machine), no
    example database. ``shrink=False`` where the services keep their state from one example
    to the next (an example replayed later meets another state)."""
    phases = [Phase.explicit, Phase.generate, *([Phase.shrink] if shrink else [])]
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=phases,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
