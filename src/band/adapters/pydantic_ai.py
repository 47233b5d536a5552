"""``PydanticAIAdapter``: Band rooms on a Pydantic AI ``Agent``; Pydantic AI runs the loop.

The room's Band tools are handed to each run as a toolset built for that message, so every
call reaches the right room. Each room keeps its ``ModelMessage`` list, seeded from the
converted room history on bootstrap and replaced by the run's ``all_messages()``.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Unpack, cast

from band._extras import needs_extra
from band.core.adapterconfig import BaseAdapterConfig
from band.core.delivery import relay_reply
from band.core.protocols import AgentToolsProtocol, HistoryConverter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage, TurnUsage
from band.runtime.custom_tools import CustomToolDef, custom_tools_to_schemas
from band.runtime.prompts import system_updates

from ._prompt import PromptedAdapter
from ._rooms import RoomConversations

with needs_extra("PydanticAIAdapter needs Pydantic AI", "pydantic-ai"):
    from pydantic_ai import Agent, Tool
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        UserPromptPart,
    )
    from pydantic_ai.models import Model
    from pydantic_ai.toolsets import FunctionToolset

from band.converters.pydantic_ai import PydanticAIHistoryConverter
from band.integrations.pydantic_ai.tools import band_tool

__all__ = ["PydanticAIAdapter", "PydanticAIAdapterConfig"]

logger = logging.getLogger("band.adapters.pydantic_ai")


def _usage(usage: Any) -> TurnUsage:
    """A run's usage; ``usage`` was a method before Pydantic AI made it a property."""
    if not hasattr(usage, "input_tokens") and callable(usage):
        usage = usage()

    def count(*names: str) -> int:
        for name in names:
            value = getattr(usage, name, None)
            if value:
                return int(value)
        return 0

    return TurnUsage(
        input_tokens=count("input_tokens", "request_tokens"),
        output_tokens=count("output_tokens", "response_tokens"),
        cache_read_tokens=count("cache_read_tokens"),
        cache_write_tokens=count("cache_write_tokens"),
    )


def _replayable(message: ModelMessage) -> bool:
    """False for an empty answer: replayed, it would be an assistant turn with no content."""
    if not isinstance(message, ModelResponse):
        return True
    return any(not isinstance(p, TextPart) or p.content.strip() for p in message.parts)


class PydanticAIAdapterConfig(BaseAdapterConfig):
    """What ``PydanticAIAdapter`` runs with.

    ``model`` is a Pydantic AI model name (``"openai-chat:gpt-5-mini"``; ``"openai:..."`` is
    the Responses API); leave it None when the adapter gets a live ``llm``.
    ``system_prompt`` replaces the rendered prompt; ``custom_section`` is added to it.
    """

    model: str | None = None
    system_prompt: str | None = None
    custom_section: str | None = None


def _takes_context(function: Callable[..., Any]) -> bool:
    """Whether a Pydantic AI tool function's first parameter is its ``RunContext``."""
    params = list(inspect.signature(function).parameters.values())
    if not params:
        return False
    hint = params[0].annotation
    text = hint if isinstance(hint, str) else getattr(hint, "__name__", repr(hint))
    return "RunContext" in str(text)


class PydanticAIAdapter(RoomConversations[list[ModelMessage]], PromptedAdapter[list[ModelMessage]]):
    """Runs a Pydantic AI ``Agent`` per Band message, one message history per room.

    The model is ``config.model`` (a name) or ``llm`` (a Pydantic AI ``Model``): exactly
    one. Band tools come as a per-run toolset whose dependencies are the room's tools.
    ``additional_tools`` takes ``(InputModel, handler)`` pairs and plain Pydantic AI tool
    functions (with or without a leading ``RunContext[AgentToolsProtocol]``).
    ``instrument`` is handed to Pydantic AI (None: whatever the host set globally). The
    model's final text is posted only when no tool replied.
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS, Emit.USAGE})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(
        {Capability.CONTACTS, Capability.MEMORY}
    )

    def __init__(
        self,
        config: PydanticAIAdapterConfig | None = None,
        *,
        history_converter: HistoryConverter[list[ModelMessage]] | None = None,
        additional_tools: Sequence[Callable[..., Any] | CustomToolDef] | None = None,
        llm: Model | None = None,
        instrument: Any = None,
        tool_retries: int = 3,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        self.config = config = config or PydanticAIAdapterConfig()
        if (config.model is None) == (llm is None):
            raise ValueError("Set exactly one of config.model or llm")
        super().__init__(
            system_prompt=config.system_prompt,
            custom_section=config.custom_section or "",
            history_converter=history_converter or PydanticAIHistoryConverter(),
            **features,
        )
        self.llm: Model | str = llm if llm is not None else cast(str, config.model)
        self.instrument = instrument
        self.tool_retries = tool_retries
        extra = list(additional_tools or ())
        self.additional_tools: list[CustomToolDef] = [t for t in extra if isinstance(t, tuple)]
        self.tool_functions = [t for t in extra if not isinstance(t, tuple)]
        self.agent: Agent[AgentToolsProtocol, str | None] | None = None
        self.rooms: dict[str, list[ModelMessage]] = {}

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        # ``instructions`` are sent with every request and never stored in the history.
        # ``None`` output: after replying through a tool the model may have nothing to add.
        own = [Tool(f, takes_ctx=_takes_context(f)) for f in self.tool_functions]
        self.agent = Agent(
            self.llm,
            deps_type=AgentToolsProtocol,
            instructions=self.system_prompt or None,
            output_type=cast(Any, str | None),  # a union is a TypeForm, not a type
            retries=self.tool_retries,
            tools=own,
        )
        # None keeps whatever ``Agent.instrument_all()`` the host chose.
        self.agent.instrument = self.instrument

    def _toolset(self, tools: AgentToolsProtocol) -> FunctionToolset[AgentToolsProtocol]:
        """The room's Band tools (then custom ones) as Pydantic AI tools; ``deps`` is the room."""
        schemas = tools.get_openai_tool_schemas(capabilities=self.features.capabilities)
        schemas += custom_tools_to_schemas(self.additional_tools, "openai")
        return FunctionToolset(
            [band_tool(s["function"], self.features, self.additional_tools) for s in schemas]
        )

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: list[ModelMessage],
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if self.agent is None:
            raise RuntimeError("PydanticAIAdapter used before on_started")
        history_now = self.room_conversation(room_id, is_session_bootstrap, lambda: list(history))
        # Each update is its own user message, as in the other adapters.
        history_now.extend(
            ModelRequest(parts=[UserPromptPart(content=line)])
            for line in system_updates(participants_msg, contacts_msg)
        )
        result = await self.agent.run(
            msg.format_for_llm(),
            message_history=history_now,
            toolsets=[self._toolset(tools)],
            deps=tools,
        )
        self.rooms[room_id] = [m for m in result.all_messages() if _replayable(m)]
        await self.emit_usage(tools, _usage(result.usage))
        await relay_reply(tools, result.output, mentions=[msg.sender_id])
