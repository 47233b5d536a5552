"""The tool loop shared by adapters that drive a raw model API (OpenAI Chat, Anthropic,
Gemini).

A provider adapter only translates: it calls its API and reads the answer into a
:class:`ModelTurn`, and writes user turns, assistant turns and tool results in its own
message format. Everything else lives here once: per-room conversations seeded from history
on bootstrap, the system prompt, tool schemas and execution (custom tools first),
``tool_call`` / ``tool_result`` events in the JSON the converters parse back, thoughts,
usage, the ``band_no_reply`` stop, the bound on tool rounds, and (where the provider's
adapter does so) relaying the final text.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar, Unpack

from band.core.delivery import relay_reply
from band.core.protocols import AgentToolsProtocol, HistoryConverter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage, TurnUsage
from band.runtime.custom_tools import CustomToolDef, custom_tools_to_schemas
from band.runtime.prompts import system_updates

from ._prompt import PromptedAdapter
from ._rooms import RoomConversations
from ._tool_events import UsageTotal, report_tool_call, report_tool_result, run_band_tool

__all__ = [
    "Messages",
    "ModelCall",
    "ModelLoopAdapter",
    "ModelTurn",
    "ToolLoopAdapter",
    "ToolOutcome",
    "ToolRoundsExceeded",
]

logger = logging.getLogger("band.adapters.loop")
Messages = list[dict[str, Any]]
NO_REPLY_TOOL = "band_no_reply"
M = TypeVar("M")


@dataclass(frozen=True)
class ModelCall:
    """One tool call the model asked for."""

    id: str
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class ModelTurn:
    """One model answer, provider-neutral.

    ``assistant`` is the message to store as-is (in the provider's format), or None when the
    answer is empty.
    """

    text: str | None
    calls: tuple[ModelCall, ...]
    usage: TurnUsage
    assistant: Any
    reasoning: str | None = None


@dataclass(frozen=True)
class ToolOutcome:
    """A tool call's result as the model will see it."""

    call: ModelCall
    output: str
    is_error: bool


class ToolRoundsExceeded(RuntimeError):
    """A turn used every tool round it had without a final answer."""


class ModelLoopAdapter(RoomConversations[list[M]], PromptedAdapter[list[M]], Generic[M]):
    """Base of adapters that run their own model tool loop, one conversation per room, in
    messages of type ``M``.

    ``RELAYS_TEXT``: whether a final plain-text answer is posted as the reply.
    """

    RELAYS_TEXT: ClassVar[bool] = True
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
        history_converter: HistoryConverter[list[M]],
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
        self.rooms: dict[str, list[M]] = {}

    # -- provider hooks ----------------------------------------------------------------------

    @abstractmethod
    async def complete(self, messages: list[M], schemas: list[dict[str, Any]]) -> ModelTurn:
        """Ask the model once; raise on an API error."""

    @abstractmethod
    def tool_results(self, outcomes: Sequence[ToolOutcome]) -> list[M]:
        """The messages that hand ``outcomes`` back to the model."""

    @abstractmethod
    def add_user_turn(self, messages: list[M], lines: Sequence[str]) -> None:
        """Append the user side of a turn: system updates, then the live message line."""

    def start_conversation(self, history: list[M]) -> list[M]:
        """A fresh room conversation seeded with converted history."""
        return list(history)

    async def report_failure(self, tools: AgentToolsProtocol, error: Exception) -> None:
        """Called before a failed model call or :class:`ToolRoundsExceeded` ends the turn;
        by default the runtime posts its generic failure once the error propagates."""

    def end_turn(self, room_id: str) -> None:
        """Called after a turn's loop ended normally (e.g. to trim the conversation)."""

    # -- lifecycle ---------------------------------------------------------------------------

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: list[M],
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        messages = self.room_conversation(
            room_id, is_session_bootstrap, lambda: self.start_conversation(history)
        )
        lines = [*system_updates(participants_msg, contacts_msg), msg.format_for_llm()]
        self.add_user_turn(messages, lines)
        schemas = tools.get_tool_schemas(
            self.SCHEMA_FORMAT, capabilities=self.features.capabilities
        ) + custom_tools_to_schemas(self.additional_tools, self.SCHEMA_FORMAT)
        usage = UsageTotal()
        try:
            await self._loop(msg, tools, messages, schemas, usage)
        finally:
            await self.emit_usage(tools, usage.total())
        self.end_turn(room_id)

    async def _loop(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        messages: list[M],
        schemas: list[dict[str, Any]],
        usage: UsageTotal,
    ) -> None:
        sequence: list[list[str]] = []
        for _ in range(self.max_tool_rounds):
            try:
                turn = await self.complete(messages, schemas)
            except Exception as exc:
                await self.report_failure(tools, exc)
                raise
            usage.add(turn.usage)
            if turn.assistant is not None:
                messages.append(turn.assistant)
            if not turn.calls:
                if self.RELAYS_TEXT:
                    await relay_reply(tools, turn.text, mentions=[msg.sender_id])
                return
            sequence.append([call.name for call in turn.calls])
            await self._report_thought(tools, turn)
            outcomes = [await self._run_tool(tools, call) for call in turn.calls]
            messages.extend(self.tool_results(outcomes))
            if any(o.call.name == NO_REPLY_TOOL for o in outcomes) and not any(
                o.is_error for o in outcomes
            ):
                return
        error = ToolRoundsExceeded(
            f"Exceeded max tool rounds ({self.max_tool_rounds}) in room {msg.room_id};"
            f" tool sequence: {sequence}"
        )
        await self.report_failure(tools, error)
        raise error

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


class ToolLoopAdapter(ModelLoopAdapter[dict[str, Any]]):
    """A :class:`ModelLoopAdapter` whose messages are ``{"role", "content"}`` dicts, one
    user message per line (OpenAI Chat, Anthropic)."""

    def add_user_turn(self, messages: Messages, lines: Sequence[str]) -> None:
        messages.extend({"role": "user", "content": line} for line in lines)
