"""A tool's input model in the shapes adapters consume, and the results they hand back.

The description (the model's docstring) and a Google-style ``Args:`` section (each field's
description), a framework's ``args_schema``, ``@platform_tool`` for frameworks that read a
function's docstring, argument validation, and how a result becomes JSON or text.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model

from band.core.exceptions import InvalidToolArgumentsError
from band.core.tool_filter import sanitize_tool_schema

from .registry import TOOL_MODELS

__all__ = [
    "ToolCallOutcome",
    "ToolFunc",
    "docstring_with_args",
    "format_arg_doc",
    "format_tool_validation_error",
    "get_tool_description",
    "get_tool_docstring_with_args",
    "is_failed_tool_output",
    "platform_args_schema",
    "platform_tool",
    "resolve_tool_model",
    "serialize_tool_result",
    "tool_result_text",
    "validate_tool_arguments",
]

_JSON = TypeAdapter(Any, config=ConfigDict(ser_json_bytes="base64"))  # bytes as base64
ToolFunc = TypeVar("ToolFunc", bound=Callable[..., Any])


def resolve_tool_model(name: str) -> type[BaseModel] | None:
    """The input model of a tool (the old unprefixed spelling too)."""
    return TOOL_MODELS.get(name) or TOOL_MODELS.get(f"band_{name}")


def get_tool_description(name: str) -> str:
    """The description the model reads (an unprefixed name warns: it is deprecated)."""
    model = resolve_tool_model(name)
    if model is None or not model.__doc__:
        return f"Execute {name}"
    if name not in TOOL_MODELS:
        warnings.warn(
            f"Tool name '{name}' is deprecated. Use 'band_{name}' instead.",
            DeprecationWarning,
            stacklevel=2,
        )
    return model.__doc__


def format_arg_doc(name: str, description: str) -> str:
    """One ``Args:`` entry; continuation lines indented so they stay with the argument."""
    head, *rest = description.strip().splitlines()
    return "\n".join([f"    {name}: {head}", *(f"        {line.strip()}" for line in rest)])


def docstring_with_args(description: str, model: type[BaseModel]) -> str:
    """``description`` plus an ``Args:`` section of the model's described fields."""
    lines = [
        format_arg_doc(name, field.description)
        for name, field in model.model_fields.items()
        if field.description and field.description.strip()
    ]
    return f"{description.rstrip()}\n\nArgs:\n" + "\n".join(lines) if lines else description


def get_tool_docstring_with_args(name: str) -> str:
    """A tool's description with its ``Args:`` section."""
    description = get_tool_description(name)
    model = resolve_tool_model(name)
    return description if model is None else docstring_with_args(description, model)


def platform_tool(fn: ToolFunc) -> ToolFunc:
    """Give an async tool function (named after its tool) the tool's docstring, and turn
    its result into JSON-ready data."""

    @wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        return serialize_tool_result(await fn(*args, **kwargs))

    wrapper.__doc__ = get_tool_docstring_with_args(fn.__name__)
    return cast(ToolFunc, wrapper)


class _SanitizedSchema(BaseModel):
    """Its JSON schema is scrubbed like every other tool schema (``const`` -> ``enum``)."""

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        schema: dict[str, Any] = sanitize_tool_schema(super().model_json_schema(*args, **kwargs))
        return schema


def platform_args_schema(name: str, *, validators: dict[str, Any] | None = None) -> type[BaseModel]:
    """A tool's input model as a framework's args schema (KeyError for an unknown tool).

    ``validators`` adds pydantic validators on a subclass, for frameworks that send values
    the model is too strict for.
    """
    model = resolve_tool_model(name)
    if model is None:
        raise KeyError(name)
    if validators:
        model = create_model(
            f"{model.__name__}Adapted",
            __base__=model,
            __doc__=model.__doc__,
            __validators__=validators,
        )
    return type(model.__name__, (_SanitizedSchema, model), {"__doc__": model.__doc__})


def format_tool_validation_error(tool_name: str, error: ValidationError) -> str:
    """``Invalid arguments for <tool>: <field>: <message>, ...`` for the model to read."""
    parts = [f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in error.errors()]
    return f"Invalid arguments for {tool_name}: {', '.join(parts)}"


def validate_tool_arguments(
    tool_name: str, input_model: type[BaseModel], arguments: dict[str, Any]
) -> dict[str, Any]:
    """The validated arguments (None left out); ``InvalidToolArgumentsError`` when refused."""
    try:
        validated = input_model.model_validate(arguments)
    except ValidationError as error:
        raise InvalidToolArgumentsError(format_tool_validation_error(tool_name, error)) from error
    return validated.model_dump(exclude_none=True)


@dataclass(frozen=True)
class ToolCallOutcome:
    """A dispatched call's result: ``value`` for the model (the error text on failure)."""

    value: Any
    ok: bool
    error_message: str | None = None


def is_failed_tool_output(output: Any) -> bool:
    """A structured ``ok: false`` answer, or an ``Error: ...`` text."""
    if isinstance(output, Mapping):
        return output.get("ok") is False
    if isinstance(output, str):
        return output.lower().startswith(("error:", "error executing "))
    return False


def serialize_tool_result(result: Any) -> Any:
    """A tool method's return as JSON-ready data: models become dicts (bytes as base64),
    through lists and dicts."""
    if isinstance(result, BaseModel):
        return _JSON.dump_python(result.model_dump(), mode="json")
    if isinstance(result, list | tuple):
        return [serialize_tool_result(item) for item in result]
    if isinstance(result, dict):
        return {k: serialize_tool_result(v) for k, v in result.items()}
    return result


def tool_result_text(result: Any) -> str:
    """A tool result as text: a string as it is, anything else as JSON."""
    if isinstance(result, str):
        return result
    plain = _JSON.dump_python(serialize_tool_result(result))
    return json.dumps(_JSON.dump_python(plain, mode="json", fallback=str))
