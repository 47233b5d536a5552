"""Daemon mode: stopping a provider that takes its time never stalls the bridge's event loop."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from band.bridge import daemon
from band.bridge.daemon import ProviderPool

pytestmark = pytest.mark.timeout(60)

STUBBORN = Path(__file__).resolve().parent / "agents" / "stubborn_provider.py"


async def test_a_provider_ignoring_sigterm_is_killed_while_the_loop_keeps_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(daemon, "STOP_GRACE", 3.0)
    pool = ProviderPool(f"{sys.executable} {STUBBORN}", idle_timeout=3600)
    url = await pool.target("agent-1", "room-1")
    assert url.endswith("/invocations")
    (provider,) = pool._providers.values()

    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    ticker = asyncio.create_task(tick())
    stopping = asyncio.create_task(pool.aclose())
    try:
        while ticks < 10:  # the loop runs while the provider is being stopped
            assert not stopping.done(), "the stop finished before the loop could tick"
            await asyncio.sleep(0.05)
        await asyncio.wait_for(stopping, 30)
    finally:
        ticker.cancel()
    assert provider.proc.returncode == -9  # SIGTERM ignored: killed after the grace period
