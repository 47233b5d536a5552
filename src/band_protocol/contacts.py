"""Contacts, contact requests, peers and memories."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import RequestModel, WireModel


class _PartyCard(WireModel):
    """A person or an agent as the caller looks them up: who they are and whether they are
    already the caller's contact (the fields ``Peer`` and ``HandleResolved`` share)."""

    id: str
    name: str
    handle: str
    type: Literal["User", "Agent"]
    description: str | None = None
    is_contact: bool


class Peer(_PartyCard):
    online: bool
    source: Literal["registry", "contact"]


class AgentContact(WireModel):
    id: str
    handle: str
    name: str | None = None
    type: Literal["User", "Agent"]
    description: str | None = None
    online: bool
    inserted_at: str


class PartyRef(WireModel):
    """Who is at one end of a contact request."""

    id: str
    handle: str | None = None
    name: str | None = None


class ContactRequest(WireModel):
    """A contact request: ``requester_*``/``recipient_*`` for people, ``from_*``/``to_*`` for
    agents (both sets always present, so either client reads it)."""

    id: str
    status: str
    requester_id: str
    requester_type: Literal["User", "Agent"]
    requester: PartyRef | None = None
    recipient_id: str
    recipient_type: Literal["User", "Agent"]
    recipient: PartyRef | None = None
    from_id: str | None = None
    from_handle: str | None = None
    from_name: str | None = None
    to_id: str | None = None
    to_handle: str | None = None
    to_name: str | None = None
    message: str | None = None
    responded_at: str | None = None
    inserted_at: str
    updated_at: str


class ContactUser(WireModel):
    id: str
    handle: str
    name: str
    email: str | None = None


class PersonContact(WireModel):
    """A contact as a person lists it: the contact record and who it names."""

    id: str  # the contact record
    contact_id: str
    contact_type: Literal["User", "Agent"]
    handle: str
    name: str
    description: str | None = None
    user: ContactUser | None = None
    online: bool
    status: Literal["active", "removed"] = "active"  # "removed" in the answer to a removal
    source: Literal["request"] = "request"
    inserted_at: str


class ContactRequestFields(RequestModel):
    recipient_handle: str = Field(min_length=1, max_length=200)
    message: str | None = Field(default=None, max_length=500)


class ContactRequestBody(RequestModel):
    """``POST /me/contacts/requests``: ``{"contact_request": {"recipient_handle", "message"}}``.

    The older flat form ``{"handle", "message"}`` is still accepted.
    """

    contact_request: ContactRequestFields | None = None
    handle: str | None = Field(default=None, min_length=1, max_length=200)
    message: str | None = Field(default=None, max_length=500)


class ContactAddBody(RequestModel):
    handle: str = Field(min_length=1, max_length=200)
    message: str | None = Field(default=None, max_length=2000)


class ContactRemoveBody(RequestModel):
    handle: str | None = Field(default=None, max_length=200)
    contact_id: str | None = Field(default=None, max_length=200)


class ContactRespondBody(RequestModel):
    action: Literal["approve", "reject", "cancel"]
    handle: str | None = Field(default=None, max_length=200)
    request_id: str | None = Field(default=None, max_length=200)


class AgentMemory(WireModel):
    id: str
    content: str
    scope: str
    segment: str
    system: str
    type: str
    status: str
    thought: str | None = None
    subject_id: str | None = None
    metadata: dict[str, Any] = {}
    superseded_by: str | None = None
    inserted_at: str
    updated_at: str


class MemoryCreateFields(RequestModel):
    content: str = Field(min_length=1, max_length=16_384)
    system: str = Field(default="long_term", max_length=50)
    type: str = Field(default="semantic", max_length=50)
    segment: str = Field(default="user", max_length=50)
    thought: str | None = Field(default=None, max_length=16_384)
    scope: str = Field(default="subject", max_length=50)
    subject_id: str | None = Field(default=None, max_length=200)
    metadata: dict[str, Any] | None = None


class MemoryCreateBody(RequestModel):
    memory: MemoryCreateFields


class ContactAdded(WireModel):
    """``POST /agent/contacts/add``: the request made, or ``approved`` when none was needed."""

    id: str
    status: str


class ContactRemoved(WireModel):
    """``POST /agent/contacts/remove``."""

    id: str
    handle: str | None = None
    status: Literal["removed"] = "removed"


class HandleResolved(_PartyCard):
    """``POST /me/contacts/resolve``: who a handle names."""


class ContactRequestLists(WireModel):
    """``GET /agent/contacts/requests``: requests received and sent, one page of each."""

    received: list[ContactRequest]
    sent: list[ContactRequest]
