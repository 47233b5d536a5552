"""``CrewAIAdapter``: Band rooms on one CrewAI ``Agent``; CrewAI runs the tool loop.

The agent is built at start-up (role, goal, a backstory carrying Band's prompt, the Band
tools the features enable plus custom tools). Each message runs ``kickoff_async`` with the
room's conversation as role/content messages; tools reach the room through
``band.integrations.crewai``. Replies go through ``band_send_message``: CrewAI's final
text is only remembered, never posted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, ClassVar, Unpack

from pydantic import PositiveInt

from band._extras import needs_extra
from band.converters.crewai import CrewAIHistoryConverter, CrewAIMessages
from band.core.adapterconfig import BaseAdapterConfig
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage
from band.integrations.crewai import (
    CrewAIToolContext,
    EmitToolCallsReporter,
    ReplyTracker,
    build_band_crewai_tools,
)
from band.integrations.crewai.turn import ToolTurn, settle_tool_turns, tool_turn
from band.runtime.custom_tools import CustomToolDef, reject_conflicting_tool_names

if TYPE_CHECKING:
    from crewai import LLM
    from crewai import Agent as CrewAIAgent
from band.runtime.custom_tools import get_custom_tool_name as _tool_name
from band.runtime.prompts import render_system_prompt, system_updates
from band.runtime.tools import BandTool

__all__ = ["EMPTY_LLM_RESPONSE_MARKER", "CrewAIAdapter", "CrewAIAdapterConfig"]

logger = logging.getLogger("band.adapters.crewai")

# CrewAI raises a bare ValueError with this text when a completion comes back empty.
EMPTY_LLM_RESPONSE_MARKER = "Invalid response from LLM call"
DEFAULT_MODEL = "gpt-6-luna"


def require_crewai(adapter: str) -> None:
    """ImportError naming the extra when CrewAI is absent (on first use: the module itself
    imports without it, as band-sdk's does)."""
    with needs_extra(f"{adapter} needs CrewAI", "crewai"):
        import crewai  # noqa: F401


class CrewAIAdapterConfig(BaseAdapterConfig):
    """Settings of a ``CrewAIAdapter`` (frozen; unknown fields are rejected).

    ``model`` is a CrewAI ``LLM`` model name (keys and ``OPENAI_BASE_URL`` come from the
    environment). ``role`` defaults to the agent's name, ``goal`` to its description;
    Band's prompt is appended to ``backstory``. ``max_rpm`` None is unlimited.
    """

    model: str = DEFAULT_MODEL
    role: str | None = None
    goal: str | None = None
    backstory: str | None = None
    custom_section: str | None = None
    verbose: bool = False
    max_iter: PositiveInt = 20
    max_rpm: PositiveInt | None = None
    allow_delegation: bool = False


def _console_follows(verbose: bool) -> None:
    """CrewAI's console panels on or off, as a ``Crew`` sets them from its ``verbose``.

    A lone agent's kickoff leaves CrewAI's process-wide console verbose, printing panels
    for every turn; best effort if CrewAI moves that listener.
    """
    try:
        from crewai.events.event_listener import event_listener
    except ImportError:  # pragma: no cover - CrewAI internals moved
        return
    formatter = getattr(event_listener, "formatter", None)
    if formatter is not None:
        formatter.verbose = verbose


_room: ContextVar[CrewAIToolContext | None] = ContextVar("band_crewai_room", default=None)


def current_room() -> CrewAIToolContext | None:
    """The room whose CrewAI turn runs in this context (CrewAI's worker threads inherit it)."""
    return _room.get()


def _empty_completion(exc: Exception) -> bool:
    return isinstance(exc, ValueError) and EMPTY_LLM_RESPONSE_MARKER in str(exc)


class CrewAIAdapter(SimpleAdapter[CrewAIMessages]):
    """Runs one CrewAI ``Agent`` for every room, one conversation per room.

    ``llm`` (ours, not band-sdk's) takes a live CrewAI ``LLM`` instead of ``config.model``.
    ``additional_tools`` takes ``(InputModel, handler)`` pairs; the handler may be sync or
    async. No usage events: CrewAI's metrics are not per turn (as in band-sdk 6.0.1).
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)

    def __init__(
        self,
        config: CrewAIAdapterConfig | None = None,
        *,
        history_converter: CrewAIHistoryConverter | None = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
        llm: LLM | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        require_crewai("CrewAIAdapter")
        super().__init__(
            history_converter=history_converter or CrewAIHistoryConverter(), **features
        )
        self.config = config or CrewAIAdapterConfig()
        self.llm = llm
        self._custom_tools = list(additional_tools or [])
        reject_conflicting_tool_names(_tool_name(model) for model, _ in self._custom_tools)
        self._crewai_agent: CrewAIAgent | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.rooms: dict[str, list[dict[str, str]]] = {}
        self._tool_turns: dict[str, set[ToolTurn]] = {}

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        self._loop = asyncio.get_running_loop()
        _console_follows(self.config.verbose)
        prompt = render_system_prompt(
            agent_name=agent_name,
            agent_description=agent_description or "An AI assistant",
            custom_section=self.config.custom_section or "",
            features=self.features,
        )
        backstory = f"{self.config.backstory}\n\n{prompt}" if self.config.backstory else prompt
        from crewai import LLM
        from crewai import Agent as CrewAIAgent

        self._crewai_agent = CrewAIAgent(
            role=self.config.role or agent_name,
            goal=self.config.goal or agent_description or "Help users accomplish their tasks",
            backstory=backstory,
            llm=self.llm if self.llm is not None else LLM(model=self.config.model),
            tools=build_band_crewai_tools(
                get_context=current_room,
                reporter=EmitToolCallsReporter(self.features),
                features=self.features,
                custom_tools=self._custom_tools,
                fallback_loop=self._loop,
            ),
            verbose=self.config.verbose,
            max_iter=self.config.max_iter,
            max_rpm=self.config.max_rpm,
            allow_delegation=self.config.allow_delegation,
        )

    async def on_cleanup(self, room_id: str) -> None:
        await settle_tool_turns(self._tool_turns, room_id=room_id)
        self.rooms.pop(room_id, None)

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: CrewAIMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if self._crewai_agent is None or self._loop is None:
            raise RuntimeError("CrewAIAdapter used before on_started")
        if is_session_bootstrap or room_id not in self.rooms:
            self.rooms[room_id] = [{"role": h["role"], "content": h["content"]} for h in history]
        conversation = self.rooms[room_id]
        text = msg.format_for_llm()
        messages = [
            *conversation,
            *(
                {"role": "user", "content": line}
                for line in system_updates(participants_msg, contacts_msg)
            ),
            {"role": "user", "content": text},
        ]
        tracker = ReplyTracker()
        async with tool_turn(self._tool_turns, room_id, tools) as turn:
            context = CrewAIToolContext(room_id, tools, reply_tracker=tracker, tool_turn=turn)
            token = _room.set(context)
            try:
                final = await turn.execute(lambda: self._kickoff(messages, tracker, room_id))
            finally:
                _room.reset(token)
        conversation.append({"role": "user", "content": text})
        conversation.extend(
            {"role": "assistant", "content": f"[sent via {BandTool.SEND_MESSAGE}] {post}"}
            for post in tracker.posts
        )
        if final:
            conversation.append({"role": "assistant", "content": final})

    async def _kickoff(
        self, messages: list[dict[str, str]], tracker: ReplyTracker, room_id: str
    ) -> str:
        """The final text; an empty completion is retried once if no tool ran yet."""
        assert self._crewai_agent is not None  # nosec B101 # narrows for mypy: on_started built it
        for attempt in (1, 2):
            try:
                result = await self._crewai_agent.kickoff_async(messages)
            except ValueError as exc:
                if not _empty_completion(exc):
                    raise
                result = None
            final = str(getattr(result, "raw", "") or "").strip()
            if final or tracker.any_tool_ran:
                return final
            if attempt == 1:
                logger.warning(
                    "Room %s: CrewAI answered nothing before any tool ran; retrying", room_id
                )
        return ""
