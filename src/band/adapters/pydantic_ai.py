"""``PydanticAIAdapter``: Band rooms on a Pydantic AI ``Agent``; Pydantic AI runs the loop.

The room's Band tools are handed to each run as a toolset built for that message, so every
call reaches the right room. Each room keeps its ``ModelMessage`` list, seeded from the
converted room history on bootstrap and replaced by the run's ``all_messages()``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, ClassVar, Unpack, cast

from band.core.delivery import relay_reply
from band.core.protocols import AgentToolsProtocol, HistoryConverter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage, TurnUsage
from band.runtime.custom_tools import CustomToolDef, custom_tools_to_schemas
from band.runtime.prompts import system_updates

from ._prompt import PromptedAdapter
from ._tool_events import report_tool_call, report_tool_result, run_band_tool

try:
    from pydantic_ai import Agent, RunContext, Tool
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        UserPromptPart,
    )
    from pydantic_ai.models import Model
    from pydantic_ai.toolsets import FunctionToolset
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError(
        "PydanticAIAdapter needs Pydantic AI: pip install 'openband[pydantic-ai]'"
    ) from None

from band.converters.pydantic_ai import PydanticAIHistoryConverter

__all__ = ["PydanticAIAdapter"]

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


class PydanticAIAdapter(PromptedAdapter[list[ModelMessage]]):
    """Runs a Pydantic AI ``Agent`` per Band message, one message history per room.

    ``llm`` is a Pydantic AI ``Model`` or a model name such as ``"openai-chat:gpt-5-mini"``.
    Band tools come as a per-run toolset; ``additional_tools`` takes ``(InputModel,
    handler)`` pairs. The model's final text is posted only when no tool replied.
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS, Emit.USAGE})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(
        {Capability.CONTACTS, Capability.MEMORY}
    )

    def __init__(
        self,
        llm: Model | str,
        *,
        system_prompt: str | None = None,
        custom_section: str = "",
        include_base_instructions: bool = True,
        tool_retries: int = 3,
        additional_tools: Sequence[CustomToolDef] = (),
        history_converter: HistoryConverter[list[ModelMessage]] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            system_prompt=system_prompt,
            custom_section=custom_section,
            include_base_instructions=include_base_instructions,
            history_converter=history_converter or PydanticAIHistoryConverter(),
            **features,
        )
        self.llm = llm
        self.tool_retries = tool_retries
        self.additional_tools = list(additional_tools)
        self.agent: Agent[None, str | None] | None = None
        self.rooms: dict[str, list[ModelMessage]] = {}

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        # ``instructions`` are sent with every request and never stored in the history.
        # ``None`` output: after replying through a tool the model may have nothing to add.
        self.agent = Agent(
            self.llm,
            instructions=self.system_prompt or None,
            output_type=cast(Any, str | None),  # a union is a TypeForm, not a type
            retries=self.tool_retries,
        )

    async def on_cleanup(self, room_id: str) -> None:
        self.rooms.pop(room_id, None)

    def _toolset(self, tools: AgentToolsProtocol) -> FunctionToolset[None]:
        """The room's Band tools (then custom ones) as Pydantic AI tools bound to ``tools``."""
        schemas = tools.get_openai_tool_schemas(capabilities=self.features.capabilities)
        schemas += custom_tools_to_schemas(self.additional_tools, "openai")
        return FunctionToolset([self._tool(tools, s["function"]) for s in schemas])

    def _tool(self, tools: AgentToolsProtocol, spec: dict[str, Any]) -> Tool[None]:
        name: str = spec["name"]

        async def call(ctx: RunContext[None], **arguments: Any) -> str:
            call_id = ctx.tool_call_id or ""
            await report_tool_call(tools, self.features, name, arguments, call_id)
            output, is_error = await run_band_tool(tools, name, arguments, self.additional_tools)
            await report_tool_result(tools, self.features, name, output, call_id, is_error=is_error)
            return output

        parameters = spec.get("parameters") or {"type": "object", "properties": {}}
        return Tool.from_schema(call, name, spec.get("description"), parameters, takes_ctx=True)

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
        if is_session_bootstrap or room_id not in self.rooms:
            self.rooms[room_id] = list(history)
        history_now = self.rooms[room_id]
        # Each update is its own user message, as in the other adapters.
        history_now.extend(
            ModelRequest(parts=[UserPromptPart(content=line)])
            for line in system_updates(participants_msg, contacts_msg)
        )
        result = await self.agent.run(
            msg.format_for_llm(), message_history=history_now, toolsets=[self._toolset(tools)]
        )
        self.rooms[room_id] = [m for m in result.all_messages() if _replayable(m)]
        await self.emit_usage(tools, _usage(result.usage))
        await relay_reply(tools, result.output, mentions=[msg.sender_id])
