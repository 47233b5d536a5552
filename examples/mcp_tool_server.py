"""Band's room tools for an agent in another process, through the shared local MCP server.

Each mention starts ``AGENT_COMMAND`` (any MCP client: a CLI agent, a script) with the
server's URL, the room id and the message in its environment; the agent answers by calling
``band_send_message`` (and the other Band tools) with ``chat_id`` set to that room. Calls for a
room the agent has no message in progress in are refused.

    BAND_AGENT_ID=... BAND_API_KEY=... BAND_REST_URL=http://127.0.0.1:8080 \
    BAND_WS_URL=ws://127.0.0.1:8080/api/v1/socket/websocket \
    AGENT_COMMAND="my-mcp-agent" python mcp_tool_server.py
"""

from __future__ import annotations

import asyncio
import os
import shlex
from typing import Any

from band import Agent
from band.core import SimpleAdapter
from band.core.protocols import AgentToolsProtocol
from band.core.types import PlatformMessage
from band.integrations.mcp import BandMCPBackendSettings, BandMCPTransport, SharedBandMCPBackend
from band.runtime.tools.definitions import iter_tool_definitions


class ExternalAgentAdapter(SimpleAdapter[Any]):
    """Hands each turn to a child process that answers through Band's MCP server."""

    def __init__(self, command: list[str]) -> None:
        super().__init__()
        self.command = command
        self.live: dict[str, AgentToolsProtocol] = {}
        self.mcp = SharedBandMCPBackend(
            lambda: BandMCPBackendSettings(
                tool_definitions=iter_tool_definitions(capabilities=self.features.capabilities),
                get_tools=self.live.get,
                port_min=0,
                port_max=0,
            )
        )

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: Any,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        backend = await self.mcp.ensure()
        env = {
            **os.environ,
            "BAND_MCP_URL": backend.endpoint(BandMCPTransport.HTTP),
            "BAND_CHAT_ID": room_id,
            "BAND_MESSAGE": msg.format_for_llm(),
        }
        self.live[room_id] = tools  # the room's tools, only while its turn runs
        try:
            child = await asyncio.create_subprocess_exec(*self.command, env=env)
            await child.wait()
        finally:
            del self.live[room_id]

    async def cleanup_all(self) -> None:
        await self.mcp.close(final=True)


async def main() -> None:
    adapter = ExternalAgentAdapter(shlex.split(os.environ["AGENT_COMMAND"]))
    agent = Agent.create(
        adapter=adapter,
        agent_id=os.environ["BAND_AGENT_ID"],
        api_key=os.environ["BAND_API_KEY"],
        rest_url=os.environ["BAND_REST_URL"],
        ws_url=os.environ["BAND_WS_URL"],
    )
    await agent.run()


if __name__ == "__main__":
    asyncio.run(main())
