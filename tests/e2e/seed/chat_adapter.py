"""A Band framework adapter for the OpenAI Chat Completions API."""
from __future__ import annotations
import json
from typing import Any, ClassVar, Unpack
from openai import AsyncOpenAI
from band import Capability, Emit, FeatureKwargs
from band.core import AgentToolsProtocol, HistoryConverter, SimpleAdapter
from band.core.exceptions import BandToolError
from band.core.types import PlatformMessage
from band.runtime.prompts import render_system_prompt
from band.core.delivery import relay_reply
Messages = list[dict[str, Any]]
MAX_TOOL_ROUNDS = 10
class ChatHistoryConverter(HistoryConverter[Messages]):
    """Turns Band room history into Chat Completions messages."""
    def __init__(self) -> None:
        self.agent_name = ""
    def set_agent_name(self, name: str) -> None:
        self.agent_name = name
    def convert(self, raw: list[dict[str, Any]]) -> Messages:
        messages: Messages = []
        for item in raw:
            if item["message_type"] != "text":
                continue
            if item["sender_type"] == "Agent" and item["sender_name"] == self.agent_name:
                messages.append({"role": "assistant", "content": item["content"]})
            else:
                text = f"[{item['sender_name']}]: {item['content']}"
                messages.append({"role": "user", "content": text})
        return messages
class ChatCompletionsAdapter(SimpleAdapter[Messages]):
    """Runs one Chat Completions tool loop per Band message."""
    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(
        {Capability.CONTACTS}
    )
    def __init__(
        self,
        model: str = "gpt-5.4-mini",
        custom_section: str = "",
        client: AsyncOpenAI | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(history_converter=ChatHistoryConverter(), **features)
        self.model = model
        self.custom_section = custom_section
        self.client = client or AsyncOpenAI()
        self.system_prompt = ""
        self.rooms: dict[str, Messages] = {}
    async def on_started(self, agent_name: str, agent_description: str) -> None:
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
        history: Messages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if is_session_bootstrap or room_id not in self.rooms:
            self.rooms[room_id] = [{"role": "system", "content": self.system_prompt}]
            self.rooms[room_id].extend(history)
        messages = self.rooms[room_id]
        for update in (participants_msg, contacts_msg):
            if update:
                messages.append({"role": "user", "content": f"[System]: {update}"})
        messages.append({"role": "user", "content": msg.format_for_llm()})
        schemas = tools.get_openai_tool_schemas(capabilities=self.features.capabilities)
        for _ in range(MAX_TOOL_ROUNDS):
            response = await self.client.chat.completions.create(
                model=self.model, messages=messages, tools=schemas
            )
            reply = response.choices[0].message
            if not reply.tool_calls:
                if reply.content:
                    messages.append({"role": "assistant", "content": reply.content})
                await relay_reply(tools, reply.content, mentions=[msg.sender_id])
                return
            messages.append(
                {
                    "role": "assistant",
                    "content": reply.content,
                    "tool_calls": [call.model_dump() for call in reply.tool_calls],
                }
            )
            for call in reply.tool_calls:
                messages.append(await self._run_tool(tools, call))
        raise RuntimeError(f"No final answer after {MAX_TOOL_ROUNDS} tool rounds")
    async def _run_tool(self, tools: AgentToolsProtocol, call: Any) -> dict[str, Any]:
        name = call.function.name
        args = json.loads(call.function.arguments or "{}")
        report = Emit.TOOL_CALLS in self.features.emit
        if report:
            await tools.send_event(
                content=json.dumps({"name": name, "args": args, "tool_call_id": call.id}),
                message_type="tool_call",
            )
        try:
            output = json.dumps(await tools.execute_tool_call(name, args), default=str)
        except BandToolError as error:
            output = f"Error: {error}"
        if report:
            await tools.send_event(
                content=json.dumps(
                    {"name": name, "output": output, "tool_call_id": call.id}
                ),
                message_type="tool_result",
            )
        return {"role": "tool", "tool_call_id": call.id, "content": output}
    async def on_cleanup(self, room_id: str) -> None:
        self.rooms.pop(room_id, None)
