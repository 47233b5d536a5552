"""One turn is one trace (issue 36): the platform and the seed page's agent, each a process
exporting over OTLP to a receiver on loopback, a person's mention answered, and the spans'
parentage checked: the person's POST, its commit and push, the agent's turn under the push,
each REST request of the turn under it with the platform's span under that, the tool call,
and the reply's own POST, commit and push."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import AgentChild, Person, ServerChild, seed_agent_env, seed_world, until

from band.testing import FakeModel, fake_openai_server
from compat.otlp_receiver import OtlpReceiver, Span

pytest.importorskip("openai")
pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]

SEED_DIR = Path(__file__).resolve().parent / "seed"


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as r:
        yield r


def _one(spans: list[Span], name: str, service: str, parent: Span | None = None) -> Span:
    found = [s for s in spans if s.name == name and s.service == service]
    if parent is not None:
        found = [s for s in found if s.parent_id == parent.span_id]
    assert len(found) == 1, f"{service}:{name} under {parent and parent.name}: {found}"
    return found[0]


async def test_a_mention_and_its_answer_are_one_trace_from_the_post_to_the_reply(
    tmp_path: Path, receiver: OtlpReceiver
) -> None:
    world = await seed_world(tmp_path / "data")
    server = ServerChild(tmp_path / "data", tmp_path / "logs", env=receiver.env("band-server"))
    await server.start()
    workdir = tmp_path / "seed-agent"
    workdir.mkdir()
    for name in ("chat_adapter.py", "run_agent.py"):
        shutil.copyfile(SEED_DIR / name, workdir / name)
    creds = {"agent_id": world.agent_id, "api_key": world.agent_key}
    (workdir / "agent_config.yaml").write_text(json.dumps({"my_agent": creds}))  # JSON is YAML
    try:
        with fake_openai_server(FakeModel()) as base_url:
            env = {
                **seed_agent_env(server.url, server.ws_url, base_url, tmp_path),
                **receiver.env("band-agent"),
            }
            agent = AgentChild.start(
                workdir / "run_agent.py", cwd=workdir, env=env, log_path=tmp_path / "agent.log"
            )
            try:
                await agent.wait_log("Agent started")
                headers = {"X-API-Key": world.person_key}
                async with httpx.AsyncClient(base_url=server.url, headers=headers) as http:
                    alice = Person(http, world.person_id)
                    mention = await alice.say(
                        world.room_id, f"@{world.agent_handle} trace this", world.agent_id
                    )

                    async def answered() -> list[dict[str, Any]] | None:
                        timeline = await alice.timeline(world.room_id)
                        texts = [m for m in timeline if m["sender_id"] == world.agent_id]
                        done = any(m["message_type"] == "tool_result" for m in texts)
                        return timeline if done else None

                    timeline = await until(answered, within=30, what="the agent's answer")
                assert await agent.interrupt() == 0  # exits cleanly: its spans are flushed
            finally:
                agent.close()
    finally:
        server.stop()
    posted = next(m for m in timeline if m["id"] == mention)
    trace_id = posted["metadata"]["trace_id"]  # the web app links the delivery to it
    spans = receiver.wait_for(
        lambda ss: (
            any(s.name == "band.turn" for s in ss)
            and sum(s.trace_id == trace_id and s.service == "band-server" for s in ss) >= 10
        )
    )
    mine = [s for s in spans if s.trace_id == trace_id]
    print(f"\ntrace {trace_id}:\n{receiver.tree(trace_id)}")  # shown with pytest -s

    post = _one(mine, "POST /api/v1/me/chats/{id}/messages", "band-server")
    assert post.parent_id == "" and post.kind == "server"
    _one(mine, "band.commit", "band-server", post)
    push = _one(mine, "push message_created", "band-server", post)
    turn = _one(mine, "band.turn", "band-agent", push)
    assert turn.attributes["band.message_id"] == mention
    # The push carried the claim (claim_on_push): the turn makes no /processing of its own.
    claim = "POST /api/v1/agent/chats/{id}/messages/{id}/processing"
    assert [s for s in mine if s.name == claim] == []
    tool = _one(mine, "band.tool band_send_message", "band-agent", turn)
    sent = _one(mine, "POST /api/v1/agent/chats/{id}/messages", "band-agent", tool)
    reply = _one(mine, "POST /api/v1/agent/chats/{id}/messages", "band-server", sent)
    _one(mine, "band.commit", "band-server", reply)
    _one(mine, "push message_created", "band-server", reply)
    events = [s for s in mine if s.name == "POST /api/v1/agent/chats/{id}/events"]
    assert {s.service for s in events} == {"band-agent", "band-server"}  # tool_call, tool_result
    done = "POST /api/v1/agent/chats/{id}/messages/{id}/processed"
    _one(mine, done, "band-server", _one(mine, done, "band-agent", turn))
    # Nothing the agent did during the turn went to another trace.
    during = [s for s in spans if turn.start_ns <= s.start_ns <= turn.end_ns]
    assert {s.trace_id for s in during if s.service == "band-agent"} == {trace_id}
