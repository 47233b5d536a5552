"""A room on our platform for the room view tests: a person, their agent, a titled room with
both in it; the person talks through their own REST client."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from band.client.rest import AsyncRestClient, CreateMyChatRoomRequestChat
from band.runtime.tools import HumanTools
from conftest import LiveServer, make_agent, make_user


@dataclass
class RoomWorld:
    server: LiveServer
    person: HumanTools
    rest: AsyncRestClient
    agent_id: str
    agent_key: str
    agent_handle: str
    room_id: str

    async def say(self, text: str) -> None:
        """Alice says ``text`` in the room, mentioning the agent."""
        sent = await self.person.send_my_chat_message(self.room_id, text, "Scout")
        assert not isinstance(sent, str), sent

    async def close(self) -> None:
        await self.rest.aclose()


async def make_room_world(server: LiveServer, title: str = "Launch plan") -> RoomWorld:
    user_id, user_key = await make_user(server.platform, "alice", "Alice")
    agent_id, agent_key, handle = await make_agent(server.platform, user_id, "Scout")
    rest = AsyncRestClient(api_key=user_key, base_url=server.url)
    room = await rest.human_api_chats.create_my_chat_room(
        chat=CreateMyChatRoomRequestChat(title=title)
    )
    person = HumanTools(rest)
    await person.add_my_chat_participant(room.data.id, agent_id)
    return RoomWorld(server, person, rest, agent_id, agent_key, handle, room.data.id)


def short_state_dir() -> Path:
    """A state directory whose Unix socket path stays under the 104-byte limit."""
    return Path(tempfile.mkdtemp(prefix="brv-", dir="/tmp"))
