"""``StrandsAdapter``: Band rooms on a Strands Agents ``Agent``; Strands runs the tool loop.

Each message builds a fresh ``strands.Agent`` over the room's transcript, with the room's
Band tools (and portable custom tools) as native Strands tools bound to that room. Hooks
report ``tool_call`` / ``tool_result`` events, record native custom tools' declared turn
effects, and stop the loop after a successful ``band_no_reply``. The transcript is kept per
room, seeded from the converted history on bootstrap.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeAlias, Unpack, cast

from band._extras import needs_extra
from band.core.adapterconfig import BaseAdapterConfig
from band.core.protocols import AgentToolsProtocol
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage, TurnUsage
from band.runtime.custom_tools import (
    CustomToolDef,
    custom_tools_to_schemas,
    declared_effect,
    get_custom_tool_name,
    is_failure_result,
    reject_conflicting_tool_names,
)
from band.runtime.prompts import system_updates
from band.runtime.tools import TOOL_MODELS, BandTool, TurnEffect

from ._prompt import PromptedAdapter
from ._rooms import RoomConversations
from ._tool_events import as_text, report_tool_call, report_tool_result, run_band_tool

with needs_extra("StrandsAdapter needs Strands Agents", "strands"):
    from strands import Agent
    from strands.hooks import HookProvider, HookRegistry
    from strands.hooks.events import AfterToolCallEvent, BeforeToolCallEvent
    from strands.models import Model
    from strands.models.bedrock import BedrockModel
    from strands.types.tools import AgentTool, ToolGenerator, ToolResult, ToolSpec, ToolUse

from band.converters.strands import (
    StrandsHistoryConverter,
    StrandsMessages,
    merge_consecutive_roles,
)

__all__ = [
    "BandTurnHooks",
    "CustomToolBridge",
    "PlatformToolBridge",
    "StrandsAdapter",
    "StrandsAdapterConfig",
    "StrandsToolBridge",
]

logger = logging.getLogger("band.adapters.strands")

StrandsCustomTool: TypeAlias = Callable[..., Any] | AgentTool | CustomToolDef


class StrandsAdapterConfig(BaseAdapterConfig):
    """Settings of a ``StrandsAdapter`` (frozen; unknown fields are rejected).

    ``model`` is a model id Strands resolves (a Bedrock id); leave it None when the adapter
    is given a live ``llm``. ``system_prompt`` replaces Band's rendered prompt;
    ``custom_section`` is appended to it.
    """

    model: str | None = None
    system_prompt: str | None = None
    custom_section: str | None = None


def _result(tool_use: ToolUse, text: str, *, ok: bool) -> ToolResult:
    return {
        "toolUseId": tool_use["toolUseId"],
        "status": "success" if ok else "error",
        "content": [{"text": text}],
    }


def _result_text(result: ToolResult) -> str:
    parts = []
    for block in result.get("content", []):
        if "text" in block:
            parts.append(str(block["text"]))
        elif "json" in block:
            parts.append(as_text(block["json"]))
    return "\n".join(parts)


class StrandsToolBridge(AgentTool):
    """A native Strands tool from an OpenAI-format schema; runs one Band (or custom) tool."""

    def __init__(
        self,
        schema: dict[str, Any],
        tools: AgentToolsProtocol,
        custom_tools: Sequence[CustomToolDef] = (),
    ) -> None:
        super().__init__()
        spec = schema["function"]
        self._name: str = spec["name"]
        self._tools = tools
        self._custom_tools = custom_tools
        # A copy: Strands writes defaults into the schema it is handed.
        parameters = json.loads(json.dumps(spec.get("parameters") or {"type": "object"}))
        self._spec: ToolSpec = {
            "name": self._name,
            "description": spec.get("description") or self._name,
            "inputSchema": {"json": parameters},
        }

    @property
    def tool_name(self) -> str:
        return self._name

    @property
    def tool_spec(self) -> ToolSpec:
        return self._spec

    @property
    def tool_type(self) -> str:
        return "function"

    async def stream(
        self, tool_use: ToolUse, invocation_state: dict[str, Any], **kwargs: Any
    ) -> ToolGenerator:
        del invocation_state, kwargs
        args = dict(tool_use.get("input") or {})
        output, is_error = await run_band_tool(self._tools, self._name, args, self._custom_tools)
        yield _result(tool_use, output, ok=not is_error)


class PlatformToolBridge(StrandsToolBridge):
    """One Band platform tool of the room, as a Strands tool."""


class CustomToolBridge(StrandsToolBridge):
    """A portable ``(InputModel, handler)`` custom tool, as a Strands tool."""

    def __init__(self, tool: CustomToolDef, tools: AgentToolsProtocol) -> None:
        super().__init__(custom_tools_to_schemas([tool], "openai")[0], tools, (tool,))


class BandTurnHooks(HookProvider):
    """Reports tool events, records native tools' declared effects, stops on a decline."""

    def __init__(
        self,
        tools: AgentToolsProtocol,
        adapter: StrandsAdapter,
    ) -> None:
        self._tools = tools
        self._adapter = adapter

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        del kwargs
        registry.add_callback(BeforeToolCallEvent, self._before)
        registry.add_callback(AfterToolCallEvent, self._after)

    async def _before(self, event: BeforeToolCallEvent) -> None:
        use = event.tool_use
        args = dict(use.get("input") or {})
        await report_tool_call(
            self._tools, self._adapter.features, use["name"], args, use["toolUseId"]
        )

    async def _after(self, event: AfterToolCallEvent) -> None:
        use = event.tool_use
        name = use["name"]
        output = _result_text(event.result)
        ok = event.result.get("status") == "success"
        await report_tool_result(
            self._tools, self._adapter.features, name, output, use["toolUseId"], is_error=not ok
        )
        if not ok:
            return
        effect = self._adapter.native_effects.get(name)
        if effect is not None and not is_failure_result(_maybe_json(output)):
            self._tools.turn.record(effect)
        if name == BandTool.NO_REPLY:
            _stop_after_batch(event)


