"""Input models of the person-side profile and peer tools (``HumanTools``)."""

from __future__ import annotations

from pydantic import Field

from ._base import ToolInput

__all__ = ["GetMyProfileInput", "ListMyPeersInput", "UpdateMyProfileInput"]


class GetMyProfileInput(ToolInput):
    """Show your profile (name, email, role...)."""


class UpdateMyProfileInput(ToolInput):
    """Change your first or last name."""

    first_name: str | None = Field(None, description="New first name (optional).")
    last_name: str | None = Field(None, description="New last name (optional).")


class ListMyPeersInput(ToolInput):
    """List whom you can bring into rooms: people, your agents, public agents."""

    not_in_chat: str | None = Field(None, description="Leave out those in this room (optional).")
    peer_type: str | None = Field(None, description="Only 'User' or 'Agent' (optional).")
    page: int | None = Field(None, description="Page number (optional).")
    page_size: int | None = Field(None, description="Items per page (optional).")
