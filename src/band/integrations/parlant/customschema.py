"""What Parlant is told about a custom tool's fields, and how their text arrives back.

How it works: docs/internals/sdk.md, "Parlant: custom tool fields".

Parameters are advertised with their own types but received as text, validated by the input
model; unsupported shapes are refused when the adapter is built. Nothing here imports Parlant.
"""

from __future__ import annotations

import ast
import inspect
import json
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, NamedTuple, TypedDict

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from band.runtime.custom_tools import (
    CustomToolDef,
    custom_tool_to_openai_schema,
    get_custom_tool_name,
    reject_conflicting_tool_names,
)

__all__ = [
    "CustomToolField",
    "Descriptor",
    "JsonType",
    "ParlantCustomTool",
    "ParlantSchema",
    "ParlantType",
    "check_parlant_custom_tools",
    "describe_custom_tool",
    "parse_delivered",
]

CONTEXT_PARAMETER = "context"  # Parlant's own first parameter: no field may take it
_ENUM_MARK = "x-band-enum"  # set on choices that come from an Enum class (not a Literal)
_NARROWING = frozenset({"format", "pattern", "enum", "const"})
UNSUPPORTED = (
    "Parlant cannot be told about this field's type: choices must be strings, and a plain "
    "str may share a union only with str Literals (see band.integrations.parlant.customschema)"
)


class ParlantType(StrEnum):
    """The parameter types Parlant offers that a custom tool field is advertised as."""

    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ARRAY = "array"
    DATE = "date"
    DATETIME = "datetime"


class JsonType(StrEnum):
    """The JSON schema ``type`` values pydantic writes for a field."""

    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ARRAY = "array"
    NULL = "null"


class Descriptor(TypedDict, total=False):
    """A Parlant parameter descriptor (``ToolParameterDescriptor``'s keys)."""

    type: ParlantType
    item_type: ParlantType
    enum: list[str]
    description: str


class CustomToolField(NamedTuple):
    """One field: the ``str`` parameter Parlant passes it by, and what it advertises."""

    parameter: inspect.Parameter
    descriptor: Descriptor


class ParlantCustomTool(NamedTuple):
    """A custom tool as Parlant offers it."""

    name: str
    description: str
    fields: list[CustomToolField]


class ParlantSchema(GenerateJsonSchema):
    """pydantic's JSON schema, with an Enum's choices told apart from a Literal's."""

    def enum_schema(self, schema: core_schema.EnumSchema) -> JsonSchemaValue:
        return {**super().enum_schema(schema), _ENUM_MARK: True}


_SCALARS = {
    JsonType.STRING: ParlantType.STRING,
    JsonType.INTEGER: ParlantType.INTEGER,
    JsonType.NUMBER: ParlantType.NUMBER,
    JsonType.BOOLEAN: ParlantType.BOOLEAN,
}
_FORMATS = {"date": ParlantType.DATE, "date-time": ParlantType.DATETIME}


def check_parlant_custom_tools(tools: Iterable[CustomToolDef]) -> None:
    """ValueError for a name clash or a field Parlant cannot be told about."""
    models = [model for model, _ in tools]
    reject_conflicting_tool_names(get_custom_tool_name(model) for model in models)
    for model in models:
        describe_custom_tool(model)


def describe_custom_tool(input_model: type[BaseModel]) -> ParlantCustomTool:
    """The tool's name and description (as every adapter offers them) and its fields."""
    function = custom_tool_to_openai_schema(input_model)["function"]
    schema = input_model.model_json_schema(schema_generator=ParlantSchema)
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))
    fields = [
        _field(name, prop, defs, name in required, f"Custom tool {function['name']!r} field")
        for name, prop in schema.get("properties", {}).items()
    ]
    return ParlantCustomTool(function["name"], function.get("description", ""), fields)


def parse_delivered(
    arguments: Mapping[str, Any], fields: Iterable[CustomToolField]
) -> dict[str, Any]:
    """The arguments as Parlant delivered them, each list field's text read as a list."""
    lists = {f.parameter.name for f in fields if f.descriptor["type"] == ParlantType.ARRAY}
    return {
        name: _list_text(value) if name in lists and isinstance(value, str) else value
        for name, value in arguments.items()
    }