def _stop_after_batch(event: AfterToolCallEvent) -> None:
    """End the loop once the batch's other tools ran (Strands >= 1.6x: ``cancel``)."""
    try:
        event.agent.cancel(after_current_tools=True)
    except (AttributeError, TypeError):  # older Strands: the request-state flag
        event.invocation_state["request_state"]["stop_event_loop"] = True


def _maybe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _tool_name(tool: StrandsCustomTool) -> str:
    if isinstance(tool, tuple):
        return get_custom_tool_name(tool[0])
    if isinstance(tool, AgentTool):
        return str(tool.tool_name)
    name = getattr(tool, "tool_name", None) or getattr(tool, "__name__", "")
    if not name:
        raise ValueError(
            f"Custom tool {tool!r} has no name: pass a named function, a @strands.tool, "
            "or an (InputModel, handler) pair"
        )
    return str(name)


class StrandsAdapter(RoomConversations[StrandsMessages], PromptedAdapter[StrandsMessages]):
    """Runs a Strands ``Agent`` per Band message, one transcript per room.

    Exactly one of ``config.model`` (a model id Strands resolves) and ``llm`` (a Strands
    ``Model`` such as ``OpenAIModel``) must be set. ``additional_tools`` takes Strands tools
    (``@strands.tool`` functions, ``AgentTool``) and ``(InputModel, handler)`` pairs; a
    native tool's effect is declared with ``band.runtime.custom_tools.declares_turn_effect``.
    The model's plain final text is never posted: replies go through ``band_send_message``.
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS, Emit.USAGE})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)

    def __init__(
        self,
        config: StrandsAdapterConfig | None = None,
        *,
        history_converter: StrandsHistoryConverter | None = None,
        additional_tools: Sequence[StrandsCustomTool] | None = None,
        llm: Model | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        self.config = config or StrandsAdapterConfig()
        super().__init__(
            system_prompt=self.config.system_prompt,
            custom_section=self.config.custom_section or "",
            history_converter=history_converter or StrandsHistoryConverter(),
            **features,
        )
        if (llm is None) == (self.config.model is None):
            raise ValueError("Set exactly one of config.model or llm")
        self.model: Model | str = llm if llm is not None else cast(str, self.config.model)
        self.additional_tools = list(additional_tools or [])
        reject_conflicting_tool_names(_tool_name(t) for t in self.additional_tools)
        self.native_effects: dict[str, TurnEffect] = {}
        for tool in self.additional_tools:
            # A portable pair records its own effect; a @strands.tool wraps its function.
            handler = None if isinstance(tool, tuple) else getattr(tool, "_tool_func", tool)
            effect = None if handler is None else declared_effect(handler)
            if effect is not None:
                self.native_effects[_tool_name(tool)] = effect
        self.rooms: dict[str, StrandsMessages] = {}

    def _tools_for(self, tools: AgentToolsProtocol) -> list[Any]:
        schemas = tools.get_openai_tool_schemas(capabilities=self.features.capabilities)
        bound: list[Any] = [
            PlatformToolBridge(s, tools) for s in schemas if s["function"]["name"] in TOOL_MODELS
        ]
        for tool in self.additional_tools:
            bound.append(CustomToolBridge(tool, tools) if isinstance(tool, tuple) else tool)
        return bound

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: StrandsMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        messages = self.room_conversation(room_id, is_session_bootstrap, lambda: list(history))
        # Each update is its own user message, as in the other adapters; Converse (Bedrock)
        # wants alternating roles, so there the neighbours are merged into one.
        messages += [
            {"role": "user", "content": [{"text": line}]}
            for line in system_updates(participants_msg, contacts_msg)
        ]
        messages.append({"role": "user", "content": [{"text": msg.format_for_llm()}]})
        if isinstance(self.model, BedrockModel | str):
            messages = merge_consecutive_roles(messages)
        agent = Agent(
            model=self.model,
            messages=messages,
            tools=self._tools_for(tools),
            system_prompt=self.system_prompt or None,
            hooks=[BandTurnHooks(tools, self)],
            callback_handler=None,
            name=self.agent_name or None,
        )
        try:
            await agent.invoke_async()
        finally:
            self.rooms[room_id] = agent.messages
            await self.emit_usage(tools, _usage(agent))


def _usage(agent: Agent) -> TurnUsage:
    usage = dict(agent.event_loop_metrics.accumulated_usage)

    def count(key: str) -> int:
        return int(usage.get(key) or 0)

    return TurnUsage(
        input_tokens=count("inputTokens"),
        output_tokens=count("outputTokens"),
        cache_read_tokens=count("cacheReadInputTokens"),
        cache_write_tokens=count("cacheWriteInputTokens"),
    )
