"""Custom tools: names, schemas, declared effects, validation, execution through tools."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from band.core.exceptions import InvalidToolArgumentsError
from band.core.turn import Turn
from band.runtime.custom_tools import (
    custom_tool_to_anthropic_schema,
    custom_tool_to_openai_schema,
    declared_effect,
    declares_turn_effect,
    execute_custom_tool,
    get_custom_tool_name,
    reject_conflicting_tool_names,
)
from band.runtime.tools import TurnEffect
from band.testing import FakeAgentTools


class LookupOrderInput(BaseModel):
    """Find an order by number."""

    number: int


class EmptyInput(BaseModel):
    """Ping."""


async def lookup(args: LookupOrderInput) -> dict[str, Any]:
    return {"order": args.number}


def test_name_and_schemas_come_from_the_model() -> None:
    assert get_custom_tool_name(LookupOrderInput) == "lookuporder"
    schema = custom_tool_to_openai_schema(LookupOrderInput)
    assert schema["function"]["name"] == "lookuporder"
    assert schema["function"]["description"] == "Find an order by number."
    assert custom_tool_to_anthropic_schema(LookupOrderInput)["input_schema"]["required"] == [
        "number"
    ]


def test_declared_effects_and_terminal_shorthand() -> None:
    def legacy(args: Any) -> str:
        return "done"

    legacy.band_terminal = True  # type: ignore[attr-defined]
    assert declared_effect(legacy) is TurnEffect.ACT
    assert declared_effect(lookup) is None
    decorated = declares_turn_effect(TurnEffect.REPLY)(lookup)
    assert decorated is lookup and declared_effect(lookup) is TurnEffect.REPLY
    del lookup.band_effect  # type: ignore[attr-defined]


async def test_undeclared_tool_records_observe_and_failures_record_nothing() -> None:
    turn = Turn()
    assert await execute_custom_tool((LookupOrderInput, lookup), {"number": 7}, turn=turn) == {
        "order": 7
    }
    assert turn.effects == (TurnEffect.OBSERVE,) and not turn.complete

    def failing(args: LookupOrderInput) -> str:
        return "Error: no such order"

    await execute_custom_tool((LookupOrderInput, failing), {"number": 1}, turn=turn)
    assert turn.effects == (TurnEffect.OBSERVE,)


async def test_invalid_arguments_and_zero_argument_handlers() -> None:
    with pytest.raises(InvalidToolArgumentsError) as info:
        await execute_custom_tool((LookupOrderInput, lookup), {"number": "x"}, turn=None)
    assert str(info.value).startswith("Invalid arguments for lookuporder: number: ")
    assert isinstance(info.value, ValueError)

    def ping() -> str:
        return "pong"

    assert await execute_custom_tool((EmptyInput, ping), {}, turn=None) == "pong"
    with pytest.raises(ValueError, match="zero-argument handlers require an empty InputModel"):
        await execute_custom_tool((LookupOrderInput, ping), {"number": 1}, turn=None)


def test_custom_names_may_not_shadow_band_tools() -> None:
    with pytest.raises(ValueError, match="conflicts with a Band platform tool"):
        reject_conflicting_tool_names(["band_send_message"])
    with pytest.raises(ValueError, match="Duplicate"):
        reject_conflicting_tool_names(["a", "a"])


async def test_tools_offer_and_run_custom_tools() -> None:
    acted = declares_turn_effect(TurnEffect.ACT)(lambda args: f"order {args.number} refunded")
    tools = FakeAgentTools(custom_tools=[(LookupOrderInput, acted)])
    schemas = tools.get_openai_tool_schemas(capabilities=frozenset())
    assert schemas[-1]["function"]["name"] == "lookuporder"
    assert await tools.execute_tool_call("lookuporder", {"number": 3}) == "order 3 refunded"
    bad = await tools.execute_tool_call("lookuporder", {})
    assert bad == "Invalid arguments for lookuporder: number: Field required"
    assert tools.turn.effects == (TurnEffect.ACT,)
