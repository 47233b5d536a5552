"""band.integrations.copilot_sdk.session_manager: the client, each room's session and turn
lock, cleanup that waits for a running turn, eviction, and who stops the client."""

from __future__ import annotations

import asyncio

import pytest

from band.integrations.copilot_sdk import CopilotSessionManager, session_manager


class Session:
    def __init__(self, log: list[str], name: str, hang: bool = False) -> None:
        self.log, self.name, self.hang = log, name, hang

    async def disconnect(self) -> None:
        if self.hang:
            await asyncio.sleep(60)
        self.log.append(f"disconnect {self.name}")

    async def abort(self) -> None:
        raise RuntimeError("runtime gone")


class Client:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def start(self) -> None:
        self.log.append("start")

    async def stop(self) -> None:
        self.log.append("stop")


async def test_sessions_per_room_and_a_stable_lock_per_room() -> None:
    log: list[str] = []
    client = Client(log)
    manager = CopilotSessionManager(client)
    await manager.ensure_started()
    await manager.ensure_started()  # the client's own start decides what to do
    assert manager.client is client and log == ["start", "start"]
    a, b = Session(log, "a"), Session(log, "b")
    manager.store_session("r1", a)
    manager.store_session("r2", b)
    assert manager.get_session("r1") is a and manager.get_session("r3") is None
    assert manager.turn_lock("r1") is manager.turn_lock("r1")
    assert manager.turn_lock("r1") is not manager.turn_lock("r2")


async def test_cleanup_waits_for_the_rooms_turn() -> None:
    log: list[str] = []
    manager = CopilotSessionManager(Client(log))
    manager.store_session("r1", Session(log, "a"))
    async with manager.turn_lock("r1"):
        cleanup = asyncio.create_task(manager.cleanup_session("r1"))
        await asyncio.sleep(0.05)
        assert not cleanup.done() and log == []
    await cleanup
    assert log == ["disconnect a"] and manager.get_session("r1") is None


async def test_evict_survives_a_dead_runtime_and_stop_spares_a_borrowed_client() -> None:
    log: list[str] = []
    manager = CopilotSessionManager(Client(log), owns_client=False)
    manager.store_session("r1", Session(log, "a"))
    manager.store_session("r2", Session(log, "b"))
    await manager.evict_session("r1")  # abort raises: still dropped and disconnected
    assert manager.get_session("r1") is None and log == ["disconnect a"]
    await manager.stop()
    assert log == ["disconnect a", "disconnect b"]  # the client is its owner's
    owned = CopilotSessionManager(Client(log))
    await owned.stop()
    assert log[-1] == "stop"


async def test_a_hanging_disconnect_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_manager, "_CLOSE_TIMEOUT_S", 0.05)
    log: list[str] = []
    manager = CopilotSessionManager(Client(log))
    manager.store_session("r1", Session(log, "a", hang=True))
    await asyncio.wait_for(manager.cleanup_session("r1"), 2)
    assert manager.get_session("r1") is None
