"""CrewAIFlowAdapter in a room with two scripted peer agents of ours, on the live platform.

Alice asks the flow agent (Echo) and tags two peers; the flow delegates to both, waits for
both, and posts one synthesised answer to Alice. A peer whose model fails, or that is not
running, is reported in that answer once the reply timeout passes, not waited on forever.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta
from typing import Any

import pytest

from adapters.framework_support import Person, require, running

require("crewai", "BAND_REQUIRE_CREWAI")

from adapters.crewai.flows import DelegatingFlow  # noqa: E402
from band.adapters import CrewAIFlowAdapter, CrewAIFlowAdapterConfig, OpenAIChatAdapter  # noqa: E402
from band.testing import Failure, FakeModel, ModelRequest, Reply, ToolCall, openai_client  # noqa: E402
from band.testing.fake_models import Outcome  # noqa: E402
from band_server.services.identity import accounts  # noqa: E402

SILENT = "(never started)"
pytestmark = [
    pytest.mark.timeout(90),
    pytest.mark.filterwarnings("ignore::ImportWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]


def peer_policy(view: str | None, flow_handle: str) -> Callable[[ModelRequest], Outcome]:
    """A peer that answers only the flow agent (with ``view``; None: its model fails)."""

    def answer(request: ModelRequest) -> Outcome:
        last = request.last
        if last is not None and last.role == "tool":
            return Reply(text="")
        if not any("[Echo]:" in text for text in request.texts("user")[-1:]):
            return Reply(tool_calls=(ToolCall("band_no_reply", {"reason": "not asked"}),))
        if view is None:
            return Failure(500, "the peer's model is down")
        call = ToolCall("band_send_message", {"content": view, "mentions": [flow_handle]})
        return Reply(tool_calls=(call,))

    return answer


async def new_agent(live: Any, owner: str, name: str) -> tuple[str, str, str]:
    async with live.platform.db.write() as session:
        user = await accounts.get_user(session, owner)
        agent, key = await accounts.create_agent(
            session, user, name=name, description=f"{name}, a scripted peer agent"
        )
        return agent.id, key, agent.handle


@asynccontextmanager
async def room_with_peers(
    live: Any, seeded: Any, alice: Person, views: dict[str, str | None]
) -> AsyncIterator[tuple[str, dict[str, str]]]:
    """A room with Alice, Echo (the flow, not started here) and the named peers, running
    unless their view is ``SILENT``."""
    peers = {name: await new_agent(live, seeded.user_id, name) for name in views}
    room = await alice.create_room("Panel", seeded.agent_id, *(p[0] for p in peers.values()))
    async with AsyncExitStack() as stack:
        for name, (peer_id, key, _) in peers.items():
            if views[name] == SILENT:
                continue
            fake = FakeModel(policy=peer_policy(views[name], seeded.agent_handle))
            adapter = OpenAIChatAdapter("fake-model", client=openai_client(fake))
            seeded_peer = type(seeded)(
                seeded.user_id, seeded.user_key, seeded.user_handle, peer_id, key, name
            )
            await stack.enter_async_context(running(live, seeded_peer, adapter))
        yield room, {name: p[0] for name, p in peers.items()}


def flow_agent(**config: Any) -> CrewAIFlowAdapter:
    return CrewAIFlowAdapter(CrewAIFlowAdapterConfig(**config), flow_factory=DelegatingFlow)


async def final_answer(alice: Person, room: str, agent_id: str) -> dict[str, Any]:
    from runtime_support import until

    async def answered() -> dict[str, Any] | None:
        for m in await alice.listing(room):
            if m["sender_id"] == agent_id and "Summary" in m["content"]:
                return m
        return None

    found: dict[str, Any] = await until(answered, limit=60)
    return found


async def test_the_flow_delegates_to_both_tagged_peers_and_posts_one_synthesis(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    views = {"Scout": "Scout thinks yes.", "Sage": "Sage thinks no."}
    async with (
        room_with_peers(live_server, seeded, alice, views) as (room, peers),
        running(live_server, seeded, flow_agent()),
    ):
        await alice.say(room, "Should we ship on Friday?", seeded.agent_id, *peers.values())
        answer = await final_answer(alice, room, seeded.agent_id)
        listing = await alice.listing(room)
    asks = [
        m for m in listing if m["sender_id"] == seeded.agent_id and "Please give" in m["content"]
    ]
    assert len(asks) == 2  # one delegation per tagged peer, each mentioning that peer
    for ask in asks:  # each mentions exactly one of the peers
        assert sum(peer in json.dumps(ask["metadata"]) for peer in peers.values()) == 1
    finals = [m for m in listing if m["sender_id"] == seeded.agent_id and "Summary" in m["content"]]
    assert len(finals) == 1
    assert "Scout said: Scout thinks yes." in answer["content"]
    assert "Sage said: Sage thinks no." in answer["content"]
    assert seeded.user_id in json.dumps(answer["metadata"])


@pytest.mark.parametrize(
    "sage",
    [pytest.param(None, id="its-model-fails"), pytest.param(SILENT, id="not-running")],
)
async def test_a_peer_that_does_not_answer_is_reported_after_the_reply_timeout(
    sage: str | None, live_server: Any, seeded: Any, alice: Person
) -> None:
    views: dict[str, str | None] = {"Scout": "Scout thinks yes.", "Sage": sage}
    async with (
        room_with_peers(live_server, seeded, alice, views) as (room, peers),
        running(live_server, seeded, flow_agent(reply_timeout=timedelta(seconds=3))),
    ):
        await alice.say(room, "Should we ship on Friday?", seeded.agent_id, *peers.values())
        answer = await final_answer(alice, room, seeded.agent_id)
    assert "Scout said: Scout thinks yes." in answer["content"]
    assert "Sage failed (reply_timeout): no reply within 3s" in answer["content"]
