"""Input models of the contact tools (agent side)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ._base import ToolInput as _ToolInput

__all__ = [
    "AddContactInput",
    "ListContactRequestsInput",
    "ListContactsInput",
    "RemoveContactInput",
    "RespondContactRequestInput",
]


class ListContactsInput(_ToolInput):
    """List your contacts."""

    page: int = Field(default=1, ge=1, description="Page number, from 1.")
    page_size: int = Field(default=50, ge=1, le=100, description="Entries per page.")


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


class ListContactRequestsInput(_ToolInput):
    """List contact requests you received (pending) and the ones you sent."""

    page: int = Field(default=1, ge=1, description="Page number, from 1.")
    page_size: int = Field(default=50, ge=1, le=100, description="Entries per page.")
    sent_status: Literal["pending", "approved", "rejected", "cancelled", "all"] = Field(
        default="pending", description="Which sent requests to include."
    )


class RespondContactRequestInput(_ToolInput):
    """Approve or reject a request you received, or cancel one you sent."""

    action: Literal["approve", "reject", "cancel"] = Field(description="What to do.")
    handle: str | None = Field(default=None, description="The other side's handle.")
    request_id: str | None = Field(default=None, description="The request id.")
