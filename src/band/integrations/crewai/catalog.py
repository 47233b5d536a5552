"""The Band platform tools a crew is handed, one :class:`ToolSpec` each.

``band_tool`` registers a body as a platform tool: what CrewAI advertises (name, arguments
schema) and what the call does, with the narration every tool shares (report the call, run
the body, report the result, render the text the model reads) kept in
:meth:`ToolSpec.invoke`. Every platform tool runs through the room's own tool dispatch
(``execute_tool_call_structured``: validation, turn effects, errors as text), so CrewAI's
tools behave as every other adapter's; ``band_send_message`` may instead be delivered by
the reporter (the flow adapter's sub-crews post under reserve, send, confirm).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, field_validator

from band.core.exceptions import BandToolError
from band.core.protocols import AgentToolsProtocol
from band.runtime.custom_tools import is_failure_result
from band.runtime.tools import (
    BandTool,
    is_mcp_content_result,
    platform_args_schema,
    serialize_tool_result,
    validate_tool_arguments,
)

from .reporting import CrewAIToolReporter

__all__ = [
    "PLATFORM_TOOLS",
    "Invocation",
    "ToolSpec",
    "as_json",
    "band_tool",
    "normalize_mentions_lenient",
    "serialize_success_result",
    "succeeded",
    "text_or_success",
    "vision_sentinel",
    "without_none",
]


def serialize_success_result(result: Any) -> str:
    """``{"status": "success", ...}`` around a result; a dict's own ``status`` moves to
    ``result_status`` so the envelope's stays unambiguous."""
    result = serialize_tool_result(result)
    if not isinstance(result, dict):
        return json.dumps({"status": "success", "result": result}, default=str)
    fields = dict(result)
    own_status = fields.pop("status", None)
    envelope: dict[str, Any] = {"status": "success", **fields}
    if own_status is not None:
        envelope["result_status"] = own_status
    return json.dumps(envelope, default=str)


def as_json(result: Any) -> str:
    """A result the body already shaped, as JSON."""
    return json.dumps(result, default=str)


def vision_sentinel(result: dict[str, Any]) -> str:
    """The first image block of an MCP content result as CrewAI's ``VISION_IMAGE:`` text,
    which CrewAI's step executor turns into an image for the model."""
    block = result["content"][0]
    return f"VISION_IMAGE:{block['mimeType']}:{block['data']}"


def text_or_success(result: Any) -> str:
    """A string as it is; anything else in the success envelope."""
    return result if isinstance(result, str) else serialize_success_result(result)


def succeeded(message: str, **fields: Any) -> dict[str, Any]:
    """The success envelope of a tool whose result is that it ran."""
    return {"status": "success", "message": message, **fields}


def without_none(**fields: Any) -> dict[str, Any]:
    """The fields that have a value (the REST API refuses explicit nulls)."""
    return {name: value for name, value in fields.items() if value is not None}


def normalize_mentions_lenient(value: Any) -> list[str]:
    """Mentions as a list of handles, also from what small models send: a JSON string,
    ``"[@a, @b]"``, a bare handle."""
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return [str(item) for item in value]
    if not isinstance(value, str):
        return [str(value)]
    try:
        decoded = json.loads(value)
    except ValueError:
        decoded = None
    if isinstance(decoded, list):
        return [str(item) for item in decoded]
    parts = (part.strip().strip("'\"") for part in value.strip().strip("[]").split(","))
    return [part for part in parts if part]


@dataclass(frozen=True)
class Invocation:
    """What one call's body runs against: the room's tools and the reporter."""

    tools: AgentToolsProtocol
    reporter: CrewAIToolReporter


