"""The agent's own rooms and peers, read whole: how the integrations find their state.

The A2A gateway, the ACP server and the Slack bridge keep their mappings (context, session,
thread -> room) in ``task`` events of rooms the agent created; after a restart, a request
for a mapping they no longer hold reads them back from there, once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from band.client.rest import AsyncRestClient

__all__ = ["all_peers", "own_room_histories"]

PAGE_SIZE = 100
CONTEXT_LIMIT = 200


async def own_room_histories(rest: AsyncRestClient) -> AsyncIterator[list[dict[str, Any]]]:
    """Each of the agent's rooms as its context entries (dicts, the room's ``id`` added)."""
    page = 1
    while True:
        chats = await rest.agent_api_chats.list_agent_chats(page=page, page_size=PAGE_SIZE)
        for chat in chats.data:
            context = await rest.agent_api_context.get_agent_chat_context(
                str(chat.id), limit=CONTEXT_LIMIT
            )
            yield [{"room_id": str(chat.id), **m.model_dump(mode="json")} for m in context.data]
        if len(chats.data) < PAGE_SIZE:
            return
        page += 1


async def all_peers(rest: AsyncRestClient) -> list[Any]:
    """Every peer the agent can reach (``list_agent_peers``, all pages)."""
    peers: list[Any] = []
    page = 1
    while True:
        answer = await rest.agent_api_peers.list_agent_peers(page=page, page_size=PAGE_SIZE)
        peers += list(answer.data)
        if len(answer.data) < PAGE_SIZE:
            return peers
        page += 1
