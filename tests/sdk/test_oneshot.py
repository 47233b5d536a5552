"""``OneShotInvoker`` on the local platform: each envelope status and the envelope errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from band import BandLink
from band.core import AgentToolsProtocol, SimpleAdapter
from band.core.delivery import relay_reply
from band.core.types import PlatformMessage
from band.runtime.oneshot import OneShotEnvelopeError, OneShotInvoker
from band_server.testing.local_platform import Identity, LocalPlatform

pytestmark = pytest.mark.timeout(60)


class Echo(SimpleAdapter[Any]):
    def __init__(self) -> None:
        super().__init__()
        self.cleaned: list[str] = []
        self.bootstraps: list[bool] = []

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: Any,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        self.bootstraps.append(is_session_bootstrap and participants_msg is not None)
        await relay_reply(tools, f"echo: {msg.content}", mentions=[msg.sender_id])

    async def on_cleanup(self, room_id: str) -> None:
        self.cleaned.append(room_id)


@pytest.fixture
async def world() -> AsyncIterator[tuple[LocalPlatform, Identity, Identity, str]]:
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        echo = await platform.agent(alice, "Echo")
        room = await platform.room(alice, echo)
        yield platform, alice, echo, room


def _envelope(event_type: str, room_id: str | None, payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "event_type": event_type,
        "agent_id": "x",
        "room_id": room_id,
        "payload": payload,
        "raw": payload,
        "forwarded_at": "2026-01-01T00:00:00Z",
    }


async def test_oneshot_statuses(world: tuple[LocalPlatform, Identity, Identity, str]) -> None:
    platform, alice, echo, room = world
    adapter = Echo()
    link = BandLink(echo.id, echo.key, platform.ws_url, platform.rest_url)
    invoker = OneShotInvoker(link=link, adapter=adapter, agent_id=echo.id)
    with pytest.raises(RuntimeError):
        await invoker.handle_event(_envelope("message_created", room, {}))
    await invoker.startup()
    await invoker.startup()  # idempotent
    assert invoker.agent_name == "Echo"

    await platform.post(alice, room, "hello", echo)
    message = next(
        m for m in await platform.messages(alice, room) if m["content"].endswith("hello")
    )
    done = await invoker.handle_event(
        _envelope("message_created", None, {**message, "chat_room_id": room})
    )
    assert (
        done["status"] == "done" and done["message_id"] == message["id"] and done["room_id"] == room
    )
    assert adapter.bootstraps == [True]
    texts = [
        m["content"] for m in await platform.messages(alice, room) if m["sender_id"] == echo.id
    ]
    assert len(texts) == 1 and "echo: " in texts[0] and texts[0].endswith("hello")
    again = await invoker.handle_event(_envelope("message_created", room, message))
    assert again["status"] in ("already_processed", "no_pending")

    mine = next(m for m in await platform.messages(alice, room) if m["sender_id"] == echo.id)
    assert (await invoker.handle_event(_envelope("message_created", room, mine)))[
        "status"
    ] == "skipped_self"
    ignored = await invoker.handle_event(_envelope("participant_added", room, {"id": alice.id}))
    assert ignored == {"status": "ignored", "event_type": "participant_added"}
    cleaned = await invoker.handle_event(_envelope("room_removed", None, {"id": room}))
    assert cleaned["status"] == "cleaned_up" and adapter.cleaned == [room]

    with pytest.raises(OneShotEnvelopeError, match="room_id is missing"):
        await invoker.handle_event(_envelope("message_created", None, {"id": "m"}))
    with pytest.raises(
        OneShotEnvelopeError, match=r"validation issue\(s\): required field `sender_id`"
    ):
        await invoker.handle_event(_envelope("message_created", room, {"id": "m", "content": ""}))
    await invoker.shutdown()
    with pytest.raises(RuntimeError):
        await invoker.handle_event(_envelope("message_created", room, message))
