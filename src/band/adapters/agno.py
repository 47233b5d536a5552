"""``AgnoAdapter``: Band rooms on a developer-built Agno ``Agent``; Agno runs the tool loop.

At start-up the adapter takes over the agent: its ``tools`` become a per-run factory that
offers the developer's own tools plus the running room's Band tools, and Band's rendered
prompt is prepended to its ``description`` (so it comes before the developer's
``instructions``). Each message runs ``agent.arun`` streamed, with the room's transcript as
input and the room id as Agno ``session_id`` (``session_id_factory``); the run's events
become ``tool_call`` / ``tool_result`` events, its reasoning a ``thought``, its metrics the
usage event.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ClassVar, Unpack

from band._extras import needs_extra
from band.core.adapterconfig import BaseAdapterConfig
from band.core.exceptions import ProviderRunError
from band.core.protocols import AgentToolsProtocol
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage, TurnUsage
from band.runtime.custom_tools import (
    CustomToolDef,
    custom_tool_names,
    custom_tools_to_schemas,
    declared_effect,
    is_failure_result,
    reject_conflicting_tool_names,
)
from band.runtime.prompts import render_system_prompt, system_updates
from band.runtime.tools import TOOL_MODELS, TurnEffect

from ._rooms import RoomConversations
from ._tool_events import report_tool_call, report_tool_result, run_band_tool

with needs_extra("AgnoAdapter needs Agno", "agno"):
    from agno.models.message import Message
    from agno.run import RunStatus
    from agno.run.agent import (
        RunErrorEvent,
        RunOutput,
        ToolCallCompletedEvent,
        ToolCallStartedEvent,
    )
    from agno.tools import Toolkit
    from agno.tools.function import Function

from band.converters.agno import AgnoHistoryConverter, AgnoMessages
from band.core.simple_adapter import SimpleAdapter

if TYPE_CHECKING:
    from agno.agent import Agent as AgnoAgent

__all__ = ["AgnoAdapter", "AgnoAdapterConfig", "AgnoRunError"]

logger = logging.getLogger("band.adapters.agno")

# Roles kept between runs: Agno's per-run system/developer messages are rebuilt each run.
_CONVERSATION_ROLES = frozenset({"user", "assistant", "tool"})
_current_tools: ContextVar[AgentToolsProtocol | None] = ContextVar(
    "band_agno_room_tools", default=None
)


class AgnoAdapterConfig(BaseAdapterConfig):
    """Settings of an ``AgnoAdapter``: none yet; the Agno agent owns model and prompt."""


class AgnoRunError(ProviderRunError):
    """An Agno run ended in the error state (Agno reports failures instead of raising)."""

    def __init__(self, detail: str | None) -> None:
        text = (detail or "unknown error").strip() or "unknown error"
        super().__init__(RunStatus.error.value, text[:500])


def _band_entrypoint(name: str, custom_tools: Sequence[CustomToolDef]) -> Callable[..., Any]:
    async def run(**arguments: Any) -> str:
        tools = _current_tools.get()
        if tools is None:
            return f"Error: no Band room is running tool {name}"
        output, _ = await run_band_tool(tools, name, arguments, custom_tools)
        return output

    run.__name__ = name
    return run


def _native_effects(user_tools: Iterable[Any]) -> dict[str, TurnEffect]:
    """Declared turn effects of the developer's tools (functions, Functions, Toolkits)."""
    effects: dict[str, TurnEffect] = {}
    for tool in user_tools:
        members: Iterable[Any] = tool.functions.values() if isinstance(tool, Toolkit) else (tool,)
        for member in members:
            handler = member.entrypoint if isinstance(member, Function) else member
            effect = declared_effect(handler) if callable(handler) else None
            name = member.name if isinstance(member, Function) else getattr(member, "__name__", "")
            if effect is not None and name:
                effects[name] = effect
    return effects


