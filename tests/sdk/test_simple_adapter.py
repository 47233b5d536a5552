"""SimpleAdapter: feature resolution, exact config errors, lifecycle hooks, judged turns."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

import pytest

from band import Capability, Emit
from band.core import AgentInput, HistoryProvider, SimpleAdapter
from band.core.exceptions import BandConfigError, TurnResultAlreadyReported
from band.core.protocols import AgentToolsProtocol
from band.core.types import PlatformMessage
from band.testing import MISSING_REPLY_FAILURE, FakeAgentTools, failure_reports


class Recorder:
    def __init__(self) -> None:
        self.name = ""
        self.seen: list[list[dict[str, Any]]] = []

    def set_agent_name(self, name: str) -> None:
        self.name = name

    def convert(self, raw: list[dict[str, Any]]) -> list[str]:
        self.seen.append(raw)
        return [item["content"] for item in raw]


class Scripted(SimpleAdapter[list[str]]):
    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS, Emit.USAGE})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(
        {Capability.CONTACTS, Capability.FILES}
    )

    def __init__(self, action: str = "reply", **features: Any) -> None:
        self.recorder = Recorder()
        super().__init__(history_converter=self.recorder, **features)
        self.action = action
        self.histories: list[list[str]] = []

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: list[str],
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        self.histories.append(history)
        if self.action == "reply":
            await tools.send_message("ok", mentions=[msg.sender_id])
        elif self.action == "event":
            await tools.send_event("thinking", "thought")
        elif self.action == "notice":
            await tools.send_notice("busy", mentions=[msg.sender_id])
            tools.turn.settle()


def make_input(tools: FakeAgentTools, *, bootstrap: bool = True, sender: str = "u1") -> AgentInput:
    msg = PlatformMessage(
        "m1", "room-fake", "hi", sender, "User", "Alice", "text", {}, datetime.now(UTC)
    )
    raw = [{"role": "user", "content": "earlier", "sender_name": "Alice", "sender_type": "User",
            "message_type": "text", "metadata": {}}]  # fmt: skip
    return AgentInput(msg, tools, HistoryProvider(raw), None, None, bootstrap, "room-fake")


def test_emit_defaults_to_supported_and_capabilities_to_none() -> None:
    adapter = Scripted()
    assert adapter.features.emit == {Emit.TOOL_CALLS, Emit.USAGE}
    assert adapter.features.capabilities == frozenset()
    assert Scripted(emit=()).features.emit == frozenset()
    assert Scripted(emit=Emit.USAGE).features.emit == {Emit.USAGE}
    assert Scripted(capabilities=["contacts"]).features.capabilities == {Capability.CONTACTS}


@pytest.mark.parametrize(
    ("features", "text"),
    [
        (
            {"emit": [Emit.THOUGHTS, Emit.TASK_EVENTS]},
            "Scripted does not support emit kind(s): task_events, thoughts; "
            "supported: tool_calls, usage",
        ),
        (
            {"capabilities": Capability.MEMORY | Capability.TASKS},
            "Scripted does not support capability/-ies: memory, tasks; supported: contacts, files",
        ),
        ({"emit": ["bogus"]}, "invalid Emit value: 'bogus' is not a valid Emit"),
        (
            {"emit": [Emit.THOUGHTS], "capabilities": [Capability.MEMORY]},
            "Scripted does not support emit kind(s): thoughts; supported: tool_calls, usage",
        ),
    ],
)
def test_unsupported_features_raise_exact_config_errors(features: Any, text: str) -> None:
    with pytest.raises(BandConfigError) as info:
        Scripted(**features)
    assert str(info.value) == text


def test_mixing_emit_and_capability_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="cannot combine Emit with Capability"):
        _ = Emit.USAGE | Capability.MEMORY


async def test_on_started_stores_identity_and_names_the_converter() -> None:
    adapter = Scripted()
    await adapter.on_started("Echo", "A helpful agent")
    assert (adapter.agent_name, adapter.agent_description) == ("Echo", "A helpful agent")
    assert adapter.recorder.name == "Echo"


async def test_history_is_converted_only_on_bootstrap() -> None:
    adapter = Scripted()
    tools = FakeAgentTools()
    await adapter.on_event(make_input(tools))
    await adapter.on_event(make_input(FakeAgentTools(), bootstrap=False))
    assert adapter.histories == [["earlier"], []]


async def test_reply_completes_the_turn() -> None:
    tools = FakeAgentTools()
    await Scripted("reply").on_event(make_input(tools))
    assert tools.chat == ["ok"] and tools.turn.replied


async def test_events_only_turn_posts_missing_reply_once() -> None:
    tools = FakeAgentTools()
    with pytest.raises(TurnResultAlreadyReported):
        await Scripted("event").on_event(make_input(tools))
    assert failure_reports(tools) == [MISSING_REPLY_FAILURE]
    assert tools.turn.failure_reported


async def test_notice_then_settle_completes_without_replying() -> None:
    tools = FakeAgentTools()
    await Scripted("notice").on_event(make_input(tools))
    assert tools.notices_sent[0]["content"] == "busy"
    assert tools.turn.complete and not tools.turn.replied


async def test_contact_hub_system_messages_are_not_judged() -> None:
    tools = FakeAgentTools()
    inp = make_input(tools)
    msg = PlatformMessage(
        "m2", "room-fake", "x", "contact-events", "System", None, "text", {}, datetime.now(UTC)
    )
    await Scripted("event").on_event(
        AgentInput(msg, tools, inp.history, None, None, True, "room-fake")
    )
    assert tools.turn.judged is False


async def test_add_cleanup_rules_and_reverse_order() -> None:
    adapter = Scripted()
    order: list[str] = []

    async def first() -> None:
        order.append("first")

    async def second() -> None:
        order.append("second")

    adapter.add_cleanup(first)
    adapter.add_cleanup(second)
    coroutine = first()
    with pytest.raises(TypeError, match=r"not client\.aclose\(\)"):
        adapter.add_cleanup(coroutine)  # type: ignore[arg-type]
    host = object()
    await adapter.startup("Echo", "desc", feature_flags={}, host=host)
    with pytest.raises(BandConfigError, match="Register cleanup before starting the host"):
        adapter.add_cleanup(first)
    with pytest.raises(BandConfigError, match="already in use by another host"):
        await adapter.startup("Echo", "desc", host=object())
    await adapter.dispose(host)
    assert order == ["second", "first"]
    with pytest.raises(BandConfigError, match="Adapter resources are disposed"):
        await adapter.startup("Echo", "desc", host=host)


async def test_failed_cleanup_is_retried_alone() -> None:
    adapter = Scripted()
    calls: list[str] = []
    fail = [True]

    async def flaky() -> None:
        calls.append("flaky")
        if fail[0]:
            raise RuntimeError("boom")

    async def fine() -> None:
        calls.append("fine")

    adapter.add_cleanup(flaky)
    adapter.add_cleanup(fine)
    await adapter.startup("Echo", "desc")
    with pytest.raises(ExceptionGroup):
        await adapter.dispose()
    fail[0] = False
    await adapter.dispose()
    assert calls == ["fine", "flaky", "flaky"]


async def test_startup_prunes_files_without_the_feature_flag() -> None:
    adapter = Scripted(capabilities=[Capability.FILES, Capability.CONTACTS])
    await adapter.startup("Echo", "desc", feature_flags={})
    assert adapter.features.capabilities == {Capability.CONTACTS}
    served = Scripted(capabilities=[Capability.FILES])
    await served.startup("Echo", "desc", feature_flags={"ff_file_transfer": True})
    assert served.features.capabilities == {Capability.FILES}


def test_unknown_feature_keyword_suggests_a_name() -> None:
    with pytest.raises(BandConfigError, match="Did you mean 'capabilities'"):
        Scripted(capabilites=[Capability.CONTACTS])


def test_require_platform_before_start() -> None:
    with pytest.raises(RuntimeError, match="platform connection not available yet"):
        Scripted().require_platform()
