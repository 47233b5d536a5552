"""The tool loop shared by adapters that drive a raw model API (OpenAI Chat, Anthropic).

A provider adapter only translates: it calls its API and reads the answer into a
:class:`ModelTurn`, and writes assistant turns and tool results in its own message format.
Everything else lives here once: per-room conversations seeded from history on bootstrap,
the system prompt, tool schemas and execution (custom tools first), ``tool_call`` /
``tool_result`` events in the JSON the converters parse back, thoughts, usage, the
``band_no_reply`` stop, and relaying the final text.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Unpack

from band.core.delivery import relay_reply
from band.core.protocols import AgentToolsProtocol, HistoryConverter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage, TurnUsage
from band.runtime.custom_tools import CustomToolDef, custom_tools_to_schemas
from band.runtime.prompts import system_updates

from ._prompt import PromptedAdapter
from ._tool_events import UsageTotal, report_tool_call, report_tool_result, run_band_tool

__all__ = ["Messages", "ModelCall", "ModelTurn", "ToolLoopAdapter", "ToolOutcome"]

logger = logging.getLogger("band.adapters.loop")
Messages = list[dict[str, Any]]
NO_REPLY_TOOL = "band_no_reply"


@dataclass(frozen=True)
class ModelCall:
    """One tool call the model asked for."""

    id: str
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class ModelTurn:
    """One model answer, provider-neutral.

    ``assistant`` is the message to store as-is, or None when the answer is empty.
    """

    text: str | None
    calls: tuple[ModelCall, ...]
    usage: TurnUsage
    assistant: dict[str, Any] | None
    reasoning: str | None = None


@dataclass(frozen=True)
class ToolOutcome:
    """A tool call's result as the model will see it."""

    call: ModelCall
    output: str
    is_error: bool


class ToolLoopAdapter(PromptedAdapter[Messages]):
    """Base of adapters that run their own model tool loop, one conversation per room."""

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset(
        {Emit.TOOL_CALLS, Emit.THOUGHTS, Emit.USAGE}
    )
    # Every Band tool group: the loop runs whatever tool the schemas offer.
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)
    SCHEMA_FORMAT: ClassVar[str] = "openai"

    def __init__(
        self,
        *,
        model: str,
        system_prompt: str | None = None,
        custom_section: str = "",
        include_base_instructions: bool = True,
        max_tool_rounds: int = 10,
        stream: bool = False,
        additional_tools: Sequence[CustomToolDef] = (),
        history_converter: HistoryConverter[Messages],
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            system_prompt=system_prompt,
            custom_section=custom_section,
            include_base_instructions=include_base_instructions,
            history_converter=history_converter,
            **features,
        )
        self.model = model
        self.max_tool_rounds = max_tool_rounds
        self.stream = stream
        self.additional_tools = list(additional_tools)
        self.rooms: dict[str, Messages] = {}

    # -- provider hooks ----------------------------------------------------------------------

    @abstractmethod
    async def complete(self, messages: Messages, schemas: list[dict[str, Any]]) -> ModelTurn:
        """Ask the model once; raise on an API error."""

    @abstractmethod
    def tool_results(self, outcomes: Sequence[ToolOutcome]) -> Messages:
        """The messages that hand ``outcomes`` back to the model."""

    def user_message(self, text: str) -> dict[str, Any]:
        return {"role": "user", "content": text}

    def start_conversation(self, history: Messages) -> Messages:
        """A fresh room conversation seeded with converted history."""
        return list(history)

    # -- lifecycle ---------------------------------------------------------------------------

    async def on_cleanup(self, room_id: str) -> None:
        self.rooms.pop(room_id, None)

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: Messages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if is_session_bootstrap or room_id not in self.rooms:
            self.rooms[room_id] = self.start_conversation(history)
        messages = self.rooms[room_id]
        for line in system_updates(participants_msg, contacts_msg):
            messages.append(self.user_message(line))
        messages.append(self.user_message(msg.format_for_llm()))
        schemas = tools.get_tool_schemas(
            self.SCHEMA_FORMAT, capabilities=self.features.capabilities
        ) + custom_tools_to_schemas(self.additional_tools, self.SCHEMA_FORMAT)
        usage = UsageTotal()
        try:
            await self._loop(msg, tools, messages, schemas, usage)
        finally:
            await self.emit_usage(tools, usage.total())

    async def _loop(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        messages: Messages,
        schemas: list[dict[str, Any]],
        usage: UsageTotal,
    ) -> None:
        for _ in range(self.max_tool_rounds):
            turn = await self.complete(messages, schemas)
            usage.add(turn.usage)
            if turn.assistant is not None:
                messages.append(turn.assistant)
            if not turn.calls:
                await relay_reply(tools, turn.text, mentions=[msg.sender_id])
                return
            await self._report_thought(tools, turn)
            outcomes = [await self._run_tool(tools, call) for call in turn.calls]
            messages.extend(self.tool_results(outcomes))
            if any(o.call.name == NO_REPLY_TOOL for o in outcomes) and not any(
                o.is_error for o in outcomes
            ):
                return
        raise RuntimeError(f"No final answer after {self.max_tool_rounds} tool rounds")

    # -- events and tools --------------------------------------------------------------------

    async def _report_thought(self, tools: AgentToolsProtocol, turn: ModelTurn) -> None:
        if Emit.THOUGHTS not in self.features.emit:
            return
        text = "\n\n".join(t.strip() for t in (turn.reasoning, turn.text) if t and t.strip())
        if not text:
            return
        try:
            await tools.send_event(text, "thought")
        except Exception as exc:
            logger.warning("Failed to send thought event: %s", exc)

    async def _run_tool(self, tools: AgentToolsProtocol, call: ModelCall) -> ToolOutcome:
        await report_tool_call(tools, self.features, call.name, call.args, call.id)
        output, is_error = await run_band_tool(tools, call.name, call.args, self.additional_tools)
        await report_tool_result(
            tools, self.features, call.name, output, call.id, is_error=is_error
        )
        return ToolOutcome(call, output, is_error)
