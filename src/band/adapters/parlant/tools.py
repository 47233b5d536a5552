"""Band platform tools as Parlant tools, built fresh for each adapter.

Parlant reads a tool's parameters from its signature and type annotations at runtime,
so this module must not use ``from __future__ import annotations``. Parlant shows the
model only a generic error for a raised exception, so every failure is returned as text.
Parlant passes every argument as a string; an empty string means "omitted".
"""

import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Annotated, Any, get_args, get_origin

from band.core.exceptions import BandToolError
from band.core.types import AdapterFeatures, Capability
from band.integrations.parlant.sessiontools import NO_SESSION_TOOLS_ERROR, get_session_tools
from band.runtime.custom_tools import (
    CustomToolDef,
    execute_custom_tool,
    get_custom_tool_name,
    reject_conflicting_tool_names,
)
from band.runtime.tools.names import CHAT_TOOL_NAMES, CONTACT_TOOL_NAMES

__all__ = [
    "NO_CONTEXT_ERROR",
    "build_band_tools",
    "build_custom_tools",
    "check_custom_tools",
    "tool_names_for",
]

logger = logging.getLogger("band.adapters.parlant.tools")
NO_CONTEXT_ERROR = NO_SESSION_TOOLS_ERROR


def tool_names_for(features: AdapterFeatures) -> list[str]:
    """Names of the Band tools a guideline gets: chat, plus contacts with CONTACTS.

    Parlant's tool set has no memory tools, so ``Capability.MEMORY`` adds none.
    """
    names = sorted(CHAT_TOOL_NAMES)
    if Capability.CONTACTS in features.capabilities:
        names += sorted(CONTACT_TOOL_NAMES)
    return names


