"""Band room tools as LangChain tools, for LangGraph agents and other LangChain code.

Build them per message, because ``tools`` is bound to the room of the current message::

    lc_tools = agent_tools_to_langchain(tools, features=adapter.features)
    graph = create_my_graph(llm.bind_tools(lc_tools), lc_tools)

Each tool routes its call back through :func:`band.adapters._tool_events.run_band_tool`, so
validation, turn effects and error text are those of every other adapter. A failed call
raises ``ToolException`` inside LangChain, which turns it into an error ``ToolMessage``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from band._extras import needs_extra
from band.core.protocols import AgentToolsProtocol
from band.core.turn import Turn
from band.core.types import AdapterFeatures, Capability
from band.runtime.custom_tools import CustomToolDef, custom_tool_to_openai_schema

with needs_extra("band.integrations.langgraph needs LangChain", "langgraph"):
    from langchain_core.tools import StructuredTool, ToolException

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

__all__ = [
    "agent_tools_to_langchain",
    "custom_tool_def_to_langchain",
    "schemas_to_langchain",
]


def _override(
    capabilities: set[Capability], capability: Capability, value: bool | None, name: str
) -> None:
    if value is None:
        return
    warnings.warn(
        f"{name}= is deprecated; pass features=AdapterFeatures(capabilities=...) instead",
        DeprecationWarning,
        stacklevel=3,
    )
    if value:
        capabilities.add(capability)
    else:
        capabilities.discard(capability)


def agent_tools_to_langchain(
    tools: AgentToolsProtocol,
    *,
    features: AdapterFeatures | None = None,
    include_memory_tools: bool | None = None,
    include_contacts: bool | None = None,
) -> list[StructuredTool]:
    """One ``StructuredTool`` per Band tool the room offers for ``features.capabilities``.

    Without ``features`` the room's default set applies (chat + contacts). The two bool
    keywords are deprecated overrides of the MEMORY and CONTACTS capabilities. A hub room
    always adds the contact tools (the room decides that, not this function).
    """
    capabilities: set[Capability] | None = None
    if features is not None or include_memory_tools is not None or include_contacts is not None:
        base = features.capabilities if features is not None else {Capability.CONTACTS}
        capabilities = set(base)
        _override(capabilities, Capability.MEMORY, include_memory_tools, "include_memory_tools")
        _override(capabilities, Capability.CONTACTS, include_contacts, "include_contacts")
    schemas = tools.get_openai_tool_schemas(capabilities=capabilities)
    return schemas_to_langchain(tools, schemas)


def schemas_to_langchain(
    tools: AgentToolsProtocol,
    schemas: Sequence[dict[str, Any]],
    custom_tools: Sequence[CustomToolDef] = (),
) -> list[StructuredTool]:
    """LangChain tools for OpenAI-format ``schemas`` run via ``tools``, then ``custom_tools``
    (their effects recorded on the room's turn)."""
    band = [_band_tool(tools, s["function"]) for s in schemas]
    return [*band, *(custom_tool_def_to_langchain(t, turn=tools.turn) for t in custom_tools)]


def custom_tool_def_to_langchain(tool_def: CustomToolDef, *, turn: Turn | None) -> StructuredTool:
    """A custom tool ``(InputModel, handler)`` as a LangChain tool.

    Its schema is the model's, its description the model's docstring; a call validates the
    arguments and runs the handler, recording its declared effect on ``turn`` (None: a tool
    not bound to a room). A failure reaches the model as an error ``ToolMessage``.
    """
    from band.adapters._tool_events import run_custom_tool

    spec = custom_tool_to_openai_schema(tool_def[0])["function"]
    return _structured(spec, lambda arguments: run_custom_tool(tool_def, arguments, turn))


def _band_tool(tools: AgentToolsProtocol, spec: dict[str, Any]) -> StructuredTool:
    # Imported here: the shared helpers live with the adapters, which import this module.
    from band.adapters._tool_events import run_band_tool

    name: str = spec["name"]
    return _structured(spec, lambda arguments: run_band_tool(tools, name, arguments))


def _structured(
    spec: dict[str, Any], run: Callable[[dict[str, Any]], Awaitable[tuple[str, bool]]]
) -> StructuredTool:
    """A ``StructuredTool`` for ``spec`` whose call runs ``run(arguments)``; an error output
    reaches the model as a ``ToolException``."""

    async def coroutine(**arguments: Any) -> str:
        output, is_error = await run(arguments)
        if is_error:
            raise ToolException(output)
        return output

    return StructuredTool(
        name=spec["name"],
        description=spec.get("description") or spec["name"],
        args_schema=spec.get("parameters") or {"type": "object", "properties": {}},
        coroutine=coroutine,
        handle_tool_error=True,
    )
