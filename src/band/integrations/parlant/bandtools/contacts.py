"""The contact tools (offered with ``Capability.CONTACTS``)."""

from __future__ import annotations

from ._call import forwarding_tool

__all__ = [
    "band_add_contact",
    "band_list_contact_requests",
    "band_list_contacts",
    "band_remove_contact",
    "band_respond_contact_request",
]

band_list_contacts = forwarding_tool(
    "band_list_contacts", "listing contacts", optional=("page", "page_size")
)
band_add_contact = forwarding_tool(
    "band_add_contact", "adding contact", ("handle",), optional=("message",)
)
band_remove_contact = forwarding_tool(
    "band_remove_contact", "removing contact", optional=("handle", "contact_id")
)
band_list_contact_requests = forwarding_tool(
    "band_list_contact_requests",
    "listing contact requests",
    optional=("page", "page_size", "sent_status"),
)
band_respond_contact_request = forwarding_tool(
    "band_respond_contact_request",
    "responding to contact request",
    ("action",),
    optional=("handle", "request_id"),
)

TOOLS = (
    band_list_contacts,
    band_add_contact,
    band_remove_contact,
    band_list_contact_requests,
    band_respond_contact_request,
)
