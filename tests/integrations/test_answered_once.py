"""kill -9 at the worst moment: after the reply is posted, before ``/processed``.

The platform serves the still-open message again; the next run must finish it without
answering twice. Each host runs as a real process whose REST goes through a proxy that kills
it (SIGKILL) at one exact request; the next process talks to the platform directly. Covered:
the ordinary ``Agent`` (the seed page's adapter), ``band runtime`` behind ``band bridge``
(``OneShotInvoker``) and an ``AgentRuntime`` host, plus a partial turn (killed before its
reply was posted: the reply is made once, what was posted is not repeated).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from band.testing import FakeModel, fake_openai_server

from .crash_proxy import CrashProxy, Request
from .support import (
    Child,
    Person,
    ServerChild,
    World,
    agent_env,
    band_command,
    free_port,
    start_world,
    until,
    workdir_for,
)

pytest.importorskip("openai")
pytest.importorskip("uvicorn")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

HERE = Path(__file__).resolve().parent
RUN_AGENT = HERE.parent / "e2e" / "seed" / "run_agent.py"
RUNTIME_HOST = HERE / "agents" / "runtime_host.py"


def processed_call(request: Request) -> bool:
    return request.method == "POST" and request.path.endswith("/processed")


def reply_post(request: Request) -> bool:
    return request.method == "POST" and request.path.endswith("/messages")


@dataclass
class Scene:
    server: ServerChild
    world: World
    alice: Person
    workdir: Path
    tmp: Path
    base_url: str
    fake: FakeModel
    children: list[Child] = field(default_factory=list)

    def env(self, rest_url: str | None = None) -> dict[str, str]:
        env = agent_env(self.server, self.tmp, OPENAI_API_KEY="fake", OPENAI_BASE_URL=self.base_url)
        if rest_url is not None:
            env["BAND_REST_URL"] = rest_url
        return env

    def start(self, name: str, argv: list[str], rest_url: str | None = None) -> Child:
        child = Child.start(
            f"{name}-{len(self.children)}",
            argv,
            cwd=self.workdir,
            env=self.env(rest_url),
            log_dir=self.tmp / "logs",
        )
        self.children.append(child)
        return child

    def diagnostics(self) -> str:
        return "\n".join(c.diagnostics() for c in self.children[-3:])

    async def crash_first_run(
        self,
        argv: list[str],
        crash_on: Callable[[Request], bool],
        ready: str,
        said: str,
        *,
        then: list[str] | None = None,
    ) -> Request:
        """Run ``argv`` with its REST through a proxy that kill -9s it at ``crash_on``; mention
        the agent with ``said`` and wait for the kill. ``then`` is started after it (a bridge).
        """
        w = self.world
        victim: list[Child] = []
        async with CrashProxy(self.server.url, crash_on, lambda: victim[0].kill9()) as proxy:
            victim.append(self.start("first", argv, rest_url=proxy.url))
            await victim[0].wait_log(ready)
            if then is not None:
                await self.start("then", then).wait_log("Bridge running")
            await self.alice.say(w.room_id, f"@{w.agent_handle} {said}", w.agent_id)

            async def dead() -> bool:
                return victim[0].proc.poll() is not None

            await until(dead, within=90, what="the kill", diagnostics=self.diagnostics)
        assert victim[0].proc.returncode == -9, victim[0].diagnostics()
        assert proxy.crashed is not None
        return proxy.crashed

    async def run_again(self, argv: list[str], ready: str) -> None:
        """The next process, straight to the platform."""
        await self.start("again", argv).wait_log(ready)

    async def mine(self) -> list[dict[str, Any]]:
        timeline = await self.alice.timeline(self.world.room_id)
        return [m for m in timeline if m["sender_id"] == self.world.agent_id]

    async def settled(self) -> list[dict[str, Any]]:
        """The agent's messages once the platform has nothing open for it in the room."""
        w = self.world
        path = f"/api/v1/agent/chats/{w.room_id}/messages/next"
        headers = {"X-API-Key": w.agent_key}
        async with httpx.AsyncClient(base_url=self.server.url, headers=headers) as agent:

            async def nothing_open() -> bool:
                return (await agent.get(path)).status_code == 204

            await until(
                nothing_open, within=90, what="the message processed", diagnostics=self.diagnostics
            )
        return await self.mine()

    def model_calls_for(self, said: str) -> int:
        return sum(1 for r in self.fake.requests if any(said in t for t in r.texts("user")))


