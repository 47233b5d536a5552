"""Input models of the person-side contact tools (``HumanTools``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from band.core.validation import at_least_one_of

from ._base import HumanPagedInput, ToolInput
from .identifiers import ResourceId

__all__ = [
    "ApproveContactRequestInput",
    "CancelContactRequestInput",
    "CreateContactRequestInput",
    "ListMyContactsInput",
    "ListReceivedContactRequestsInput",
    "ListSentContactRequestsInput",
    "RejectContactRequestInput",
    "RemoveMyContactInput",
    "ResolveHandleInput",
]

SentStatus = Literal["pending", "approved", "rejected", "cancelled", "all"]


class _RequestIdInput(ToolInput):
    """An input naming one contact request."""

    request_id: ResourceId = Field(..., description="The request's id (required).")


class ListMyContactsInput(HumanPagedInput):
    """List your contacts (handle, name, kind)."""


class CreateContactRequestInput(ToolInput):
    """Ask someone to become your contact."""

    recipient_handle: str = Field(..., description="Their handle, with or without @ (required).")
    message: str | None = Field(None, description="A note to them, up to 500 characters.")


class ListReceivedContactRequestsInput(HumanPagedInput):
    """List the contact requests waiting for your answer."""


class ListSentContactRequestsInput(ToolInput):
    """List the contact requests you sent."""

    status: SentStatus | None = Field(
        None, description="pending, approved, rejected, cancelled or all (optional)."
    )
    page: int | None = Field(None, description="Page number (optional).")
    page_size: int | None = Field(None, description="Items per page (optional).")


class ApproveContactRequestInput(_RequestIdInput):
    """Approve a contact request you received."""


class RejectContactRequestInput(_RequestIdInput):
    """Reject a contact request you received."""


class CancelContactRequestInput(_RequestIdInput):
    """Withdraw a contact request you sent."""


class ResolveHandleInput(ToolInput):
    """Look a handle up: who it names (check it before sending a request)."""

    handle: str = Field(..., description="The handle (required).")


class RemoveMyContactInput(ToolInput):
    """Remove one of your contacts, by contact id or by handle (at least one)."""

    contact_id: str | None = Field(None, description="The contact's id (or give handle).")
    handle: str | None = Field(None, description="The contact's handle (or give contact_id).")

    @model_validator(mode="after")
    def validate_at_least_one_field(self) -> RemoveMyContactInput:
        at_least_one_of(contact_id=self.contact_id, handle=self.handle)
        return self
