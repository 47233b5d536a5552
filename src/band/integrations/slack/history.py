"""A Slack thread's earlier messages as the raw history a brain's converter reads.

Slack does not send a thread's earlier messages with an event, so each turn in a thread
reads them (``conversations.replies``). The bridge's own replies become the agent's turns;
its Block Kit progress messages are left out; other bots and people are speakers.
"""

from __future__ import annotations

import logging
from typing import Any

from .types import SlackRoomBinding

__all__ = ["thread_history"]

logger = logging.getLogger("band.integrations.slack")


async def thread_history(
    slack: Any,
    binding: SlackRoomBinding,
    *,
    exclude_ts: str,
    agent_name: str,
    own_bot_id: str | None,
) -> list[dict[str, Any]]:
    """The thread's messages before ``exclude_ts`` (empty for a thread's first message)."""
    if binding.thread_ts == exclude_ts:
        return []
    try:
        answer = await slack.conversations_replies(channel=binding.channel, ts=binding.thread_ts)
    except Exception as exc:  # a missing *:history scope, a channel the bot left
        logger.warning("conversations.replies %s failed: %s", binding.channel, exc)
        return []
    raw: list[dict[str, Any]] = []
    for message in answer.get("messages") or []:
        text = str(message.get("text") or "")
        if message.get("ts") == exclude_ts or not text:
            continue
        bot = message.get("bot_id")
        own = bot is not None and bot == own_bot_id
        if own and message.get("blocks"):
            continue  # the tool-progress plan, not a reply
        if own:
            name, kind = agent_name or "agent", "Agent"
        elif bot:
            name, kind = f"slack-bot:{bot}", "User"
        else:
            name, kind = f"slack:{message.get('user') or 'user'}", "User"
        raw.append(
            {
                "role": "assistant" if own else "user",
                "content": text,
                "sender_name": name,
                "sender_type": kind,
                "message_type": "text",
                "metadata": {"slack_ts": message.get("ts"), "slack_channel_id": binding.channel},
            }
        )
    return raw
