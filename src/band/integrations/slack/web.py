"""The Slack Web API calls ``SlackAdapter`` makes beside its replies: the "is thinking…"
status on a thread, a user's display name, the default ``AsyncWebClient``."""

from __future__ import annotations

import logging
from typing import Any

from .types import SlackApp, SlackRoomBinding

__all__ = ["STATUS_THINKING", "ThinkingStatus", "default_web_client", "user_name"]

logger = logging.getLogger("band.integrations.slack")
STATUS_THINKING = "is thinking…"


class ThinkingStatus:
    """Slack's "is thinking…" status on the thread while the brain works (best effort:
    ``assistant.threads.setStatus`` exists only in Slack's assistant pane)."""

    def __init__(self, slack: Any, binding: SlackRoomBinding) -> None:
        self._slack, self._binding = slack, binding

    async def __aenter__(self) -> None:
        await self._set(STATUS_THINKING)

    async def __aexit__(self, *exc: object) -> None:
        await self._set("")

    async def _set(self, status: str) -> None:
        try:
            await self._slack.assistant_threads_setStatus(
                channel_id=self._binding.channel, thread_ts=self._binding.thread_ts, status=status
            )
        except Exception as exc:
            logger.debug("assistant.threads.setStatus failed: %s", exc)


def default_web_client(app: SlackApp) -> Any:
    from slack_sdk.web.async_client import AsyncWebClient

    return AsyncWebClient(token=app.bot_token)


async def user_name(slack: Any, user: str) -> str:
    """The Slack user's display name (best effort; ``users:read`` may be missing)."""
    if not user:
        return ""
    try:
        answer = await slack.users_info(user=user)
    except Exception as exc:
        logger.debug("users.info %s failed: %s", user, exc)
        return ""
    profile = (answer.get("user") or {}).get("profile") or {}
    return str(profile.get("display_name") or profile.get("real_name") or user)
