"""Running a tool by the name the model used, and the schemas the model sees."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from band.core.exceptions import BandToolError, RoomExecutionStoppedError
from band.core.turn import Turn
from band.core.types import Capability
from band.runtime.custom_tools import (
    CustomToolDef,
    custom_tools_to_schemas,
    execute_custom_tool,
    find_custom_tool,
    invalid_arguments_message,
)
from band_protocol import tracing
from band_protocol.tracing import TRACING

from .names import canonical_tool_name
from .registry import TOOL_DEFINITIONS, TOOL_MODELS
from .schema import ToolCallOutcome, serialize_tool_result
from .schemas import anthropic_schema, enabled_tool_names, openai_schema, validate_schema_format

__all__ = ["ToolCallOutcome", "ToolDispatch", "to_jsonable"]

logger = logging.getLogger("band.runtime.tools.dispatch")

# Tool name -> method name on the tools object (arguments map one to one).
METHODS: dict[str, str] = {name: TOOL_DEFINITIONS[name].method_name for name in TOOL_MODELS}


to_jsonable = serialize_tool_result


def _failed(text: str) -> ToolCallOutcome:
    return ToolCallOutcome(value=text, ok=False, error_message=text)


class ToolDispatch:
    """Mixin: schemas and ``execute_tool_call`` over the methods of a tools object."""

    turn: Turn
    custom_tools: Sequence[CustomToolDef]
    is_hub_room: bool

    def get_tool_schemas(
        self, format: str, *, capabilities: Iterable[Capability] | None = None
    ) -> list[dict[str, Any]]:
        """Band tool schemas (then custom ones) in ``"openai"`` or ``"anthropic"`` format."""
        validate_schema_format(format)
        build = openai_schema if format == "openai" else anthropic_schema
        names = enabled_tool_names(capabilities, hub_room=self.is_hub_room)
        schemas = [build(name, TOOL_MODELS[name]) for name in names]
        return schemas + custom_tools_to_schemas(self.custom_tools, format)

    def get_openai_tool_schemas(
        self, *, capabilities: Iterable[Capability] | None = None
    ) -> list[dict[str, Any]]:
        """``[{"type": "function", "function": {...}}]``; None means chat + contacts."""
        return self.get_tool_schemas("openai", capabilities=capabilities)

    def get_anthropic_tool_schemas(
        self, *, capabilities: Iterable[Capability] | None = None
    ) -> list[dict[str, Any]]:
        """``[{"name", "description", "input_schema"}]``; None means chat + contacts."""
        return self.get_tool_schemas("anthropic", capabilities=capabilities)

    def _note_tool_call(self, tool_name: str, arguments: Mapping[str, Any]) -> None:
        """Hook for recorders (the testing fake); no-op here."""

    async def execute_tool_call(self, tool_name: str, arguments: Mapping[str, Any]) -> Any:
        """Run a tool; return its result, or the error text for the model.

        Invalid arguments, unknown tools and unexpected failures come back as text;
        ``BandToolError`` and ``RoomExecutionStoppedError`` are raised.
        """
        outcome = await self.execute_tool_call_structured(tool_name, arguments)
        return outcome.value

    async def execute_tool_call_structured(
        self, tool_name: str, arguments: Mapping[str, Any] | None
    ) -> ToolCallOutcome:
        """Like ``execute_tool_call`` but says whether the call succeeded."""
        if TRACING.on:  # a span per tool call, around its REST requests
            with tracing.span(f"band.tool {tool_name}", attributes={"band.tool": tool_name}):
                return await self._execute(tool_name, arguments)
        return await self._execute(tool_name, arguments)

    async def _execute(
        self, tool_name: str, arguments: Mapping[str, Any] | None
    ) -> ToolCallOutcome:
        args = dict(arguments or {})
        self._note_tool_call(tool_name, args)
        name = canonical_tool_name(tool_name)
        model = TOOL_MODELS.get(name)
        if model is None:
            custom = find_custom_tool(self.custom_tools, tool_name)
            if custom is None:
                return _failed(f"Unknown tool: {tool_name}")
            return await self._run_custom(tool_name, custom, args)
        try:
            validated = model.model_validate(args)
        except ValidationError as exc:
            return _failed(invalid_arguments_message(name, exc, separator=", "))
        method = getattr(self, METHODS[name])
        try:
            result = await method(**validated.model_dump(exclude_none=True))
        except (BandToolError, RoomExecutionStoppedError):
            raise
        except Exception as exc:
            logger.debug("Tool %s failed", name, exc_info=True)
            return _failed(f"Error executing {name}: {exc}")
        return ToolCallOutcome(value=to_jsonable(result), ok=True)

    async def _run_custom(
        self, name: str, tool: CustomToolDef, args: dict[str, Any]
    ) -> ToolCallOutcome:
        try:
            result = await execute_custom_tool(tool, args, turn=self.turn)
        except (BandToolError, RoomExecutionStoppedError):
            raise
        except ValueError as exc:
            return _failed(str(exc))
        except Exception as exc:
            return _failed(f"Error executing {name}: {exc}")
        return ToolCallOutcome(value=to_jsonable(result), ok=True)
