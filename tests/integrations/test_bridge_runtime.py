"""Seed 000's agent-platform shape, offline against our platform process: ``band bridge`` holds
the socket and forwards envelopes to ``band runtime``, which runs the seed page's adapter
(unchanged) through ``OneShotInvoker`` on the fake OpenAI endpoint."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from band.testing import FakeModel, fake_openai_server
from band.testing.fake_models import ModelRequest, Outcome, default_policy

from .support import (
    Child,
    Person,
    ServerChild,
    World,
    add_room,
    agent_env,
    band_command,
    free_port,
    replies,
    start_world,
    until,
    workdir_for,
)

pytest.importorskip("openai")
pytest.importorskip("uvicorn")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


class SlowOnce:
    """A model that stalls on the first request whose last speech contains ``marker``."""

    def __init__(self) -> None:
        self.marker: str | None = None
        self.stalled = threading.Event()

    def __call__(self, request: ModelRequest) -> Outcome:
        outcome = default_policy(request)
        texts = request.texts("user")
        if self.marker and texts and self.marker in texts[-1] and not self.stalled.is_set():
            self.stalled.set()
            return dataclasses.replace(outcome, delay=60.0)
        return outcome


@dataclasses.dataclass
class Stack:
    server: ServerChild
    world: World
    alice: Person
    workdir: Path
    tmp: Path
    base_url: str
    runtime_port: int
    policy: SlowOnce
    fake: FakeModel
    children: list[Child] = dataclasses.field(default_factory=list)

    @property
    def runtime_url(self) -> str:
        return f"http://127.0.0.1:{self.runtime_port}"

    def env(self) -> dict[str, str]:
        return agent_env(
            self.server, self.tmp, OPENAI_API_KEY="fake", OPENAI_BASE_URL=self.base_url
        )

    async def start_runtime(self) -> Child:
        child = Child.start(
            f"runtime-{len(self.children)}",
            band_command(
                "runtime",
                "--adapter",
                "chat_adapter:ChatCompletionsAdapter",
                "--agent",
                "my_agent",
                "--port",
                str(self.runtime_port),
            ),
            cwd=self.workdir,
            env=self.env(),
            log_dir=self.tmp / "logs",
        )
        self.children.append(child)

        async def ready() -> bool:
            if child.proc.poll() is not None:
                raise AssertionError(child.diagnostics())
            try:
                async with httpx.AsyncClient(timeout=2) as c:
                    return (await c.get(f"{self.runtime_url}/ping")).status_code == 200
            except httpx.HTTPError:
                return False

        await until(ready, within=30, what="band runtime /ping", diagnostics=child.diagnostics)
        return child

    async def start_bridge(self) -> Child:
        child = Child.start(
            f"bridge-{len(self.children)}",
            band_command("bridge", "--runtime-url", f"{self.runtime_url}/invocations"),
            cwd=self.workdir,
            env=self.env(),
            log_dir=self.tmp / "logs",
        )
        self.children.append(child)
        await child.wait_log("Bridge running")
        return child

    def diagnostics(self) -> str:
        return "\n".join(c.diagnostics() for c in self.children[-3:])

    async def model_stalled(self) -> None:
        async def probe() -> bool:
            return self.policy.stalled.is_set()

        await until(probe, within=60, what="the model call to stall", diagnostics=self.diagnostics)

    async def answered(self, room_id: str, said: str, times: int = 1) -> list[str]:
        async def probe() -> list[str] | None:
            texts = await replies(self.alice, room_id, self.world.agent_id)
            return texts if sum(f"You said: {said}" in t for t in texts) >= times else None

        result: list[str] = await until(
            probe, within=60, what=f"a reply to {said!r}", diagnostics=self.diagnostics
        )
        return result


@pytest.fixture
async def stack(tmp_path: Path) -> AsyncIterator[Stack]:
    policy = SlowOnce()
    fake = FakeModel(policy)
    with fake_openai_server(fake) as base_url:
        server, world, alice = await start_world(tmp_path)
        workdir = workdir_for(tmp_path, world)
        s = Stack(server, world, alice, workdir, tmp_path, base_url, free_port(), policy, fake)
        try:
            yield s
        finally:
            for child in s.children:
                child.stop()
            await alice.http.aclose()
            server.stop()


def _count(texts: list[str], said: str) -> int:
    return sum(f"You said: {said}" in t for t in texts)


async def test_bridge_and_runtime_answer_mentions_in_order_once_each(stack: Stack) -> None:
    w, alice = stack.world, stack.alice
    await stack.start_runtime()
    bridge = await stack.start_bridge()

    # A mention is answered with the seed adapter's tool events.
    await alice.say(w.room_id, f"@{w.agent_handle} first question", w.agent_id)
    await stack.answered(w.room_id, "first question")

    async def tool_events_in() -> list[dict[str, Any]] | None:
        timeline = await alice.timeline(w.room_id)
        mine = {m["message_type"] for m in timeline if m["sender_id"] == w.agent_id}
        return timeline if "tool_result" in mine else None

    timeline = await until(
        tool_events_in, within=30, what="the tool_result", diagnostics=stack.diagnostics
    )
    kinds = [m["message_type"] for m in timeline if m["sender_id"] == w.agent_id]
    assert kinds == ["tool_call", "text", "tool_result"], timeline
    call = json.loads(next(m["content"] for m in timeline if m["message_type"] == "tool_call"))
    assert call["name"] == "band_send_message"

    # Two rooms at once: each answers its own messages, in the order they were posted.
    second = await add_room(alice, "Second", w.agent_id)
    await bridge.wait_log(f"Subscribed to topic: chat_room:{second}", within=30)
    for n in (1, 2, 3):
        await alice.say(w.room_id, f"@{w.agent_handle} main {n}", w.agent_id)
        await alice.say(second, f"@{w.agent_handle} side {n}", w.agent_id)
    main = await stack.answered(w.room_id, "main 3")
    side = await stack.answered(second, "side 3")
    assert [t.split("You said: ")[1] for t in main[1:]] == ["main 1", "main 2", "main 3"], main
    assert [t.split("You said: ")[1] for t in side] == ["side 1", "side 2", "side 3"], side

    # A backlog posted while the bridge was down is answered once when it is back.
    bridge.stop()
    await alice.say(w.room_id, f"@{w.agent_handle} while you were out", w.agent_id)
    await stack.start_bridge()
    await stack.answered(w.room_id, "while you were out")

    # The same envelope handled twice posts once.
    timeline = await alice.timeline(w.room_id)
    trigger = next(m for m in timeline if m["content"].endswith("while you were out"))
    envelope = {
        "event_type": "message_created",
        "agent_id": w.agent_id,
        "room_id": w.room_id,
        "payload": trigger,
        "raw": trigger,
        "forwarded_at": "2026-01-01T00:00:00Z",
    }
    async with httpx.AsyncClient(timeout=30) as c:
        settled = ("already_processed", "no_pending")
        statuses: list[str] = []

        async def handled_again() -> bool:
            r = await c.post(f"{stack.runtime_url}/invocations", json=envelope)
            assert r.status_code == 200, r.text
            statuses.append(r.json()["status"])
            return statuses[-1] in settled

        # While the first turn is still finishing the runtime answers not_accepted (in flight).
        await until(handled_again, within=30, what="the repeat", diagnostics=stack.diagnostics)
        assert set(statuses) <= {"not_accepted", *settled}, statuses
        r = await c.post(f"{stack.runtime_url}/invocations", json=envelope)
        assert r.json()["status"] in settled, r.json()
        bad = await c.post(
            f"{stack.runtime_url}/invocations",
            json={"event_type": "message_created", "payload": {}},
        )
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_envelope"
    texts = await replies(alice, w.room_id, w.agent_id)
    assert _count(texts, "while you were out") == 1, texts
    assert _count(texts, "first question") == 1, texts


async def test_runtime_killed_mid_invocation_answers_once_after_it_returns(stack: Stack) -> None:
    w, alice = stack.world, stack.alice
    runtime = await stack.start_runtime()
    await stack.start_bridge()
    stack.policy.marker = "slow one"
    await alice.say(w.room_id, f"@{w.agent_handle} slow one", w.agent_id)

    await stack.model_stalled()
    runtime.kill9()
    assert _count(await replies(alice, w.room_id, w.agent_id), "slow one") == 0
    await stack.start_runtime()
    texts = await stack.answered(w.room_id, "slow one")
    assert _count(texts, "slow one") == 1, texts


async def test_daemon_starts_a_provider_per_room_with_work_and_restarts_it_after_kill9(
    stack: Stack,
) -> None:
    w, alice = stack.world, stack.alice
    provider = " ".join(
        [
            sys.executable,
            "-m",
            "band.cli",
            "runtime",
            "--adapter",
            "chat_adapter:ChatCompletionsAdapter",
            "--agent",
            "my_agent",
            "--port",
            "{port}",
        ]
    )
    daemon = Child.start(
        "daemon",
        band_command("bridge", "--provider-command", provider, "--idle-timeout", "4"),
        cwd=stack.workdir,
        env=stack.env(),
        log_dir=stack.tmp / "logs",
    )
    stack.children.append(daemon)
    await daemon.wait_log("Bridge running")
    assert "Provider started" not in daemon.log_text()  # no room has work yet

    await alice.say(w.room_id, f"@{w.agent_handle} wake up", w.agent_id)
    await stack.answered(w.room_id, "wake up")
    assert daemon.log_text().count(f"Provider started for room {w.room_id}") == 1
    await daemon.wait_log(f"Provider stopped for room {w.room_id} (idle", within=30)

    # kill -9 the provider in the middle of a turn: the message is answered once, by the next one.
    stack.policy.marker = "do not drop me"
    await alice.say(w.room_id, f"@{w.agent_handle} do not drop me", w.agent_id)

    await stack.model_stalled()
    pid = int(
        daemon.log_text().rsplit(f"Provider started for room {w.room_id} (pid ", 1)[1].split(",")[0]
    )
    os.kill(pid, signal.SIGKILL)
    texts = await stack.answered(w.room_id, "do not drop me")
    assert _count(texts, "do not drop me") == 1, texts
    assert "exited with code -9; restarting" in daemon.log_text(), daemon.diagnostics()
