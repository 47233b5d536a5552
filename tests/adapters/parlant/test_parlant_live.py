"""The Parlant page's agent.py on our platform, with only the NLP service swapped.

A live platform on loopback, an in-process Parlant server the adapter owns, and the
deterministic ``FakeNLPService``: a mention gets the guideline-driven reply, which
mentions the sender; Parlant's preambles never reach the room.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("parlant")

import parlant.sdk as p

from band import Agent
from band.adapters import ParlantAdapter, ParlantAdapterConfig
from band.testing.parlant_nlp import FakeNLPService
from band_server.services.identity import accounts

pytestmark = [pytest.mark.timeout(60), pytest.mark.slow]

ANSWER_ACTION = "Answer the question directly, then ask whether anything else is unclear"
REPLY = "Open Settings, then Security, and choose Reset password. Is anything else unclear?"


def guideline_reply(prompt: str) -> str:
    """Reply only when the matched guideline's action reached the draft prompt."""
    return REPLY if ANSWER_ACTION in prompt else "(no guideline applied)"


def build_adapter(nlp: FakeNLPService, **config: Any) -> ParlantAdapter:
    """agent.py's ``build_adapter`` with ``nlp_service`` swapped for the fake."""
    adapter = ParlantAdapter(
        ParlantAdapterConfig(
            description="You are a support assistant. Give specific, accurate answers.",
            **config,
        ),
        nlp_service=nlp.factory,
    )
    adapter.add_guideline(condition="The user asks a question or needs help", action=ANSWER_ACTION)
    adapter.add_guideline(
        condition="The user asks for help you cannot provide",
        action="Use band_lookup_peers to find an agent that can help, then add it with "
        "band_add_participant",
    )
    return adapter


class Room:
    def __init__(self, http: httpx.AsyncClient, room_id: str) -> None:
        self.http = http
        self.room_id = room_id

    async def say(self, content: str, *mention_ids: str) -> None:
        body = {"message": {"content": content, "mentions": [{"id": m} for m in mention_ids]}}
        r = await self.http.post(f"/api/v1/me/chats/{self.room_id}/messages", json=body)
        r.raise_for_status()

    async def messages(self) -> list[dict[str, Any]]:
        r = await self.http.get(
            f"/api/v1/me/chats/{self.room_id}/messages", params={"limit": 100, "sort_order": "asc"}
        )
        r.raise_for_status()
        return list(r.json()["data"])


