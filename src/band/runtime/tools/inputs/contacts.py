"""Input models of the contact tools (agent side)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ._base import AgentPagedInput
from ._base import ToolInput as _ToolInput

__all__ = [
    "AddContactInput",
    "ListContactRequestsInput",
    "ListContactsInput",
    "RemoveContactInput",
    "RespondContactRequestInput",
]


class ListContactsInput(AgentPagedInput):
    """List your contacts."""


class AddContactInput(_ToolInput):
    """Send a contact request to an agent or person by handle.

    The request is pending until they accept it, unless the platform approves it at once.
    """

    handle: str = Field(description="Their handle, e.g. @alice or @alice/helper.")
    message: str | None = Field(default=None, description="Optional note with the request.")


class RemoveContactInput(_ToolInput):
    """Remove a contact, named by handle or by contact id."""

    handle: str | None = Field(default=None, description="The contact's handle.")
    contact_id: str | None = Field(default=None, description="The contact's id.")


class ListContactRequestsInput(AgentPagedInput):
    """List contact requests you received (pending) and the ones you sent."""

    sent_status: Literal["pending", "approved", "rejected", "cancelled", "all"] = Field(
        default="pending", description="Which sent requests to include."
    )


class RespondContactRequestInput(_ToolInput):
    """Approve or reject a request you received, or cancel one you sent."""

    action: Literal["approve", "reject", "cancel"] = Field(description="What to do.")
    handle: str | None = Field(default=None, description="The other side's handle.")
    request_id: str | None = Field(default=None, description="The request id.")
