"""A host written only on ``BandLink`` (``examples/personal_gateway.py``), against our platform
process: it answers mentions, joins a room it is added to, drains a backlog, and stops
cleanly when another connection of the same agent supersedes it."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from .support import Child, Person, ServerChild, World, add_room, agent_env, replies, start_world

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

GATEWAY = Path(__file__).resolve().parents[2] / "examples" / "personal_gateway.py"


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[tuple[ServerChild, World, Person]]:
    server, world, alice = await start_world(tmp_path)
    try:
        yield server, world, alice
    finally:
        await alice.http.aclose()
        server.stop()


def _gateway(tmp_path: Path, server: ServerChild, world: World, name: str) -> Child:
    env = agent_env(server, tmp_path, BAND_AGENT_ID=world.agent_id, BAND_API_KEY=world.agent_key)
    return Child.start(
        name, [sys.executable, str(GATEWAY)], cwd=tmp_path, env=env, log_dir=tmp_path / "logs"
    )


async def _said(alice: Person, room: str, agent: str, text: str, child: Child) -> list[str]:
    async def probe() -> list[str] | None:
        got = await replies(alice, room, agent)
        return got if any(text in t for t in got) else None

    from .support import until

    result: list[str] = await until(
        probe, within=30, what=f"an answer to {text!r}", diagnostics=child.diagnostics
    )
    return result


async def test_bandlink_host_answers_joins_drains_and_yields_to_a_newer_link(
    tmp_path: Path, world: tuple[ServerChild, World, Person]
) -> None:
    server, w, alice = world
    # A backlog from before the host started.
    await alice.say(w.room_id, f"@{w.agent_handle} left while away", w.agent_id)
    first = _gateway(tmp_path, server, w, "gateway-1")
    try:
        await first.wait_log("Gateway ready")
        await _said(alice, w.room_id, w.agent_id, "Noted, Alice: left while away", first)

        await alice.say(w.room_id, f"@{w.agent_handle} ping", w.agent_id)
        await _said(alice, w.room_id, w.agent_id, "Noted, Alice: ping", first)

        fresh = await add_room(alice, "Fresh", w.agent_id)
        await first.wait_log(f"chat_room:{fresh}")
        await alice.say(fresh, f"@{w.agent_handle} new room", w.agent_id)
        await _said(alice, fresh, w.agent_id, "Noted, Alice: new room", first)

        # A second connection of the same agent supersedes the first: it ends cleanly.
        second = _gateway(tmp_path, server, w, "gateway-2")
        try:
            await second.wait_log("Gateway ready")
            first.proc.wait(timeout=30)
            assert first.proc.returncode == 0, first.diagnostics()
            assert "gateway stopping" in first.log_text()
            assert "Traceback" not in first.log_text(), first.diagnostics()
            await alice.say(w.room_id, f"@{w.agent_handle} still there?", w.agent_id)
            await _said(alice, w.room_id, w.agent_id, "still there?", second)
        finally:
            second.stop()
        texts = await replies(alice, w.room_id, w.agent_id)
        assert sum("left while away" in t for t in texts) == 1, texts
        assert sum("ping" in t for t in texts) == 1, texts
    finally:
        first.stop()
