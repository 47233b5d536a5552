"""``ContactTools``: the contact tools of an agent, outside any room (for CALLBACK handlers)."""

from __future__ import annotations

from typing import Any

from band.core.turn import Turn
from band.runtime.tools._social_tools import SocialTools
from band.runtime.tools.agent_tools import rest_client

__all__ = ["ContactTools"]


class ContactTools(SocialTools):
    """``list_contacts``, ``add_contact``, ``remove_contact``, ``list_contact_requests``,
    ``respond_contact_request`` (and the memory tools) over the agent's REST client."""

    def __init__(self, rest: Any) -> None:
        self.backend = rest_client(rest)
        self.turn = Turn(posts_missing_reply=False)  # no room, no reply owed
