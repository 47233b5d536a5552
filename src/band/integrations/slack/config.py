"""``SlackAdapterConfig``: the Slack apps a ``SlackAdapter`` serves, and over which transport."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, model_validator

from band.core.adapterconfig import BaseAdapterConfig

from .block_kit import DEFAULT_WRITE_TOOL_NAMES
from .types import SlackApp

__all__ = ["SlackAdapterConfig", "SlackTransport"]

SlackTransport = Literal["http", "socket"]


class SlackAdapterConfig(BaseAdapterConfig):
    """Settings of a ``SlackAdapter`` (frozen, unknown fields rejected).

    * ``apps``: the Slack apps served (unique slugs); ``transport="http"`` needs each one's
      ``signing_secret``, ``"socket"`` its ``app_token``; both need ``bot_token``;
    * ``write_tool_names`` / ``show_tool_progress``: the live plan of tool calls in the thread;
    * ``mirror_slack_context``: post each Slack message in the room as a ``thought`` (tagged
      ``slack_mirror``), so the room's timeline shows the Slack side too.
    """

    apps: tuple[SlackApp, ...] = Field(min_length=1)
    transport: SlackTransport = "http"
    write_tool_names: frozenset[str] = DEFAULT_WRITE_TOOL_NAMES
    show_tool_progress: bool = True
    mirror_slack_context: bool = True

    @model_validator(mode="after")
    def _apps_fit_the_transport(self) -> Self:
        slugs = [app.slug for app in self.apps]
        twice = sorted({s for s in slugs if slugs.count(s) > 1})
        if twice:
            raise ValueError(f"Duplicate SlackApp slug: {', '.join(twice)}")
        token = "signing_secret" if self.transport == "http" else "app_token"
        missing = [a.slug for a in self.apps if not getattr(a, token) or not a.bot_token]
        if missing:
            raise ValueError(
                f"transport={self.transport!r} needs {token} and bot_token on every SlackApp; "
                f"missing for: {', '.join(missing)}"
            )
        return self
