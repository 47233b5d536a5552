"""A host on ``AgentRuntime`` (no adapter): thinks out loud, then answers through ``link.rest``.

Each message's runs are counted in ``runs.json`` beside the script, so a re-run after a crash
says something different ("(run 2)") from what the first run posted.
"""

import asyncio
import json
import logging
from pathlib import Path

from band import AgentRuntime, BandLink, ExecutionContext
from band.client.rest import ChatMessageRequest, ChatMessageRequestMentionsItem
from band.platform.event import MessageEvent, PlatformEvent
from band.runtime.config import load_agent_config, resolve_urls

RUNS = Path("runs.json")


def next_run(message_id: str) -> int:
    runs = json.loads(RUNS.read_text()) if RUNS.exists() else {}
    runs[message_id] = runs.get(message_id, 0) + 1
    RUNS.write_text(json.dumps(runs))
    return int(runs[message_id])


async def main() -> None:
    logging.basicConfig(level=logging.INFO)
    agent_id, api_key = load_agent_config("my_agent")
    ws_url, rest_url = resolve_urls(None, None)
    link = BandLink(agent_id, api_key, ws_url, rest_url)

    async def on_execute(ctx: ExecutionContext, event: PlatformEvent) -> None:
        if not isinstance(event, MessageEvent) or event.payload is None:
            return
        message = event.payload
        run = next_run(message.id)
        said = message.content.split(" ", 1)[-1]
        await link.api.post_event(ctx.room_id, f"thinking about {said} (run {run})", "thought")
        await link.rest.agent_api_messages.create_agent_chat_message(
            chat_id=ctx.room_id,
            message=ChatMessageRequest(
                content=f"got: {said} (run {run})",
                mentions=[ChatMessageRequestMentionsItem(id=message.sender_id)],
            ),
        )

    await AgentRuntime(link, agent_id, on_execute).run()


asyncio.run(main())
