"""Tool schemas from pydantic input models, in the OpenAI and Anthropic formats."""

from __future__ import annotations

import copy
import inspect
import json
import weakref
from typing import Any

from pydantic import BaseModel

__all__ = [
    "anthropic_schema",
    "model_description",
    "model_parameters",
    "openai_schema",
    "validate_schema_format",
]

_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k not in _BOUNDS}
    if isinstance(node, list):
        return [_strip(item) for item in node]
    return node


# Generating a pydantic JSON schema is dear and tools ask for schemas every turn, so each
# model's result is kept (as JSON text: a decode is a cheap fresh deep copy).
_PARAMETERS: weakref.WeakKeyDictionary[type[BaseModel], str | dict[str, Any]] = (
    weakref.WeakKeyDictionary()
)


def _build_parameters(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema(by_alias=False)
    schema.pop("title", None)
    schema.pop("description", None)
    schema.setdefault("properties", {})
    result: dict[str, Any] = _strip(schema)
    return result


def model_parameters(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema without the top-level title and numeric bounds.

    Computed once per model class; every call returns a fresh copy the caller may mutate.
    """
    cached = _PARAMETERS.get(model)
    if cached is None:
        built = _build_parameters(model)
        try:
            cached = json.dumps(built)
        except (TypeError, ValueError):
            cached = built  # not JSON text (exotic defaults): fall back to deep copies
        _PARAMETERS[model] = cached
    if isinstance(cached, str):
        result: dict[str, Any] = json.loads(cached)
        return result
    return copy.deepcopy(cached)


def model_description(model: type[BaseModel]) -> str:
    return inspect.cleandoc(model.__doc__ or "")


def openai_schema(name: str, model: type[BaseModel]) -> dict[str, Any]:
    """``{"type": "function", "function": {name, description, parameters}}``."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": model_description(model),
            "parameters": model_parameters(model),
        },
    }


def anthropic_schema(name: str, model: type[BaseModel]) -> dict[str, Any]:
    """``{name, description, input_schema}``."""
    return {
        "name": name,
        "description": model_description(model),
        "input_schema": model_parameters(model),
    }


def validate_schema_format(format: str) -> None:
    if format not in ("openai", "anthropic"):
        raise ValueError(f"Invalid format: {format}. Must be 'openai' or 'anthropic'")