def _list_text(text: str) -> Any:
    """JSON, or the Python list text the engine writes, else comma-separated items (how a
    model most often writes a short list as text)."""
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(text)
        except (ValueError, SyntaxError, TypeError):
            continue
        if isinstance(value, list | tuple | set):
            return value
    return [part.strip() for part in text.split(",") if part.strip()]


def _field(
    name: str, prop: Mapping[str, Any], defs: Mapping[str, Any], required: bool, where: str
) -> CustomToolField:
    where = f"{where} {name!r}"
    if name == CONTEXT_PARAMETER:
        raise ValueError(f"{where}: 'context' is reserved for Parlant's tool context")
    shape = _unwrap(prop, defs)
    descriptor = _describe(shape, defs)
    if descriptor is None:
        raise ValueError(f"{where}: {UNSUPPORTED}")
    items = _unwrap(shape.get("items", {}), defs)
    text = prop.get("description") or shape.get("description") or items.get("description")
    if text:
        descriptor["description"] = text
    try:
        parameter = inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=str,
            default=inspect.Parameter.empty if required else None,
        )
    except ValueError as exc:
        raise ValueError(f"{where}: not a valid Python parameter name") from exc
    return CustomToolField(parameter, descriptor)


def _unwrap(prop: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    """``prop`` with references followed and ``Optional`` dropped."""
    ref = prop.get("$ref")
    if ref:
        return _unwrap(defs[ref.rsplit("/", 1)[-1]], defs)
    branches = _not_null(prop.get("anyOf", ()))
    return _unwrap(branches[0], defs) if len(branches) == 1 else prop


def _not_null(branches: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [b for b in branches if b != {"type": JsonType.NULL}]


def _describe(shape: Mapping[str, Any], defs: Mapping[str, Any]) -> Descriptor | None:
    if shape.get("type") == JsonType.ARRAY and isinstance(shape.get("items"), Mapping):
        item = _scalar(_unwrap(shape["items"], defs), defs)
        if item is None:
            return None
        listed = Descriptor(type=ParlantType.ARRAY, item_type=item["type"])
        if "enum" in item:
            listed["enum"] = item["enum"]
        return listed
    return _scalar(shape, defs)


def _scalar(shape: Mapping[str, Any], defs: Mapping[str, Any]) -> Descriptor | None:
    if "const" in shape:
        return _choices([shape["const"]])
    if "enum" in shape:
        return _choices(shape["enum"])
    kind, fmt = shape.get("type"), shape.get("format")
    if kind == JsonType.STRING and fmt in _FORMATS:
        return Descriptor(type=_FORMATS[fmt])
    if isinstance(kind, str) and kind in _SCALARS:
        return Descriptor(type=_SCALARS[JsonType(kind)])
    if "anyOf" in shape:
        return _union([_unwrap(b, defs) for b in _not_null(shape["anyOf"])], defs)
    return None


def _union(members: list[Mapping[str, Any]], defs: Mapping[str, Any]) -> Descriptor | None:
    """Text tried against each member in turn: a free ``str`` member is allowed only beside
    str Literals (it would take every text first); all-choices unions offer every choice."""
    if any(_free_text(m) for m in members) and not all(_stays_text(m) for m in members):
        return None
    described = [_scalar(m, defs) for m in members]
    if any(d is None for d in described):
        return None
    if all(d is not None and "enum" in d for d in described):
        return _choices(c for d in described if d is not None for c in d["enum"])
    return Descriptor(type=ParlantType.STRING)


def _free_text(shape: Mapping[str, Any]) -> bool:
    return shape.get("type") == JsonType.STRING and _NARROWING.isdisjoint(shape)


def _stays_text(shape: Mapping[str, Any]) -> bool:
    literal = not shape.get(_ENUM_MARK) and not {"const", "enum"}.isdisjoint(shape)
    return _free_text(shape) or literal


def _choices(values: Iterable[Any]) -> Descriptor | None:
    """String choices (``None`` is how Parlant omits a value, not a choice)."""
    sent = [v for v in values if v is not None]
    if not sent or not all(isinstance(v, str) for v in sent):
        return None
    return Descriptor(type=ParlantType.STRING, enum=list(dict.fromkeys(sent)))