@pytest.fixture
async def world(
    live_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Room, str, str]]:
    platform = live_server.platform
    async with platform.db.write() as session:
        user, user_key = await accounts.create_user(session, name="Alice", handle="alice")
        agent, agent_key = await accounts.create_agent(
            session,
            user,
            name="Parlant Agent",
            description="A support assistant that answers product questions.",
        )
        user_id, agent_id = user.id, agent.id
    (tmp_path / "agent_config.yaml").write_text(
        f'my_agent:\n  agent_id: "{agent_id}"\n  api_key: "{agent_key}"\n'
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BAND_REST_URL", live_server.url)
    monkeypatch.setenv("BAND_WS_URL", live_server.ws_url)
    headers = {"x-api-key": user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as http:
        r = await http.post("/api/v1/me/chats", json={"chat": {"title": "Support"}})
        r.raise_for_status()
        room = Room(http, str(r.json()["data"]["id"]))
        body = {"participant": {"participant_id": agent_id}}
        r = await http.post(f"/api/v1/me/chats/{room.room_id}/participants", json=body)
        r.raise_for_status()
        yield room, user_id, agent_id


async def agent_texts(room: Room, agent_id: str) -> list[dict[str, Any]]:
    return [
        m
        for m in await room.messages()
        if m["sender_id"] == agent_id and m["message_type"] == "text"
    ]


async def wait_for(check: Any, limit: float) -> Any:
    import asyncio

    async def loop() -> Any:
        while True:
            result = await check()
            if result:
                return result
            await asyncio.sleep(0.1)

    return await asyncio.wait_for(loop(), limit)


async def test_mention_gets_the_guideline_reply_mentioning_the_sender(
    world: tuple[Room, str, str], caplog: pytest.LogCaptureFixture
) -> None:
    room, user_id, agent_id = world
    nlp = FakeNLPService(
        guideline_reply,
        match=lambda condition, prompt: condition.startswith("The user asks a question"),
        preamble="Let me check that for you.",
    )
    adapter = build_adapter(nlp)
    agent = Agent.from_config("my_agent", adapter=adapter)
    with caplog.at_level(logging.INFO):
        await agent.start()
    try:
        assert any(m.startswith("Parlant server ports: api=") for m in caplog.messages)
        assert any(
            m.startswith("Parlant SDK adapter started for agent: Parlant Agent (parlant_agent_id=")
            for m in caplog.messages
        )
        with pytest.raises(RuntimeError, match=r"^add_guideline must be called before the agent"):
            adapter.add_guideline(condition="late", action="too late")

        await room.say("@Parlant Agent how do I reset my password?", agent_id)
        replies = await wait_for(lambda: agent_texts(room, agent_id), 30)
        print("REPLIES", replies, nlp.schemas_called())
        assert len(replies) == 1 and replies[0]["content"].endswith(REPLY)
        assert user_id in str(replies[0].get("mentions") or replies[0].get("metadata"))
        # the guideline matched: its action reached the draft prompt
        assert any(ANSWER_ACTION in t for t in nlp.prompts_for("CannedResponseDraftSchema"))
        # the preamble is Parlant's, and never posted
        assert all("Let me check" not in m["content"] for m in await room.messages())
    finally:
        await agent.stop()
    assert adapter._lifecycle.server is None  # the owned server is gone


async def test_guideline_reply_through_band_send_message_is_not_posted_twice(
    world: tuple[Room, str, str],
) -> None:
    room, _user_id, agent_id = world
    sent = "Sent by the guideline through band_send_message."
    nlp = FakeNLPService(
        REPLY,
        match=lambda condition, prompt: condition.startswith("The user asks a question"),
        tool_calls={"band_send_message": {"content": sent, "mentions": "Alice"}},
    )
    adapter = build_adapter(nlp)
    agent = Agent.from_config("my_agent", adapter=adapter)
    await agent.start()
    try:
        await room.say("@Parlant Agent how do I reset my password?", agent_id)
        replies = await wait_for(lambda: agent_texts(room, agent_id), 30)
        # give a wrongly relayed second reply time to arrive
        drafted = await wait_for(
            _async_true_when(lambda: nlp.prompts_for("CannedResponseDraftSchema")), 30
        )
        assert drafted
        import asyncio

        await asyncio.sleep(1.0)
        replies = await agent_texts(room, agent_id)
        assert [m["content"].endswith(sent) for m in replies] == [True]
    finally:
        await agent.stop()


async def test_timeout_posts_nothing_and_warns(
    world: tuple[Room, str, str], caplog: pytest.LogCaptureFixture
) -> None:
    room, _user_id, agent_id = world
    nlp = FakeNLPService("")  # an empty draft: Parlant never answers
    adapter = build_adapter(nlp, response_timeout=2.0, response_poll=0.5)
    agent = Agent.from_config("my_agent", adapter=adapter)
    await agent.start()
    try:
        with caplog.at_level(logging.WARNING, logger="band.adapters.parlant"):
            await room.say("@Parlant Agent hello?", agent_id)
            await wait_for(
                _async_true_when(
                    lambda: any("waiting for agent response" in m for m in caplog.messages)
                ),
                30,
            )
        assert await agent_texts(room, agent_id) == []
    finally:
        await agent.stop()


def _async_true_when(predicate: Any) -> Any:
    async def check() -> bool:
        return bool(predicate())

    return check


async def test_borrowed_server_and_agent_are_left_running(
    world: tuple[Room, str, str],
) -> None:
    """byo_server.py: the agent runs inside the caller's ``async with p.Server(...)`` block
    (Parlant's HTTP API is not up yet); the adapter never stops the borrowed server."""
    import asyncio

    from band.integrations.parlant.ports import reserve_server_ports

    room, _user_id, agent_id = world
    nlp = FakeNLPService(REPLY)
    api_port, tool_port = reserve_server_ports("127.0.0.1")
    replies: asyncio.Future[list[dict[str, Any]]] = asyncio.get_running_loop().create_future()
    servers: list[Any] = []

    async def byo_server() -> None:
        async with p.Server(
            host="127.0.0.1", port=api_port, tool_service_port=tool_port, nlp_service=nlp.factory
        ) as server:
            servers.append(server)
            parlant_agent = await server.create_agent(
                name="Support Agent", description="You are a support assistant."
            )
            adapter = ParlantAdapter(server=server, parlant_agent=parlant_agent)
            agent = Agent.from_config("my_agent", adapter=adapter)
            await agent.start()
            try:
                assert adapter.parlant_agent is parlant_agent
                await room.say("@Parlant Agent are you there?", agent_id)
                found = await wait_for(lambda: agent_texts(room, agent_id), 30)
            finally:
                await agent.stop()
            # the borrowed server is still usable after the agent stopped
            second = await server.create_agent(name="Second", description="Still running.")
            assert second.id != parlant_agent.id
            replies.set_result(found)
        # leaving the block evaluates and then serves until cancelled

    task = asyncio.create_task(byo_server())
    try:
        done, _ = await asyncio.wait({task, replies}, timeout=25, return_when="FIRST_COMPLETED")
        if task in done:
            task.result()  # surface the failure
        found = replies.result()
        assert found[0]["content"].endswith(REPLY)
        # cancelling Parlant while its serve phase is still starting can hang; wait for it
        await asyncio.wait_for(servers[0].ready.wait(), 20)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
