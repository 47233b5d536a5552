"""The ACP client's building blocks in band-sdk's module layout, on real ``acp.schema`` models.

``session_config``: a setting is applied only when offered and only once the agent's
refreshed catalog shows it; a refusal is an ``ACPConfigError``, no answer an
``ACPConfigUnreachableError``. ``permissions``: answers select an offered option id.
``types``: tool calls read from ACP updates. ``failure``: a peer's failure read back from its
room event, redacted. (The end-to-end paths run in ``test_acp_e2e.py`` on a real agent.)
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import RequestError
from acp.schema import (
    PermissionOption,
    RequestPermissionResponse,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectGroup,
    SessionConfigSelectOption,
    SetSessionConfigOptionResponse,
    ToolCallStart,
)

from band.core.model_catalog import ModelSelection
from band.core.protocols import to_failure_event
from band.core.types import PlatformMessage
from band.integrations.acp import permissions, session_config
from band.integrations.acp.failure import (
    ACPFailureProvider,
    decode_failure,
    prompt_exception_failure,
    prompt_timeout_failure,
)
from band.integrations.acp.model_selection import apply_model_selection, locate_model_options
from band.integrations.acp.session_config import (
    ACPConfigError,
    ACPConfigUnreachableError,
    apply_session_config_selections,
)
from band.integrations.acp.types import ACPToolCall, ACPToolResult, ToolStatus
from band_sdk_core import AgentFailure


def model_select(current: str) -> SessionConfigOptionSelect:
    return SessionConfigOptionSelect(
        id="model",
        name="Model",
        type="select",
        category="model",
        current_value=current,
        options=[  # in named groups, which the readers open up
            SessionConfigSelectGroup(
                group=size,
                name=size.title(),
                options=[SessionConfigSelectOption(value=value, name=value)],
            )
            for size, value in (("little", "small"), ("big", "large"))
        ],
    )


FAST = SessionConfigOptionBoolean(id="fast", name="Fast", type="boolean", current_value=False)


class Agent:
    """A ``set_option`` that answers like an agent: refreshed catalog, or as scripted."""

    def __init__(self, answer: str = "apply") -> None:
        self.answer = answer
        self.calls: list[tuple[str, str, str]] = []

    async def __call__(self, session_id: str, option_id: str, value: str) -> Any:
        self.calls.append((session_id, option_id, value))
        if self.answer == "refuse":
            raise RequestError.invalid_params({"value": value})
        if self.answer == "hang":
            await asyncio.sleep(3600)
        if self.answer == "lost":
            raise ConnectionResetError("pipe closed")
        taken = value if self.answer == "apply" else "small"
        return SetSessionConfigOptionResponse(config_options=[model_select(taken), FAST])


async def apply(agent: Agent, selections: Any) -> tuple[Any, ...]:
    return await apply_session_config_selections(
        session_id="s1",
        config_options=[model_select("small"), FAST],
        selections=selections,
        set_option=agent,
    )


def test_catalog_readers_see_selects_and_their_grouped_values() -> None:
    catalog = [model_select("small"), FAST]
    assert session_config.select_ids(catalog) == ("model",)
    assert session_config.find_select(catalog, "fast") is None
    assert session_config.select_values(catalog[0]) == ("small", "large")  # type: ignore[arg-type]
    answer = SetSessionConfigOptionResponse(config_options=catalog)
    assert session_config.session_config_options(answer) == tuple(catalog)
    assert session_config.session_config_options(object()) is None


async def test_a_selection_is_sent_and_the_refreshed_catalog_returned() -> None:
    agent = Agent()
    catalog = await apply(agent, {"model": "large", "ignored": None})
    assert agent.calls == [("s1", "model", "large")]
    assert session_config.find_select(catalog, "model").current_value == "large"


async def test_a_selection_already_current_is_sent_anyway() -> None:
    agent = Agent()
    await apply(agent, {"model": "small"})
    assert agent.calls == [("s1", "model", "small")]


@pytest.mark.parametrize(
    ("selections", "says"),
    [
        ({"model": "huge"}, '"huge" is not offered for "model": small, large'),
        ({"effort": "low"}, 'no config option "effort"; offered: model'),
        ({"model": 3}, 'the value for "model" must be a string'),
        (["model"], "must return a mapping"),
    ],
)
async def test_selections_the_catalog_does_not_offer_are_refused_unsent(
    selections: Any, says: str
) -> None:
    agent = Agent()
    with pytest.raises(ACPConfigError, match=says) as refused:
        await apply(agent, selections)
    assert agent.calls == [] and not isinstance(refused.value, ACPConfigUnreachableError)
    assert isinstance(refused.value, RuntimeError) and refused.value.session_id == "s1"


async def test_the_agents_refusal_and_a_value_that_did_not_take_are_config_errors() -> None:
    with pytest.raises(ACPConfigError) as refused:
        await apply(Agent("refuse"), {"model": "large"})
    assert type(refused.value) is ACPConfigError
    assert (refused.value.option_id, refused.value.selected_value) == ("model", "large")
    with pytest.raises(ACPConfigError, match='did not take the value "large"'):
        await apply(Agent("ignore"), {"model": "large"})


async def test_no_answer_is_unreachable_not_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_config, "SESSION_CONFIG_TIMEOUT_SECONDS", 0.05)
    with pytest.raises(ACPConfigUnreachableError, match="no answer"):
        await apply(Agent("hang"), {"model": "large"})
    with pytest.raises(ACPConfigUnreachableError, match="pipe closed"):
        await apply(Agent("lost"), {"model": "large"})


def test_permission_answers_select_an_offered_option() -> None:
    offered = [
        PermissionOption(option_id="no", name="No", kind="reject_once"),
        PermissionOption(option_id="always", name="Always", kind="allow_always"),
        {"optionId": "once", "kind": "allow_once"},
    ]
    assert permissions.permission_option_ids(offered) == ("no", "always", "once")
    assert permissions.select_allow_option_id(offered) == "once"
    assert permissions.select_allow_option_id(offered[:2]) == "always"
    assert permissions.option_id_of_kind(offered, "reject_always") is None
    assert permissions.permission_option_ids("nonsense") == ()
    chosen = RequestPermissionResponse.model_validate(permissions.allow_permission("once"))
    assert chosen.outcome.outcome == "selected" and chosen.outcome.option_id == "once"
    cancelled = RequestPermissionResponse.model_validate(permissions.cancel_permission())
    assert cancelled.outcome.outcome == "cancelled"
    assert permissions.elicitation_session_id(None, {"sessionId": "s9"}) == "s9"
    assert permissions.elicitation_requested_schema(None, {"requested_schema": {"a": 1}}) == {
        "a": 1
    }


def test_tool_calls_read_from_acp_updates() -> None:
    mcp = ToolCallStart(
        session_update="tool_call",
        tool_call_id="c1",
        title="band/send",
        raw_input={"server": "band", "tool": "band_send_message", "arguments": {"content": "hi"}},
    )
    call = ACPToolCall.from_acp(mcp, canonicalize=lambda name: name.removeprefix("band-"))
    assert (call.name, call.arguments, call.mcp_server) == (
        "band_send_message",
        {"content": "hi"},
        "band",
    )
    plain = ACPToolCall.from_acp(
        ToolCallStart(session_update="tool_call", tool_call_id="c2", title="ls", raw_input={})
    )
    assert (plain.name, plain.mcp_server, plain.title) == ("ls", None, "ls")
    result = ACPToolResult(call, "boom", ToolStatus.FAILED)
    assert result.room_event().model_dump() == {
        "name": "band_send_message",
        "output": "boom",
        "tool_call_id": "c1",
        "is_error": True,
    }


def event(content: str, metadata: dict[str, Any]) -> PlatformMessage:
    return PlatformMessage(
        id="m1",
        room_id="r1",
        content=content,
        sender_id="p1",
        sender_type="Agent",
        sender_name="Peer",
        message_type="error",
        metadata=metadata,
        created_at=datetime.now(UTC),
    )


def test_a_peers_failure_is_read_back_from_its_event_redacted() -> None:
    failure = AgentFailure("openai", "401 with api_key=sk-secret", code="auth")
    content, metadata = to_failure_event(failure)
    decoded = decode_failure(event(content, metadata))
    assert (decoded.provider, decoded.code) == ("openai", "auth")
    assert "sk-secret" not in decoded.message and "api_key=" in decoded.message
    broken = decode_failure(event("It broke", {"failure": {"provider": 3}}))
    assert (broken.provider, broken.message) == (ACPFailureProvider.BAND, "It broke")


def test_failures_the_server_makes_itself() -> None:
    timed_out = prompt_timeout_failure(1.5)
    assert (timed_out.code, timed_out.message) == (
        "timeout",
        "No answer from the Band peers within 1.5 s",
    )
    assert prompt_exception_failure(ValueError()).message.endswith("ValueError")


def effort_select(current: str, values: tuple[str, ...]) -> SessionConfigOptionSelect:
    return SessionConfigOptionSelect(
        id="effort",
        name="Effort",
        type="select",
        category="thought_level",
        current_value=current,
        options=[SessionConfigSelectOption(value=v, name=v) for v in values],
    )


async def test_the_model_is_set_before_the_effort_each_checked_as_the_catalog_stands() -> None:
    # Choosing "large" adds the effort "high", which "small" did not offer.
    catalog: list[Any] = [model_select("small"), effort_select("low", ("low",))]
    sent: list[tuple[str, str]] = []

    async def agent(session_id: str, option_id: str, value: str) -> Any:
        sent.append((option_id, value))
        model = value if option_id == "model" else catalog[0].current_value
        effort = value if option_id == "effort" else "low"
        catalog[:] = [model_select(model), effort_select(effort, ("low", "high"))]
        return SetSessionConfigOptionResponse(config_options=catalog)

    located = locate_model_options(catalog)
    assert located.current_selection() == ModelSelection(model="small", reasoning_effort="low")
    listed = located.model_catalog()
    assert listed is not None and [(c.id, c.efforts) for c in listed.models] == [
        ("small", ("low",)),
        ("large", None),
    ]
    await apply_model_selection(
        session_id="s1",
        catalog=lambda: catalog,
        selection=ModelSelection(model="large", reasoning_effort="high"),
        locate=locate_model_options,
        set_option=agent,
    )
    assert sent == [("model", "large"), ("effort", "high")]
    with pytest.raises(ACPConfigError, match='reasoning effort "max" is not advertised') as no:
        await apply_model_selection(
            session_id="s1",
            catalog=lambda: catalog,
            selection=ModelSelection(reasoning_effort="max"),
            locate=locate_model_options,
            set_option=agent,
        )
    assert no.value.option_id == "effort" and len(sent) == 2