ToolBody = Callable[..., Awaitable[Any]]
Renderer = Callable[[Any], str]
ArgNormalizer = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class ToolSpec:
    """One platform tool: its name and schema as CrewAI shows them, and its body.

    ``declared`` holds the body's keyword arguments and defaults (None: the body takes the
    caller's arguments as they are); ``reports`` False leaves all narration to the body.
    """

    name: BandTool
    body: ToolBody
    args_schema: type[BaseModel]
    declared: dict[str, Any] | None
    render: Renderer
    reports: bool
    normalize: ArgNormalizer | None

    def arguments(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The call's arguments: declared defaults filled in, undeclared keys dropped."""
        if self.declared is None:
            return kwargs
        args = {**self.declared, **{k: v for k, v in kwargs.items() if k in self.declared}}
        return self.normalize(args) if self.normalize else args

    async def invoke(self, call: Invocation, kwargs: dict[str, Any]) -> str:
        args = self.arguments(kwargs)
        if self.reports:
            await call.reporter.report_call(call.tools, self.name, args)
            args = validate_tool_arguments(self.name, self.args_schema, args)
        result = serialize_tool_result(await self.body(call, **args))
        if self.reports:
            await call.reporter.report_result(call.tools, self.name, result)
        return self.render(result)


PLATFORM_TOOLS: list[ToolSpec] = []


def band_tool(
    name: BandTool,
    *,
    args_schema: type[BaseModel] | None = None,
    render: Renderer = serialize_success_result,
    reports: bool = True,
    normalize: ArgNormalizer | None = None,
) -> Callable[[ToolBody], ToolSpec]:
    """Register ``body`` as the platform tool ``name`` (appended to :data:`PLATFORM_TOOLS`)."""

    def register(body: ToolBody) -> ToolSpec:
        params = list(inspect.signature(body).parameters.values())[1:]
        declared = (
            None
            if any(p.kind is p.VAR_KEYWORD for p in params)
            else {p.name: p.default for p in params}
        )
        spec = ToolSpec(
            name=name,
            body=body,
            args_schema=args_schema or platform_args_schema(name),
            declared=declared,
            render=render,
            reports=reports,
            normalize=normalize,
        )
        PLATFORM_TOOLS.append(spec)
        return spec

    return register


async def _dispatch(tools: AgentToolsProtocol, name: str, args: dict[str, Any]) -> Any:
    """Run a platform tool through the room's dispatch; a failure raises BandToolError."""
    structured = getattr(tools, "execute_tool_call_structured", None)
    if structured is None:  # a tools object without outcomes: judge the value
        value = await tools.execute_tool_call(name, args)
        failed = is_failure_result(value)
    else:
        outcome = await structured(name, args)
        value, failed = outcome.value, not outcome.ok
    if failed:
        raise BandToolError(value if isinstance(value, str) else json.dumps(value, default=str))
    return value


def _lenient(name: BandTool) -> type[BaseModel]:
    check = field_validator("mentions", mode="before")(staticmethod(normalize_mentions_lenient))
    return platform_args_schema(name, validators={"lenient_mentions": check})


@band_tool(
    BandTool.SEND_MESSAGE,
    args_schema=_lenient(BandTool.SEND_MESSAGE),
    render=as_json,
    reports=False,
)
async def _send_message(call: Invocation, *, content: str = "", mentions: Any = None) -> Any:
    """Post a message, or hand it to a reporter that delivers messages itself."""
    handles = normalize_mentions_lenient(mentions)
    deliver = getattr(call.reporter, "execute_send_message", None)
    if callable(deliver):
        await deliver(call.tools, content, handles)
        return succeeded("Message sent")
    args = {"content": content, "mentions": handles}
    await call.reporter.report_call(call.tools, BandTool.SEND_MESSAGE, args)
    await _dispatch(call.tools, BandTool.SEND_MESSAGE, args)
    await call.reporter.report_result(call.tools, BandTool.SEND_MESSAGE, "success")
    return succeeded("Message sent")


@band_tool(BandTool.SEND_EVENT, render=as_json, reports=False)
async def _send_event(call: Invocation, **kwargs: Any) -> Any:
    """Post an event; not narrated (an event about an event is noise)."""
    await _dispatch(call.tools, BandTool.SEND_EVENT, kwargs)
    return succeeded("Event sent")


def _render(result: Any) -> str:
    """An image result as the vision sentinel, anything else in the success envelope."""
    if is_mcp_content_result(result):
        blocks = result["content"]
        if blocks and blocks[0].get("type") == "image":
            return vision_sentinel(result)
    return text_or_success(result)


def _register_dispatched(name: BandTool) -> None:
    async def body(call: Invocation, **kwargs: Any) -> Any:
        return await _dispatch(call.tools, name, kwargs)

    body.__name__ = f"_{name.removeprefix('band_')}"
    schema = _lenient(name) if name == BandTool.SEND_ROOM_FILE else None
    band_tool(name, args_schema=schema, render=_render)(body)


for _name in BandTool:
    if _name not in (BandTool.SEND_MESSAGE, BandTool.SEND_EVENT):
        _register_dispatched(_name)
