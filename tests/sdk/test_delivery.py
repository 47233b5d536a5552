"""relay_reply / deliver_reply / deliver_notice semantics."""

from __future__ import annotations

import pytest

from band.core.delivery import DeliveryFailedError, deliver_notice, relay_reply
from band.core.exceptions import BandToolError
from band.testing import FakeAgentTools

ALICE = [{"id": "u1", "name": "Alice", "type": "User", "handle": "alice"}]


async def test_relay_posts_model_text_once() -> None:
    tools = FakeAgentTools(participants=ALICE)
    assert await relay_reply(tools, "hello", mentions=["u1"]) is True
    assert await relay_reply(tools, "again", mentions=["u1"]) is False
    assert tools.chat == ["hello"]


@pytest.mark.parametrize("text", [None, "", "   ", "\u200b"])
async def test_relay_skips_missing_or_invisible_text(text: str | None) -> None:
    tools = FakeAgentTools(participants=ALICE)
    assert await relay_reply(tools, text, mentions=["u1"]) is False
    tools.assert_no_messages_sent()


async def test_relay_after_decline_posts_nothing() -> None:
    tools = FakeAgentTools(participants=ALICE)
    await tools.no_reply("not mine")
    assert await relay_reply(tools, "hello", mentions=["u1"]) is False


async def test_relay_after_settle_still_posts() -> None:
    tools = FakeAgentTools(participants=ALICE)
    tools.turn.settle()
    assert await relay_reply(tools, "hello", mentions=["u1"]) is True


async def test_send_failures_are_wrapped_with_their_cause() -> None:
    tools = FakeAgentTools(participants=ALICE)
    with pytest.raises(DeliveryFailedError) as info:
        await relay_reply(tools, "hello", mentions=[])
    assert isinstance(info.value.cause, BandToolError)
    assert str(info.value) == str(info.value.cause)
    tools.send_message_error = ConnectionError("offline")
    with pytest.raises(DeliveryFailedError, match="offline"):
        await deliver_notice(tools, "busy", mentions=["u1"])


async def test_notice_does_not_answer_the_turn() -> None:
    tools = FakeAgentTools(participants=ALICE)
    await deliver_notice(tools, "working on it", mentions=["u1"])
    assert tools.turn.effects == () and not tools.turn.complete
    assert tools.notices_sent[0]["content"] == "working on it"
