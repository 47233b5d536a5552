"""Custom tools: ``(InputModel, handler)`` pairs an adapter offers next to the Band tools.

The tool name is the model's class name without a trailing ``Input``, lowercased; the
description is the model's docstring. A handler declares its turn effect with
``@declares_turn_effect(TurnEffect.ACT)`` (or the older ``band_terminal = True``);
undeclared tools count as OBSERVE.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from band.core.exceptions import InvalidToolArgumentsError
from band.core.turn import Turn
from band.runtime._schema import anthropic_schema, openai_schema, validate_schema_format
from band_protocol import TurnEffect

__all__ = [
    "CustomToolDef",
    "custom_tool_effects",
    "custom_tool_to_anthropic_schema",
    "custom_tool_to_openai_schema",
    "custom_tools_to_schemas",
    "declared_effect",
    "declared_effects",
    "declares_turn_effect",
    "execute_custom_tool",
    "find_custom_tool",
    "format_validation_error",
    "get_custom_tool_name",
    "invalid_arguments_message",
    "invoke_validated_custom_tool",
    "is_failure_result",
    "reject_conflicting_tool_names",
]

CustomToolDef = tuple[type[BaseModel], Callable[..., Any]]
F = TypeVar("F", bound=Callable[..., Any])


def get_custom_tool_name(input_model: type[BaseModel]) -> str:
    """``EscalateInput`` -> ``escalate``."""
    name = input_model.__name__
    if name.endswith("Input") and len(name) > len("Input"):
        name = name[: -len("Input")]
    return name.lower()


def declares_turn_effect(effect: TurnEffect) -> Callable[[F], F]:
    """Decorator: record ``effect`` when the handler's call succeeds."""
    checked = TurnEffect(effect)

    def mark(handler: F) -> F:
        handler.band_effect = checked  # type: ignore[attr-defined]
        return handler

    return mark


def declared_effect(tool: Any) -> TurnEffect | None:
    """A handler's declared effect; ``band_terminal = True`` is shorthand for ACT."""
    effect = getattr(tool, "band_effect", None)
    if effect is not None:
        return TurnEffect(effect)
    if getattr(tool, "band_terminal", False):
        return TurnEffect.ACT
    return None


def declared_effects(named_handlers: Iterable[tuple[str, Any]]) -> dict[str, TurnEffect]:
    """Declared effects by name for ``(name, handler)`` pairs; undeclared ones are left out."""
    effects: dict[str, TurnEffect] = {}
    for name, handler in named_handlers:
        effect = declared_effect(handler)
        if effect is not None:
            effects[name] = effect
    return effects


def custom_tool_effects(tools: Iterable[CustomToolDef]) -> dict[str, TurnEffect]:
    """Declared effects by tool name (undeclared tools are left out)."""
    return declared_effects((get_custom_tool_name(model), handler) for model, handler in tools)


def custom_tool_to_openai_schema(
    input_model: type[BaseModel], *, schema_generator: Any = None
) -> dict[str, Any]:
    """The OpenAI function schema of a custom tool."""
    del schema_generator  # accepted for compatibility; our schemas come from pydantic
    return openai_schema(get_custom_tool_name(input_model), input_model)


def custom_tool_to_anthropic_schema(input_model: type[BaseModel]) -> dict[str, Any]:
    """The Anthropic tool schema of a custom tool."""
    return anthropic_schema(get_custom_tool_name(input_model), input_model)


def custom_tools_to_schemas(tools: Iterable[CustomToolDef], format: str) -> list[dict[str, Any]]:
    """Schemas of several custom tools in ``"openai"`` or ``"anthropic"`` format."""
    validate_schema_format(format)
    build = custom_tool_to_openai_schema if format == "openai" else custom_tool_to_anthropic_schema
    return [build(model) for model, _ in tools]


def find_custom_tool(tools: Iterable[CustomToolDef], name: str) -> CustomToolDef | None:
    """The tool called ``name``, or None."""
    return next((tool for tool in tools if get_custom_tool_name(tool[0]) == name), None)


def reject_conflicting_tool_names(names: Iterable[str]) -> None:
    """Refuse custom names that shadow a Band tool or repeat."""
    from band.runtime.tools.names import ALL_TOOL_NAMES  # tools imports this module

    seen: set[str] = set()
    for name in names:
        if name in ALL_TOOL_NAMES:
            raise ValueError(f"Custom tool name {name!r} conflicts with a Band platform tool")
        if name in seen:
            raise ValueError(f"Duplicate custom tool name {name!r}")
        seen.add(name)


def format_validation_error(exc: ValidationError) -> str:
    """A validation error as ``<field>: <msg>; <field>: <msg>`` (``unknown`` for model-level)."""
    return _field_errors(exc, "; ")


def invalid_arguments_message(name: str, exc: ValidationError, *, separator: str = "; ") -> str:
    """``Invalid arguments for <name>: <fields>``, the text a model sees for bad arguments."""
    return f"Invalid arguments for {name}: {_field_errors(exc, separator)}"


def _field_errors(exc: ValidationError, separator: str) -> str:
    return separator.join(
        f"{'.'.join(str(p) for p in item['loc']) or 'unknown'}: {item['msg']}"
        for item in exc.errors()
    )


def is_failure_result(result: Any) -> bool:
    """A result that reports failure: ``{"ok": False}`` or text starting with "Error"."""
    if isinstance(result, Mapping):
        return result.get("ok") is False
    if isinstance(result, str):
        lowered = result.lstrip().lower()
        return lowered.startswith("error:") or lowered.startswith("error executing ")
    return False


async def invoke_validated_custom_tool(
    tool: CustomToolDef, validated: BaseModel, *, turn: Turn | None
) -> Any:
    """Call the handler with an already-validated model; record its effect on success."""
    model, handler = tool
    name = get_custom_tool_name(model)
    if inspect.signature(handler).parameters:
        result = handler(validated)
    elif model.model_fields or validated.model_dump(exclude_unset=True):
        raise ValueError(
            f"Invalid handler for {name}: zero-argument handlers require an empty InputModel "
            "and no arguments"
        )
    else:
        result = handler()
    if inspect.isawaitable(result):
        result = await result
    if turn is not None and not is_failure_result(result):
        turn.record(declared_effect(handler) or TurnEffect.OBSERVE)
    return result


async def execute_custom_tool(
    tool: CustomToolDef,
    arguments: Mapping[str, Any],
    *,
    turn: Turn | None,
    strict: bool | None = None,
) -> Any:
    """Validate ``arguments``, run the handler, record its effect on ``turn``.

    Invalid arguments raise ``InvalidToolArgumentsError``; handler exceptions propagate.
    """
    model, _ = tool
    try:
        validated = model.model_validate(dict(arguments), strict=strict)
    except ValidationError as exc:
        raise InvalidToolArgumentsError(
            invalid_arguments_message(get_custom_tool_name(model), exc)
        ) from None
    return await invoke_validated_custom_tool(tool, validated, turn=turn)


def custom_tool_names(tools: Sequence[CustomToolDef]) -> list[str]:
    return [get_custom_tool_name(model) for model, _ in tools]
