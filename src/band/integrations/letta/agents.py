"""Letta agents and conversations for Band rooms: create, resume, wire up Band's tools.

An agent's ``persona`` block carries how to answer in Band (the send tool, the room's
``chat_id`` for a per-room agent) and the system prompt; a resumed agent gets it rewritten
and any missing Band tool attached again.
"""

from __future__ import annotations

import logging
from typing import Any

from .config import LettaAdapterConfig
from .mcp import LettaMCPBridge, bounded_teardown
from .prompts import render_tool_enforcement

__all__ = ["CONSOLIDATE_PROMPT", "LettaAgents"]

logger = logging.getLogger("band.integrations.letta")
CONSOLIDATE_PROMPT = (
    "[System]: You are leaving this Band room. Save anything from it worth remembering to "
    "your memory now; do not send any message."
)


class LettaAgents:
    """The agent operations of one adapter, on its ``AsyncLetta`` client."""

    def __init__(self, client: Any, config: LettaAdapterConfig, mcp: LettaMCPBridge) -> None:
        self.client = client
        self.config = config
        self.mcp = mcp

    def persona(self, system_prompt: str, room_id: str | None) -> str:
        """The persona block: how to answer in Band, then who the agent is."""
        per_room = self.config.mode == "per_room"  # a shared agent hears its room per message
        rules = render_tool_enforcement(
            self.mcp.send_message_tool,
            self.mcp.send_event_tool,
            room_id=room_id if per_room else None,
        )
        return rules + (self.config.persona or system_prompt)

    async def create(self, persona: str) -> str:
        """A new agent with Band's tools attached; its id."""
        blocks = [{"label": "persona", "value": persona}, *self.config.memory_blocks]
        options: dict[str, Any] = {"memory_blocks": blocks, "include_base_tools": True}
        if self.config.model:
            options["model"] = self.config.model
        if self.config.embedding:
            options["embedding"] = self.config.embedding
        agent = await self.client.agents.create(**options)
        await self.attach_tools(str(agent.id))
        return str(agent.id)

    async def resume(self, agent_id: str, persona: str) -> bool:
        """Whether ``agent_id`` still exists; if so its persona is rewritten, its tools checked."""
        try:
            await self.client.agents.retrieve(agent_id)
            await self.client.agents.blocks.update("persona", agent_id=agent_id, value=persona)
            await self.attach_tools(agent_id)
        except Exception as exc:
            logger.warning("Letta agent %s cannot be resumed: %s", agent_id, exc)
            return False
        return True

    async def attach_tools(self, agent_id: str) -> None:
        """Attach every Band tool the agent lacks."""
        attached = {str(t.id) async for t in self.client.agents.tools.list(agent_id=agent_id)}
        for tool_id in self.mcp.tool_ids:
            if tool_id not in attached:
                await self.client.agents.tools.attach(tool_id, agent_id=agent_id)

    async def conversation(self, agent_id: str, known: str | None) -> tuple[str, bool]:
        """The room's conversation with the shared agent: ``known`` if it is still the agent's,
        else a new one; ``(id, created)``."""
        if known:
            try:
                found = await self.client.conversations.retrieve(known)
                if getattr(found, "agent_id", agent_id) == agent_id:
                    return known, False
            except Exception as exc:
                logger.warning("Letta conversation %s cannot be resumed: %s", known, exc)
        created = await self.client.conversations.create(agent_id=agent_id)
        return str(created.id), True

    async def send(
        self, agent_id: str, conversation_id: str | None, content: str
    ) -> tuple[list[Any], Any]:
        """One user message; ``(response messages, usage or None)``."""
        messages = [{"role": "user", "content": content}]
        if conversation_id is not None:
            stream = await self.client.conversations.messages.create(
                conversation_id, messages=messages
            )
            return [item async for item in stream], None
        answer = await self.client.agents.messages.create(agent_id, messages=messages)
        return list(answer.messages), getattr(answer, "usage", None)

    async def cancel(self, agent_id: str, conversation_id: str | None) -> None:
        """Cancel the agent's (or conversation's) running steps; best effort (needs Redis)."""
        if conversation_id is not None:
            call = self.client.conversations.cancel(conversation_id)
        else:
            call = self.client.agents.messages.cancel(agent_id)
        await bounded_teardown(
            call, timeout_s=self.config.teardown_timeout_s, action="cancel a Letta run"
        )

    async def leave(self, agent_id: str, conversation_id: str | None) -> None:
        """A room went away: let the agent save its memory, and delete it if configured."""
        timeout = self.config.teardown_timeout_s
        if self.config.consolidate_memory_on_cleanup:
            await bounded_teardown(
                self.send(agent_id, conversation_id, CONSOLIDATE_PROMPT),
                timeout_s=timeout,
                action=f"consolidate the memory of Letta agent {agent_id}",
            )
        if self.config.delete_agents_on_cleanup and self.config.mode == "per_room":
            await bounded_teardown(
                self.client.agents.delete(agent_id),
                timeout_s=timeout,
                action=f"delete Letta agent {agent_id}",
            )
