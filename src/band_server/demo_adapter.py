"""The demo agents' adapter: an OpenAI Chat Completions tool loop built on the band SDK.

It follows the documented "framework adapter" shape: one conversation per room, Band's
room tools offered to the model, the tool loop run here, and the final text relayed only
when no tool already answered. Any OpenAI-compatible client works, including the offline
scripted model from ``band.testing``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar, Unpack, cast

from band import Capability, Emit, FeatureKwargs
from band.core import AgentToolsProtocol, HistoryConverter, SimpleAdapter
from band.core.delivery import relay_reply
from band.core.exceptions import BandToolError
from band.core.types import PlatformMessage
from band.runtime.prompts import render_system_prompt

if TYPE_CHECKING:
    from openai import AsyncOpenAI

Conversation = list[dict[str, Any]]

TOOL_ROUND_LIMIT = 8


class ConversationConverter(HistoryConverter[Conversation]):
    """Room history as chat messages: our own texts as the assistant, others as users."""

    def __init__(self) -> None:
        self.own_name = ""

    def set_agent_name(self, name: str) -> None:
        """Remember which sender is this agent (other agents count as users)."""
        self.own_name = name

    def convert(self, raw: list[dict[str, Any]]) -> Conversation:
        """Keep text messages only; tool events are not replayed to the demo model."""
        out: Conversation = []
        for item in raw:
            if item.get("message_type", "text") != "text":
                continue
            mine = item.get("sender_type") == "Agent" and item.get("sender_name") == self.own_name
            if mine:
                out.append({"role": "assistant", "content": item["content"]})
            else:
                text = f"[{item['sender_name']}]: {item['content']}"
                out.append({"role": "user", "content": text})
        return out


class DemoChatAdapter(SimpleAdapter[Conversation]):
    """Answers each mention by running the model with Band's tools until it stops calling them."""

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset({Capability.CONTACTS})

    def __init__(
        self,
        client: AsyncOpenAI,
        model: str = "gpt-4o-mini",
        custom_section: str = "",
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(history_converter=ConversationConverter(), **features)
        self.client = client
        self.model = model
        self.custom_section = custom_section
        self.system_prompt = ""
        self.conversations: dict[str, Conversation] = {}

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Build the system prompt once the platform told us who we are."""
        await super().on_started(agent_name, agent_description)
        self.system_prompt = render_system_prompt(
            agent_name=agent_name,
            agent_description=agent_description,
            custom_section=self.custom_section,
            features=self.features,
        )

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: Conversation,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """One turn: extend the room's conversation, then loop model ↔ tools."""
        conversation = self.conversations.get(room_id)
        if conversation is None or is_session_bootstrap:
            conversation = [{"role": "system", "content": self.system_prompt}, *history]
            self.conversations[room_id] = conversation
        conversation.extend(
            {"role": "user", "content": f"[System]: {note}"}
            for note in (participants_msg, contacts_msg)
            if note
        )
        conversation.append({"role": "user", "content": msg.format_for_llm()})
        schemas: Any = tools.get_openai_tool_schemas(capabilities=self.features.capabilities)
        for _ in range(TOOL_ROUND_LIMIT):
            completion = await self.client.chat.completions.create(
                model=self.model, messages=cast(Any, conversation), tools=schemas
            )
            answer = completion.choices[0].message
            calls = list(answer.tool_calls or [])
            if not calls:
                if answer.content:
                    conversation.append({"role": "assistant", "content": answer.content})
                await relay_reply(tools, answer.content, mentions=[msg.sender_id])
                return
            conversation.append(
                {
                    "role": "assistant",
                    "content": answer.content,
                    "tool_calls": [call.model_dump() for call in calls],
                }
            )
            for call in calls:
                conversation.append(await self._call_tool(tools, call))
        raise RuntimeError(f"the model still wanted tools after {TOOL_ROUND_LIMIT} rounds")

    async def _call_tool(self, tools: AgentToolsProtocol, call: Any) -> dict[str, Any]:
        """Run one tool call, report it as tool_call/tool_result events, return the tool message."""
        name: str = call.function.name
        try:
            args = json.loads(call.function.arguments or "{}")
        except ValueError:
            args = None
        reporting = Emit.TOOL_CALLS in self.features.emit
        if reporting:
            call_event = {"name": name, "args": args or {}, "tool_call_id": call.id}
            await tools.send_event(content=json.dumps(call_event), message_type="tool_call")
        if not isinstance(args, dict):
            output = "Error: the tool arguments were not a JSON object"
        else:
            try:
                output = json.dumps(await tools.execute_tool_call(name, args), default=str)
            except BandToolError as error:
                output = f"Error: {error}"
        if reporting:
            result_event = {"name": name, "output": output, "tool_call_id": call.id}
            await tools.send_event(content=json.dumps(result_event), message_type="tool_result")
        return {"role": "tool", "tool_call_id": call.id, "content": output}

    async def on_cleanup(self, room_id: str) -> None:
        """Forget the room's conversation when the agent leaves it or stops."""
        self.conversations.pop(room_id, None)