@pytest.fixture
async def scene(tmp_path: Path) -> AsyncIterator[Scene]:
    fake = FakeModel()
    with fake_openai_server(fake) as base_url:
        server, world, alice = await start_world(tmp_path)
        workdir = workdir_for(tmp_path, world)
        shutil.copyfile(RUN_AGENT, workdir / "run_agent.py")
        shutil.copyfile(RUNTIME_HOST, workdir / "runtime_host.py")
        s = Scene(server, world, alice, workdir, tmp_path, base_url, fake)
        try:
            yield s
        finally:
            for child in s.children:
                child.stop()
            await alice.http.aclose()
            server.stop()


def kinds(messages: list[dict[str, Any]]) -> list[str]:
    return [m["message_type"] for m in messages]


def assert_one_turn(mine: list[dict[str, Any]], said: str) -> None:
    """The seed adapter's turn, exactly once: its tool call, the reply, the tool result."""
    assert kinds(mine) == ["tool_call", "text", "tool_result"], mine
    assert f"You said: {said}" in mine[1]["content"], mine
    call, result = (json.loads(m["content"]) for m in (mine[0], mine[2]))
    assert call["name"] == result["name"] == "band_send_message"


async def test_agent_killed_before_processed_answers_once(scene: Scene) -> None:
    argv = band_python(RUN_AGENT)
    crashed = await scene.crash_first_run(argv, processed_call, "Agent started", "exactly once")
    assert processed_call(crashed)
    assert_one_turn(await scene.mine(), "exactly once")  # posted, not yet acknowledged

    await scene.run_again(argv, "Agent started")
    assert_one_turn(await scene.settled(), "exactly once")
    assert scene.model_calls_for("exactly once") >= 2  # the message really ran again


async def test_agent_killed_mid_turn_posts_the_rest_once(scene: Scene) -> None:
    """Killed as it was about to post its reply: the tool call it already posted stays alone,
    the reply and the tool result are posted by the next run."""
    argv = band_python(RUN_AGENT)
    await scene.crash_first_run(argv, reply_post, "Agent started", "half done")
    assert kinds(await scene.mine()) == ["tool_call"]

    await scene.run_again(argv, "Agent started")
    assert_one_turn(await scene.settled(), "half done")


async def test_runtime_killed_before_processed_answers_once(scene: Scene) -> None:
    """``band bridge`` -> ``band runtime`` (``OneShotInvoker``): the bridge retries the
    envelope until a runtime is back; the new one finishes the message without a second
    answer."""
    port = free_port()
    argv = band_command(
        "runtime", "--adapter", "chat_adapter:ChatCompletionsAdapter", "--port", str(port)
    )
    bridge = band_command("bridge", "--runtime-url", f"http://127.0.0.1:{port}/invocations")
    ready = "OneShotInvoker ready"
    await scene.crash_first_run(argv, processed_call, ready, "via the bridge", then=bridge)
    assert_one_turn(await scene.mine(), "via the bridge")

    await scene.run_again(argv, ready)
    assert_one_turn(await scene.settled(), "via the bridge")
    assert scene.model_calls_for("via the bridge") >= 2


async def test_agent_runtime_host_killed_before_processed_answers_once(scene: Scene) -> None:
    """A host on ``AgentRuntime`` (no adapter): its handler's posts are keyed the same way."""
    argv = band_python(RUNTIME_HOST)
    await scene.crash_first_run(argv, processed_call, "Starting AgentRuntime", "host once")
    assert kinds(await scene.mine()) == ["thought", "text"]

    await scene.run_again(argv, "Starting AgentRuntime")
    mine = await scene.settled()
    assert kinds(mine) == ["thought", "text"], mine
    assert mine[1]["content"].endswith("got: host once (run 1)"), mine


def band_python(script: Path) -> list[str]:
    return [*band_command()[:1], script.name]
