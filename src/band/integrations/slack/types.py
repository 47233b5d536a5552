"""Slack apps the bridge serves, and the Slack thread a Band room mirrors."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SlackApp", "SlackRoomBinding", "SlackSessionState"]


class SlackApp(BaseModel):
    """One Slack app (one bot user) the bridge serves.

    ``slug`` names its HTTP route (``/<slug>/events``); ``bot_token`` (``xoxb-``) posts its
    replies; ``signing_secret`` checks its HTTP events; ``app_token`` (``xapp-``) opens its
    Socket Mode connection. Which of the last two is required depends on the transport.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    slug: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    bot_token: str = Field(repr=False)
    signing_secret: str = Field(default="", repr=False)
    app_token: str = Field(default="", repr=False)


@dataclass(frozen=True)
class SlackRoomBinding:
    """The Slack thread a Band room mirrors: whose app, which channel, which thread."""

    app_slug: str
    channel: str
    thread_ts: str


@dataclass
class SlackSessionState:
    """What a room's history says about its Slack thread (None: not a bridged room)."""

    binding: SlackRoomBinding | None = None
