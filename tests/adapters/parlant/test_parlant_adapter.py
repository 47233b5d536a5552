"""ParlantAdapter: construction rules, guideline declaration, features (no server)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("parlant")

from band import Capability, Emit
from band.adapters import ParlantAdapter, ParlantAdapterConfig
from band.core.exceptions import BandConfigError


class Stub:
    """Stands in for a Parlant server or agent; construction never touches it."""


def test_parlant_agent_without_server() -> None:
    with pytest.raises(ValueError, match=r"^parlant_agent requires the server it lives on"):
        ParlantAdapter(parlant_agent=Stub())


@pytest.mark.parametrize(
    "kwargs", [{"nlp_service": lambda c: None}, {"server_options": {"host": "127.0.0.1"}}]
)
def test_owned_server_options_with_a_borrowed_server(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"^nlp_service/server_options configure"):
        ParlantAdapter(server=Stub(), **kwargs)


def test_empty_server_options_with_a_borrowed_server_are_fine() -> None:
    ParlantAdapter(server=Stub(), server_options={})


@pytest.mark.parametrize("field", ["system_prompt", "custom_section"])
def test_description_fields_with_a_borrowed_agent(field: str) -> None:
    config = ParlantAdapterConfig(**{field: "x"})
    with pytest.raises(ValueError, match=r"^system_prompt/custom_section shape"):
        ParlantAdapter(config, server=Stub(), parlant_agent=Stub())


@pytest.mark.parametrize("field", ["response_timeout", "response_poll"])
@pytest.mark.parametrize("value", [0, -1.5])
def test_non_positive_waits(field: str, value: float) -> None:
    with pytest.raises(ValueError):
        ParlantAdapterConfig(**{field: value})


def test_config_is_frozen_and_strict() -> None:
    config = ParlantAdapterConfig()
    assert (config.response_timeout, config.response_poll) == (300.0, 30.0)
    with pytest.raises(ValueError):
        ParlantAdapterConfig(temperature=0.2)  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        config.name = "x"  # type: ignore[misc]


@pytest.mark.parametrize("emit", [{Emit.TOOL_CALLS}, {Emit.USAGE}, {"thoughts"}])
def test_any_emit_is_refused(emit: Any) -> None:
    with pytest.raises(BandConfigError, match="does not support emit kind"):
        ParlantAdapter(emit=emit)


def test_no_emit_and_contacts_capability_are_accepted() -> None:
    adapter = ParlantAdapter(emit=(), capabilities={Capability.CONTACTS, Capability.MEMORY})
    assert adapter.features.emit == frozenset()
    assert adapter.judges_turns is False


def test_live_objects_before_start() -> None:
    adapter = ParlantAdapter()
    for attr in ("server", "parlant_agent", "tools"):
        with pytest.raises(RuntimeError, match=r"starts with the agent|built when the agent"):
            getattr(adapter, attr)


def test_band_adapters_lazy_exports() -> None:
    import band.adapters as adapters

    assert adapters.ParlantAdapter is ParlantAdapter
    with pytest.raises(AttributeError, match=r"^module 'band.adapters' has no attribute 'Nope'$"):
        adapters.Nope  # noqa: B018


class StubAgent:
    id = "stub-agent"

    def __init__(self) -> None:
        self.guidelines: list[dict[str, Any]] = []

    async def create_guideline(self, **kwargs: Any) -> None:
        self.guidelines.append(kwargs)


class StubServer:
    """A borrowed server: only what startup reads (no HTTP, no engine)."""

    def __init__(self) -> None:
        from parlant.core.application import Application

        self.container = {Application: object()}


def tool_names(entries: list[Any]) -> list[str]:
    return [entry.tool.name for entry in entries]


async def test_guidelines_get_band_tools_unless_tools_is_empty() -> None:
    agent = StubAgent()
    configured: list[Any] = []

    async def configure(server: Any, parlant_agent: Any) -> None:
        configured.append((server, parlant_agent))

    server = StubServer()
    adapter = ParlantAdapter(
        server=server,
        parlant_agent=agent,
        configure=configure,
        capabilities={Capability.CONTACTS},
    )
    adapter.add_guideline(condition="The user needs help", action="Help them")
    adapter.add_guideline(condition="The customer thanks you", action="Thank them", tools=[])
    await adapter.on_started("Parlant Agent", "A support assistant.")

    first, second = agent.guidelines
    assert first["condition"] == "The user needs help" and first["action"] == "Help them"
    names = tool_names(first["tools"])
    assert {"band_send_message", "band_lookup_peers", "band_add_participant"} <= set(names)
    assert {"band_list_contacts", "band_respond_contact_request"} <= set(names)
    assert not any("memory" in n for n in names)
    assert second["tools"] == []
    assert configured == [(server, agent)]
    assert tool_names(adapter.tools) == names

    with pytest.raises(RuntimeError) as info:
        adapter.add_guideline(condition="late", action="too late")
    assert str(info.value) == (
        "add_guideline must be called before the agent starts; use the configure= callback "
        "or adapter.parlant_agent.create_guideline() for a running agent"
    )
    await adapter.cleanup_all()
    # a borrowed agent keeps its guidelines: a restart creates only new ones
    adapter.add_guideline(condition="new", action="added later")
    await adapter.on_started("Parlant Agent", "A support assistant.")
    assert [g["condition"] for g in agent.guidelines][-1] == "new"
    assert len(agent.guidelines) == 3


async def test_without_contacts_no_contact_tools() -> None:
    agent = StubAgent()
    adapter = ParlantAdapter(server=StubServer(), parlant_agent=agent)
    adapter.add_guideline(condition="c", action="a")
    await adapter.on_started("A", "d")
    names = tool_names(agent.guidelines[0]["tools"])
    assert len(names) == 8 and not any("contact" in n for n in names)
