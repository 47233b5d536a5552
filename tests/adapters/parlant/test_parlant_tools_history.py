"""Custom tools as Parlant tools, and history injected into a fresh Parlant session."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("parlant")

from pydantic import BaseModel, create_model

from band import Agent
from band.adapters import ParlantAdapter
from band.adapters.parlant.tools import NO_CONTEXT_ERROR
from band.core.turn import Turn
from band.integrations.parlant.customtools import build_custom_tool
from band.integrations.parlant.sessiontools import bound_session_tools
from band.runtime.custom_tools import declares_turn_effect
from band.testing.parlant_nlp import FakeNLPService
from band_sdk_core import TurnEffect

from .test_parlant_live import Room, agent_texts, wait_for, world  # noqa: F401 (fixture)


class LookupOrderInput(BaseModel):
    """Look up an order's status by its id."""

    order_id: str
    quantity: int = 1
    tags: list[str] = []


class Ctx:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id


class Tools:
    def __init__(self) -> None:
        self.turn = Turn()


async def test_a_custom_tool_runs_with_loose_arguments_and_records_its_effect() -> None:
    seen: list[LookupOrderInput] = []

    @declares_turn_effect(TurnEffect.ACT)
    async def lookup(args: LookupOrderInput) -> str:
        seen.append(args)
        return f"order {args.order_id}: shipped"

    entry = build_custom_tool((LookupOrderInput, lookup))
    assert entry.tool.name == "lookuporder"
    assert entry.tool.description == "Look up an order's status by its id."
    assert set(entry.tool.parameters) == {"order_id", "quantity", "tags"}
    assert entry.tool.required == ["order_id"]

    tools = Tools()
    with bound_session_tools(session_id="s-1", tools=tools):  # type: ignore[arg-type]
        result = await entry.function(Ctx("s-1"), order_id="A-42", quantity="3", tags="a, b")
    assert result.data == "order A-42: shipped"
    assert seen == [LookupOrderInput(order_id="A-42", quantity=3, tags=["a", "b"])]
    assert TurnEffect.ACT in tools.turn.effects

    with bound_session_tools(session_id="s-1", tools=tools):  # type: ignore[arg-type]
        bad = await entry.function(Ctx("s-1"), order_id="A-1", quantity="many", tags="")
    assert bad.data.startswith("Error running lookuporder: Invalid arguments for lookuporder")
    assert (await entry.function(Ctx("other"), order_id="x")).data == NO_CONTEXT_ERROR


def test_a_custom_tools_fields_are_advertised_with_the_models_types() -> None:
    """Parlant is told each field's own type (choices, lists, dates) while every value
    arrives as text; a shape Parlant cannot be told about is refused up front."""
    import datetime
    import enum
    from typing import Literal

    from band.integrations.parlant.customschema import ParlantType, describe_custom_tool

    class Color(enum.StrEnum):
        RED = "red"
        BLUE = "blue"

    class ShipInput(BaseModel):
        """Ship an order."""

        when: datetime.date
        speed: Literal["slow", "fast"] = "slow"
        colors: list[Color] = []
        weight: float | None = None
        express: bool = False

    entry = build_custom_tool((ShipInput, lambda args: "ok"))
    kinds = {name: descriptor for name, (descriptor, _options) in entry.tool.parameters.items()}
    assert kinds["when"]["type"] == ParlantType.DATE
    assert kinds["speed"] == {"type": ParlantType.STRING, "enum": ["slow", "fast"]}
    assert kinds["colors"]["type"] == ParlantType.ARRAY and kinds["colors"]["enum"] == [
        "red",
        "blue",
    ]
    assert kinds["weight"]["type"] == ParlantType.NUMBER
    assert kinds["express"]["type"] == ParlantType.BOOLEAN
    assert entry.tool.required == ["when"]
    assert [f.parameter.name for f in describe_custom_tool(ShipInput).fields][:2] == [
        "when",
        "speed",
    ]

    class Anything(BaseModel):
        value: str | int  # a free str would take every text before the int is tried

    with pytest.raises(ValueError, match="Parlant cannot be told about this field's type"):
        ParlantAdapter(additional_tools=[(Anything, lambda args: "ok")])


