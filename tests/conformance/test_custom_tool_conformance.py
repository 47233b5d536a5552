"""Custom tools (``additional_tools``) on every built-in adapter: the model sees the tool, its
call runs the handler, and the effect the handler declares settles the turn.

Parametrised over ``adapter_cases.CASES`` like test_adapter_conformance.py; a case that takes
no custom tools skips with the reason (``skips["custom_tools"]``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel
from runtime_support import Person, until, until_status

from band.runtime.custom_tools import declares_turn_effect
from band.runtime.tools import TurnEffect
from band.testing import FakeModel

from .adapter_cases import AdapterCase
from .test_adapter_conformance import running

pytestmark = pytest.mark.timeout(60)


class RefundOrder(BaseModel):
    """Refund an order by its number."""

    number: int


@declares_turn_effect(TurnEffect.ACT)
def refund(args: RefundOrder) -> str:
    return f"order {args.number} refunded"


async def test_a_custom_tool_that_acts_completes_the_turn_without_a_reply(
    case: AdapterCase, live_server: Any, seeded: Any, alice: Person
) -> None:
    if "custom_tools" in case.skips:
        pytest.skip(case.skips["custom_tools"])
    room = await alice.create_room("Refunds", seeded.agent_id)
    fake = FakeModel().call_tool("refundorder", {"number": 7}).reply("")
    adapter = case.build(fake, additional_tools=[(RefundOrder, refund)])
    async with running(live_server, seeded, adapter):
        message_id = await alice.say(room, "please refund order 7", seeded.agent_id)
        # ACT settles the turn: no reply is needed, so no "missing reply" failure.
        await until_status(alice, room, message_id, seeded.agent_id, "processed")
        results = await until(lambda: alice.events(room, "tool_result"))
        errors = await alice.events(room, "error")
        replies = await alice.replies(room, seeded.agent_id)
    result = json.loads(results[0]["content"])
    assert result["name"] == "refundorder"
    assert result["output"] == "order 7 refunded"
    assert not result.get("is_error")
    assert errors == [] and replies == []
    assert "refundorder" in fake.requests[0].tool_names