class AgnoAdapter(RoomConversations[list[Message]], SimpleAdapter[AgnoMessages]):
    """Bridges a developer-built Agno agent to Band; the adapter owns it once started.

    ``session_id_factory`` maps a room id to the Agno ``session_id`` of its runs (default:
    the room id). When the agent replays its own stored history
    (``add_history_to_context`` with a ``db``), Band's history is not fed in as well.
    ``Emit.THOUGHTS`` posts the run's raw ``reasoning_content``. Custom tools: the agent's
    own Agno tools (their turn effect declared with
    ``band.runtime.custom_tools.declares_turn_effect``) and, ours, ``additional_tools`` as
    ``(InputModel, handler)`` pairs like the other adapters. Plain final text is never
    posted: replies go through ``band_send_message``.
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset(
        {Emit.TOOL_CALLS, Emit.THOUGHTS, Emit.USAGE}
    )
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)

    def __init__(
        self,
        config: AgnoAdapterConfig | None = None,
        *,
        history_converter: AgnoHistoryConverter | None = None,
        agent: AgnoAgent,
        session_id_factory: Callable[[str], str] = lambda room_id: room_id,
        additional_tools: Sequence[CustomToolDef] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(history_converter=history_converter or AgnoHistoryConverter(), **features)
        self.config = config or AgnoAdapterConfig()
        self._given_agent = agent
        self._agent: AgnoAgent | None = None
        self._session_id_factory = session_id_factory
        self.additional_tools = list(additional_tools or [])
        reject_conflicting_tool_names(custom_tool_names(self.additional_tools))
        self._user_tools: list[Any] = []
        self._effects: dict[str, TurnEffect] = {}
        self._agno_manages_history = False
        self.rooms: dict[str, list[Message]] = {}

    @property
    def agent(self) -> AgnoAgent | None:
        """The Agno agent the adapter runs, once started."""
        return self._agent

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        agent = self._given_agent
        self._agent_history_check(agent)
        if Capability.MEMORY in self.features.capabilities and (
            getattr(agent, "update_memory_on_run", False)
            or getattr(agent, "enable_agentic_memory", False)
        ):
            warnings.warn(
                "Capability.MEMORY offers Band's memory tools, but this Agno agent also keeps "
                "its own memory; disable one of them",
                UserWarning,
                stacklevel=2,
            )
        given = getattr(agent, "tools", None)
        if callable(given) and not isinstance(given, Toolkit | Function):
            raise ValueError("AgnoAdapter needs the agent's tools as a list, not a factory")
        self._user_tools = list(given or [])
        self._effects = _native_effects(self._user_tools)
        agent.cache_callables = False
        agent.tools = self._room_tools  # Agno calls the factory once per run
        prompt = render_system_prompt(
            agent_name=agent_name or "Agent",
            agent_description=agent_description or "An AI assistant",
            features=self.features,
        )
        existing = getattr(agent, "description", None)
        agent.description = f"{prompt}\n\n{existing}" if existing else prompt
        self._agent = agent

    def _agent_history_check(self, agent: AgnoAgent) -> None:
        self._agno_manages_history = bool(
            getattr(agent, "add_history_to_context", False) and getattr(agent, "db", None)
        )
        if self._agno_manages_history:
            warnings.warn(
                "This Agno agent replays its own history (add_history_to_context with a db); "
                "Band's room history is not added to its runs",
                UserWarning,
                stacklevel=3,
            )

    def _room_tools(self) -> list[Any]:
        """The developer's tools plus the running room's Band tools."""
        tools = _current_tools.get()
        if tools is None:
            return list(self._user_tools)
        schemas = [
            s
            for s in tools.get_openai_tool_schemas(capabilities=self.features.capabilities)
            if s["function"]["name"] in TOOL_MODELS
        ] + custom_tools_to_schemas(self.additional_tools, "openai")
        band = [
            Function(
                name=spec["name"],
                description=spec.get("description") or "",
                parameters=spec.get("parameters") or {"type": "object", "properties": {}},
                entrypoint=_band_entrypoint(spec["name"], self.additional_tools),
                skip_entrypoint_processing=True,
            )
            for spec in (s["function"] for s in schemas)
        ]
        return [*self._user_tools, *band]

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: AgnoMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if self._agent is None:
            raise RuntimeError("AgnoAdapter used before on_started")
        # Agno keeps the transcript itself when it manages history; else it starts from ours.
        start: Callable[[], list[Message]] = (
            list if self._agno_manages_history else lambda: list(history)
        )
        # A copy: a failed run must leave no half turn in the room's transcript.
        messages = list(self.room_conversation(room_id, is_session_bootstrap, start))
        messages += [
            Message(role="user", content=line)
            for line in system_updates(participants_msg, contacts_msg)
        ]
        messages.append(Message(role="user", content=msg.format_for_llm()))
        token = _current_tools.set(tools)
        try:
            output = await self._run(messages, tools, self._session_id_factory(room_id))
        finally:
            _current_tools.reset(token)
        if Emit.THOUGHTS in self.features.emit:
            reasoning = getattr(output, "reasoning_content", None)
            if isinstance(reasoning, str) and reasoning.strip():
                try:
                    await tools.send_event(reasoning.strip(), "thought")
                except Exception as exc:
                    logger.warning("Failed to send thought event: %s", exc)
        await self.emit_usage(tools, _usage(output))
        if output.messages:
            self.rooms[room_id] = [m for m in output.messages if m.role in _CONVERSATION_ROLES]

    async def _run(
        self, messages: list[Message], tools: AgentToolsProtocol, session_id: str
    ) -> RunOutput:
        """One streamed run: tool events as they happen, then the assembled output."""
        assert self._agent is not None  # nosec B101 # narrows for mypy: on_started built it
        final: RunOutput | None = None
        async for item in self._agent.arun(
            input=messages,
            session_id=session_id,
            stream=True,
            stream_events=True,
            yield_run_output=True,
        ):
            if isinstance(item, RunOutput):
                final = item
            elif isinstance(item, RunErrorEvent):
                raise AgnoRunError(item.content)
            elif isinstance(item, ToolCallStartedEvent) and item.tool is not None:
                call = item.tool
                await report_tool_call(
                    tools,
                    self.features,
                    call.tool_name or "",
                    dict(call.tool_args or {}),
                    call.tool_call_id or "",
                )
            elif isinstance(item, ToolCallCompletedEvent) and item.tool is not None:
                await self._completed(tools, item.tool)
        if final is None:
            raise AgnoRunError("the run ended without an output")
        if final.status == RunStatus.error:
            raise AgnoRunError(str(final.content))
        return final

    async def _completed(self, tools: AgentToolsProtocol, call: Any) -> None:
        name = call.tool_name or ""
        output = "" if call.result is None else str(call.result)
        failed = bool(call.tool_call_error) or is_failure_result(output)
        await report_tool_result(
            tools, self.features, name, output, call.tool_call_id or "", is_error=failed
        )
        effect = self._effects.get(name)
        if effect is not None and not failed:
            tools.turn.record(effect)


def _usage(output: RunOutput) -> TurnUsage:
    metrics = getattr(output, "metrics", None)

    def count(name: str) -> int:
        return int(getattr(metrics, name, 0) or 0)

    return TurnUsage(
        input_tokens=count("input_tokens"),
        output_tokens=count("output_tokens"),
        cache_read_tokens=count("cache_read_tokens"),
        cache_write_tokens=count("cache_write_tokens"),
    )
