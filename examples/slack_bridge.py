"""A Band agent that also answers in Slack: ``SlackAdapter`` around the adapter that thinks.

Socket Mode (no public URL; an app-level ``xapp-`` token with ``connections:write``)::

    SLACK_BOT_TOKEN=xoxb-... SLACK_APP_TOKEN=xapp-... OPENAI_API_KEY=... \
    BAND_AGENT_ID=... BAND_API_KEY=... BAND_REST_URL=... BAND_WS_URL=... \
    python slack_bridge.py socket

Events over HTTP (point the app's Event Subscriptions at ``https://<host>/slack/band/events``)::

    SLACK_BOT_TOKEN=xoxb-... SLACK_SIGNING_SECRET=... ... python slack_bridge.py http --port 3000

The bot needs ``app_mentions:read``, ``chat:write``, ``channels:history`` (and ``im:history``
for direct messages), ``users:read``; subscribe to ``app_mention`` and ``message.im``.
"""

from __future__ import annotations

import argparse
import asyncio
import os

from band import Agent
from band.adapters import OpenAIChatAdapter
from band.integrations.slack import SlackAdapter, SlackAdapterConfig, SlackApp


async def main() -> None:
    parser = argparse.ArgumentParser(description="A Band agent answering in Slack")
    parser.add_argument("transport", choices=["http", "socket"])
    parser.add_argument("--port", type=int, default=3000, help="the events server's port")
    args = parser.parse_args()
    app = SlackApp(
        slug="band",
        bot_token=os.environ["SLACK_BOT_TOKEN"],
        signing_secret=os.environ.get("SLACK_SIGNING_SECRET", ""),
        app_token=os.environ.get("SLACK_APP_TOKEN", ""),
    )
    slack = SlackAdapter(
        SlackAdapterConfig(apps=(app,), transport=args.transport),
        inner=OpenAIChatAdapter(os.environ.get("OPENAI_MODEL", "gpt-5.4-mini")),
    )
    agent = Agent.create(
        adapter=slack,
        agent_id=os.environ["BAND_AGENT_ID"],
        api_key=os.environ["BAND_API_KEY"],
        rest_url=os.environ["BAND_REST_URL"],
        ws_url=os.environ["BAND_WS_URL"],
    )
    if args.transport == "socket":
        await agent.run()
        return
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Mount

    web = Starlette(routes=[Mount("/slack", app=slack.router)])
    server = uvicorn.Server(uvicorn.Config(web, host="0.0.0.0", port=args.port))
    async with agent:
        await server.serve()


if __name__ == "__main__":
    asyncio.run(main())
