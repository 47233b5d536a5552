"""A2A both ways: a remote A2A agent as a Band agent, or Band agents served to A2A clients.

    # the A2A agent at REMOTE_URL joins Band as the agent BAND_AGENT_ID
    python a2a_bridge.py remote https://currency-agent.example.com

    # every peer of the gateway agent becomes an A2A agent at
    # http://localhost:10000/agents/<peer-slug>/.well-known/agent-card.json
    python a2a_bridge.py gateway --port 10000

Both read BAND_AGENT_ID, BAND_API_KEY, BAND_REST_URL and BAND_WS_URL
(``pip install 'openband[a2a]'``, or ``'openband[a2a_gateway]'`` for the gateway).
"""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

from band import Agent


def adapter_for(args: argparse.Namespace) -> Any:
    if args.mode == "remote":
        from band.integrations.a2a import A2AAdapter, A2AAdapterConfig, A2AAuth

        token = os.environ.get("A2A_BEARER_TOKEN")
        auth = A2AAuth(bearer_token=token) if token else None
        return A2AAdapter(A2AAdapterConfig(remote_url=args.url, auth=auth))
    from band.integrations.a2a.gateway import A2AGatewayAdapter, A2AGatewayAdapterConfig

    return A2AGatewayAdapter(A2AGatewayAdapterConfig(port=args.port, gateway_url=args.public_url))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    modes = parser.add_subparsers(dest="mode", required=True)
    remote = modes.add_parser("remote", help="a remote A2A agent as a Band agent")
    remote.add_argument("url", help="the A2A agent's base URL")
    gateway = modes.add_parser("gateway", help="Band peers served to A2A clients")
    gateway.add_argument("--port", type=int, default=10000, help="where to listen")
    gateway.add_argument("--public-url", default=None, help="the URL clients reach it at")
    agent = Agent.create(
        adapter=adapter_for(parser.parse_args()),
        agent_id=os.environ["BAND_AGENT_ID"],
        api_key=os.environ["BAND_API_KEY"],
        rest_url=os.environ["BAND_REST_URL"],
        ws_url=os.environ["BAND_WS_URL"],
    )
    await agent.run()


if __name__ == "__main__":
    asyncio.run(main())
