"""``AgentRuntime`` for code without an adapter: a handler per room event, messages claimed and
acknowledged around it, a backlog drained at start, rooms joined as the agent is added."""

from __future__ import annotations

import asyncio

import pytest

from band import AgentRuntime, BandLink, ExecutionContext, PlatformEvent
from band.client.rest import ChatMessageRequest, ChatMessageRequestMentionsItem
from band.platform.event import MessageEvent
from band_server.testing.local_platform import LocalPlatform

pytestmark = pytest.mark.timeout(60)


async def _until(probe: object, what: str) -> None:
    for _ in range(300):
        if await probe():  # type: ignore[operator]
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def test_agent_runtime_answers_drains_and_follows_rooms() -> None:
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        echo = await platform.agent(alice, "Echo")
        room = await platform.room(alice, echo)
        await platform.post(alice, room, "before start", echo)  # the backlog
        link = BandLink(echo.id, echo.key, platform.ws_url, platform.rest_url)
        seen: list[str] = []
        cleaned: list[str] = []

        async def on_execute(ctx: ExecutionContext, event: PlatformEvent) -> None:
            if not isinstance(event, MessageEvent) or event.payload is None:
                return
            seen.append(event.payload.content)
            await ctx.link.rest.agent_api_messages.create_agent_chat_message(
                ctx.room_id,
                message=ChatMessageRequest(
                    content=f"got: {event.payload.content.split()[-1]}",
                    mentions=[ChatMessageRequestMentionsItem(id=event.payload.sender_id)],
                ),
            )

        async def cleanup(room_id: str) -> None:
            cleaned.append(room_id)

        runtime = AgentRuntime(link, echo.id, on_execute, on_session_cleanup=cleanup)
        await runtime.start()
        try:

            async def replies(room_id: str) -> list[str]:
                return [
                    m["content"]
                    for m in await platform.messages(alice, room_id)
                    if m["sender_id"] == echo.id and m["message_type"] == "text"
                ]

            async def backlog_answered() -> bool:
                return any(r.endswith("got: start") for r in await replies(room))

            await _until(backlog_answered, "the backlog answer")
            await platform.post(alice, room, "now live", echo)

            async def live_answered() -> bool:
                return any(r.endswith("got: live") for r in await replies(room))

            await _until(live_answered, "the live answer")
            second = await platform.room(alice, echo, title="Second")

            async def joined() -> bool:
                return second in runtime.active_sessions

            await _until(joined, "the new room's execution")
            await platform.post(alice, second, "second room", echo)

            async def second_answered() -> bool:
                return any(r.endswith("got: room") for r in await replies(second))

            await _until(second_answered, "the answer in the new room")
            assert len(await replies(room)) == 2  # each message answered once
        finally:
            assert await runtime.stop(5.0) is True
        assert sorted(cleaned) == sorted([room, second])