def _mentions(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _given(**values: Any) -> dict[str, Any]:
    """Drop omitted arguments (Parlant sends them as empty strings or None)."""
    return {k: v for k, v in values.items() if v not in ("", None)}


async def _run(p: Any, context: Any, name: str, args: dict[str, Any]) -> Any:
    tools = get_session_tools(str(context.session_id))
    if tools is None:
        return p.ToolResult(data=NO_CONTEXT_ERROR)
    logger.debug("[Parlant Tool] %s %r", name, args)
    try:
        result = await tools.execute_tool_call(name, args)
    except BandToolError as exc:
        result = f"Error running {name}: {exc}"
    except Exception as exc:  # the engine would hide it; the model gets the text instead
        logger.warning("Parlant tool %s failed: %s", name, exc)
        result = f"Error running {name}: {exc}"
    return p.ToolResult(data=result)


def _factories(p: Any) -> dict[str, Callable[[], Any]]:
    """One builder per tool name; each call makes a new function (entries are per adapter)."""
    ctx_t = p.ToolContext
    opt = p.ToolParameterOptions

    def send_message() -> Any:
        async def band_send_message(
            context: ctx_t,
            content: Annotated[str, opt(description="The message text to post in the room.")],
            mentions: Annotated[
                str,
                opt(description="Comma-separated handles or names of participants to mention."),
            ],
        ) -> p.ToolResult:
            """Send a message to the current Band room, mentioning at least one participant."""
            return await _run(
                p,
                context,
                "band_send_message",
                {"content": content, "mentions": _mentions(mentions)},
            )

        return band_send_message

    def send_event() -> Any:
        async def band_send_event(
            context: ctx_t,
            content: Annotated[str, opt(description="The event text.")],
            message_type: Annotated[
                str, opt(description="Kind of event: one of thought, error, task.")
            ],
        ) -> p.ToolResult:
            """Post an event (thought, error or task) to the current Band room."""
            return await _run(
                p, context, "band_send_event", {"content": content, "message_type": message_type}
            )

        return band_send_event

    def no_reply() -> Any:
        async def band_no_reply(
            context: ctx_t,
            reason: Annotated[str, opt(description="Why no reply is needed.")] = "",
        ) -> p.ToolResult:
            """Decline to answer this message when no reply is needed."""
            return await _run(p, context, "band_no_reply", _given(reason=reason))

        return band_no_reply

    def add_participant() -> Any:
        async def band_add_participant(
            context: ctx_t,
            identifier: Annotated[str, opt(description="Handle, name or id of the peer to add.")],
            role: Annotated[str, opt(description="Room role: owner, admin or member.")] = "",
        ) -> p.ToolResult:
            """Add an agent or person to the current Band room."""
            return await _run(
                p, context, "band_add_participant", _given(identifier=identifier, role=role)
            )

        return band_add_participant

    def remove_participant() -> Any:
        async def band_remove_participant(
            context: ctx_t,
            identifier: Annotated[str, opt(description="Handle, name or id to remove.")],
        ) -> p.ToolResult:
            """Remove a participant from the current Band room."""
            return await _run(p, context, "band_remove_participant", {"identifier": identifier})

        return band_remove_participant

    def lookup_peers() -> Any:
        async def band_lookup_peers(context: ctx_t) -> p.ToolResult:
            """List agents and people that can be added to the current Band room."""
            return await _run(p, context, "band_lookup_peers", {})

        return band_lookup_peers

    def get_participants() -> Any:
        async def band_get_participants(context: ctx_t) -> p.ToolResult:
            """List the participants of the current Band room."""
            return await _run(p, context, "band_get_participants", {})

        return band_get_participants

    def create_chatroom() -> Any:
        async def band_create_chatroom(
            context: ctx_t,
            task_id: Annotated[str, opt(description="Optional task to link the room to.")] = "",
        ) -> p.ToolResult:
            """Create a new Band room with this agent in it."""
            return await _run(p, context, "band_create_chatroom", _given(task_id=task_id))

        return band_create_chatroom

    def list_contacts() -> Any:
        async def band_list_contacts(context: ctx_t) -> p.ToolResult:
            """List this agent's contacts."""
            return await _run(p, context, "band_list_contacts", {})

        return band_list_contacts

    def add_contact() -> Any:
        async def band_add_contact(
            context: ctx_t,
            handle: Annotated[str, opt(description="Their handle, e.g. @alice.")],
            message: Annotated[str, opt(description="Optional note with the request.")] = "",
        ) -> p.ToolResult:
            """Send a contact request."""
            return await _run(
                p, context, "band_add_contact", _given(handle=handle, message=message)
            )

        return band_add_contact

    def remove_contact() -> Any:
        async def band_remove_contact(
            context: ctx_t,
            handle: Annotated[str, opt(description="The contact's handle.")] = "",
            contact_id: Annotated[str, opt(description="The contact's id.")] = "",
        ) -> p.ToolResult:
            """Remove a contact, by handle or id."""
            return await _run(
                p, context, "band_remove_contact", _given(handle=handle, contact_id=contact_id)
            )

        return band_remove_contact

    def list_contact_requests() -> Any:
        async def band_list_contact_requests(
            context: ctx_t,
            sent_status: Annotated[
                str,
                opt(
                    description="Sent requests to show: pending, approved, rejected, "
                    "cancelled or all."
                ),
            ] = "",
        ) -> p.ToolResult:
            """List contact requests received and sent."""
            return await _run(
                p, context, "band_list_contact_requests", _given(sent_status=sent_status)
            )

        return band_list_contact_requests

    def respond_contact_request() -> Any:
        async def band_respond_contact_request(
            context: ctx_t,
            action: Annotated[str, opt(description="One of approve, reject, cancel.")],
            handle: Annotated[str, opt(description="The other side's handle.")] = "",
            request_id: Annotated[str, opt(description="The request id.")] = "",
        ) -> p.ToolResult:
            """Approve, reject or cancel a contact request."""
            return await _run(
                p,
                context,
                "band_respond_contact_request",
                _given(action=action, handle=handle, request_id=request_id),
            )

        return band_respond_contact_request

    return {
        "band_send_message": send_message,
        "band_send_event": send_event,
        "band_no_reply": no_reply,
        "band_add_participant": add_participant,
        "band_remove_participant": remove_participant,
        "band_lookup_peers": lookup_peers,
        "band_get_participants": get_participants,
        "band_create_chatroom": create_chatroom,
        "band_list_contacts": list_contacts,
        "band_add_contact": add_contact,
        "band_remove_contact": remove_contact,
        "band_list_contact_requests": list_contact_requests,
        "band_respond_contact_request": respond_contact_request,
    }


# Tools whose effect settles the turn or acts get Parlant's stricter applicability check.
CONSEQUENTIAL = frozenset(
    {
        "band_send_message",
        "band_no_reply",
        "band_add_participant",
        "band_remove_participant",
        "band_create_chatroom",
        "band_add_contact",
        "band_remove_contact",
        "band_respond_contact_request",
    }
)


def build_band_tools(p: Any, names: Sequence[str]) -> list[Any]:
    """Parlant ``ToolEntry`` objects for ``names`` (``p`` is ``parlant.sdk``)."""
    factories = _factories(p)
    entries = []
    for name in names:
        fn = factories[name]()
        entries.append(p.tool(consequential=name in CONSEQUENTIAL)(fn))
    return entries


# -- custom tools: ``(InputModel, handler)`` pairs --------------------------------------------

RESERVED_PARAMETER = "context"


def check_custom_tools(tools: Sequence[CustomToolDef]) -> None:
    """Refuse names that shadow Band tools or repeat, and fields Parlant cannot pass."""
    reject_conflicting_tool_names(get_custom_tool_name(model) for model, _ in tools)
    for model, _ in tools:
        name = get_custom_tool_name(model)
        for field in model.model_fields:
            if field == RESERVED_PARAMETER:
                raise ValueError(
                    f"Custom tool {name!r} field 'context': 'context' is reserved for "
                    "Parlant's tool context"
                )
            if not field.isidentifier():
                raise ValueError(
                    f"Custom tool {name!r} field {field!r}: not a valid Python parameter name"
                )


def _is_collection(annotation: Any) -> bool:
    origin = get_origin(annotation)
    if origin in (list, set, tuple, frozenset):
        return True
    return any(_is_collection(arg) for arg in get_args(annotation) if arg is not type(None))


def _custom_arguments(model: Any, raw: dict[str, Any]) -> dict[str, Any]:
    """Parlant's string arguments, omitted ones dropped and collections comma-split."""
    args: dict[str, Any] = {}
    for key, value in _given(**raw).items():
        field = model.model_fields.get(key)
        if field is not None and isinstance(value, str) and _is_collection(field.annotation):
            args[key] = _mentions(value)
        else:
            args[key] = value
    return args


def _custom_tool(p: Any, tool: CustomToolDef) -> Any:
    model, _handler = tool
    name = get_custom_tool_name(model)

    async def run(context: Any, **raw: Any) -> Any:
        tools = get_session_tools(str(context.session_id))
        if tools is None:
            return p.ToolResult(data=NO_CONTEXT_ERROR)
        logger.debug("[Parlant Tool] %s %r", name, raw)
        try:
            result = await execute_custom_tool(
                tool, _custom_arguments(model, raw), turn=tools.turn, strict=False
            )
        except Exception as exc:  # the engine would hide it; the model gets the text instead
            logger.warning("Parlant custom tool %s failed: %s", name, exc)
            result = f"Error running {name}: {exc}"
        return p.ToolResult(data=result)

    # Parlant reads parameters from the signature: every field arrives as a string.
    parameters = [
        inspect.Parameter(
            RESERVED_PARAMETER, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=p.ToolContext
        )
    ]
    for field_name, field in model.model_fields.items():
        description = field.description or f"{field_name} ({_type_label(field.annotation)})"
        annotation = Annotated[str, p.ToolParameterOptions(description=description)]
        parameters.append(
            inspect.Parameter(
                field_name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                annotation=annotation,
                **({} if field.is_required() else {"default": ""}),
            )
        )
    run.__signature__ = inspect.Signature(parameters, return_annotation=p.ToolResult)  # type: ignore[attr-defined]
    run.__name__ = run.__qualname__ = name
    run.__doc__ = inspect.cleandoc(model.__doc__ or "") or f"The {name} tool."
    return p.tool(run)


def _type_label(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) or str(annotation)
    return text.replace("typing.", "")


def build_custom_tools(p: Any, tools: Sequence[CustomToolDef]) -> list[Any]:
    """Parlant ``ToolEntry`` objects for the adapter's custom tools."""
    return [_custom_tool(p, tool) for tool in tools]