def test_custom_tools_are_checked_at_construction() -> None:
    shadow = create_model("band_send_message", content=(str, ...))

    class ContextualInput(BaseModel):
        context: str

    async def handler(args: Any) -> str:
        return "ok"

    with pytest.raises(ValueError, match="conflicts with a Band platform tool"):
        ParlantAdapter(additional_tools=[(shadow, handler)])
    with pytest.raises(ValueError, match="Duplicate custom tool name"):
        ParlantAdapter(additional_tools=[(LookupOrderInput, handler)] * 2)
    with pytest.raises(ValueError, match="'context' is reserved for Parlant's tool context"):
        ParlantAdapter(additional_tools=[(ContextualInput, handler)])


async def test_guideline_offers_a_custom_tool(world: tuple[Room, str, str]) -> None:  # noqa: F811
    room, _user_id, agent_id = world
    calls: list[str] = []

    async def lookup(args: LookupOrderInput) -> str:
        calls.append(args.order_id)
        return "shipped"

    nlp = FakeNLPService(
        "Your order has shipped.", tool_calls={"lookuporder": {"order_id": "A-42"}}
    )
    adapter = ParlantAdapter(nlp_service=nlp.factory, additional_tools=[(LookupOrderInput, lookup)])
    adapter.add_guideline(condition="The user asks about an order", action="Look it up")
    agent = Agent.from_config("my_agent", adapter=adapter)
    await agent.start()
    try:
        await room.say("@Parlant Agent where is order A-42?", agent_id)
        replies = await wait_for(lambda: agent_texts(room, agent_id), 30)
    finally:
        await agent.stop()
    assert calls == ["A-42"]
    assert replies[0]["content"].endswith("Your order has shipped.")


async def test_a_restarted_agent_gets_the_room_history_in_its_new_session(
    world: tuple[Room, str, str],  # noqa: F811
) -> None:
    room, _user_id, agent_id = world
    first = FakeNLPService("Noted: seven.")
    agent = Agent.from_config("my_agent", adapter=ParlantAdapter(nlp_service=first.factory))
    await agent.start()
    try:
        await room.say("@Parlant Agent remember the number 7", agent_id)
        await wait_for(lambda: agent_texts(room, agent_id), 30)
        # Stopped only once the turn is acknowledged: stopped between its reply and its
        # /processed, the message is rightly served again to the next agent, whose first draft
        # is then that re-run (without the reply, which came after it), not "what was it?".
        await wait_for(lambda: _processed_by(room, agent_id), 30)
    finally:
        await agent.stop()

    def recall(prompt: str) -> str:
        return "It was 7." if "remember the number 7" in prompt else "I do not know."

    second = FakeNLPService(recall)
    agent = Agent.from_config("my_agent", adapter=ParlantAdapter(nlp_service=second.factory))
    await agent.start()
    try:
        await room.say("@Parlant Agent what was it?", agent_id)
        replies = await wait_for(
            lambda: _texts_ending(room, agent_id, "It was 7.", "I do not know."), 30
        )
    finally:
        await agent.stop()
    assert replies[-1].endswith("It was 7.")
    (draft, *_) = second.prompts_for("CannedResponseDraftSchema")
    assert "Noted: seven." in draft  # the agent's earlier reply, as an agent message
    assert draft.count("what was it?") >= 1 and draft.count("remember the number 7") == 1


async def _texts_ending(room: Room, agent_id: str, *endings: str) -> list[str]:
    texts = [m["content"] for m in await agent_texts(room, agent_id)]
    return texts if any(t.endswith(endings) for t in texts) else []


async def _processed_by(room: Room, agent_id: str) -> bool:
    for m in await room.messages():
        status = ((m.get("metadata") or {}).get("delivery_status") or {}).get(agent_id)
        if isinstance(status, dict) and status.get("status") == "processed":
            return True
    return False
