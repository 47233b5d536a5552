"""The contact tools (offered with ``Capability.CONTACTS``)."""

from __future__ import annotations

from .._parlant import ToolContext, ToolResult
from ..bandtool import band_tool
from ._call import run_band_tool

__all__ = [
    "band_add_contact",
    "band_list_contact_requests",
    "band_list_contacts",
    "band_remove_contact",
    "band_respond_contact_request",
]


@band_tool("listing contacts")
async def band_list_contacts(
    context: ToolContext, page: str = "", page_size: str = ""
) -> ToolResult:
    return await run_band_tool(context, "band_list_contacts", page=page, page_size=page_size)


@band_tool("adding contact")
async def band_add_contact(context: ToolContext, handle: str, message: str = "") -> ToolResult:
    return await run_band_tool(context, "band_add_contact", handle=handle, message=message)


@band_tool("removing contact")
async def band_remove_contact(
    context: ToolContext, handle: str = "", contact_id: str = ""
) -> ToolResult:
    return await run_band_tool(context, "band_remove_contact", handle=handle, contact_id=contact_id)


@band_tool("listing contact requests")
async def band_list_contact_requests(
    context: ToolContext, page: str = "", page_size: str = "", sent_status: str = ""
) -> ToolResult:
    return await run_band_tool(
        context,
        "band_list_contact_requests",
        page=page,
        page_size=page_size,
        sent_status=sent_status,
    )


@band_tool("responding to contact request")
async def band_respond_contact_request(
    context: ToolContext, action: str, handle: str = "", request_id: str = ""
) -> ToolResult:
    return await run_band_tool(
        context,
        "band_respond_contact_request",
        action=action,
        handle=handle,
        request_id=request_id,
    )


TOOLS = (
    band_list_contacts,
    band_add_contact,
    band_remove_contact,
    band_list_contact_requests,
    band_respond_contact_request,
)
