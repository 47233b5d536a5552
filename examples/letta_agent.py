"""A Band agent whose rooms are answered by agents on a Letta server.

Self-hosted Letta (``letta server``, 0.16.x) with its own model provider configured::

    LETTA_BASE_URL=http://127.0.0.1:8283 LETTA_MODEL=openai/gpt-5.4-mini \
    LETTA_EMBEDDING=openai/text-embedding-3-small \
    BAND_AGENT_ID=... BAND_API_KEY=... BAND_REST_URL=... BAND_WS_URL=... \
    python letta_agent.py [--shared]

The Letta server calls Band's tools on the MCP server this process starts on loopback
(``LettaMCPConfig(mode="self_host")``); a Letta in a container needs
``LettaMCPConfig(bind_host="0.0.0.0", advertised_host="host.docker.internal")``, and Letta
Cloud an external Band MCP server (``mode="external", server_url=...``).
"""

from __future__ import annotations

import asyncio
import os
import sys

from band import Agent
from band.adapters.letta import LettaAdapter, LettaAdapterConfig


async def main() -> None:
    config = LettaAdapterConfig(
        mode="shared" if "--shared" in sys.argv else "per_room",
        memory_blocks=({"label": "team", "value": "We build Band, a home for agents."},),
    )
    agent = Agent.create(
        adapter=LettaAdapter(config),
        agent_id=os.environ["BAND_AGENT_ID"],
        api_key=os.environ["BAND_API_KEY"],
        rest_url=os.environ["BAND_REST_URL"],
        ws_url=os.environ["BAND_WS_URL"],
    )
    await agent.run()


if __name__ == "__main__":
    asyncio.run(main())
