"""A Band platform tool declared once for Parlant (``@band_tool``), built per agent.

``@band_tool(...)`` turns a tool function into a ``BandToolSpec`` and changes nothing else;
``build_band_tool(spec)`` makes a fresh Parlant ``ToolEntry`` from it each time: guarded
(``guard.guard_failures``), its docstring and parameter descriptions taken from the tool's
input model (``band.runtime.tools``), consequential when a successful call settles the turn.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, get_args, get_origin

from band.runtime.tools.names import turn_effect
from band.runtime.tools.schema import get_tool_description, resolve_tool_model

from ._parlant import ToolParameterOptions, ToolResult, p
from .guard import CONTEXT_PARAMETER, guard_failures

__all__ = ["BandToolSpec", "band_tool", "build_band_tool", "invalid_choice", "or_none"]


@dataclass(frozen=True)
class BandToolSpec:
    """A Band tool function and how its Parlant entry reports failures and is described."""

    func: Callable[..., Any]
    failure: str
    extra_doc: str = ""
    param_notes: Mapping[str, str] = field(default_factory=dict)
    mention_hints: bool = False

    @property
    def name(self) -> str:
        return self.func.__name__


def band_tool(
    failure: str,
    *,
    extra_doc: str = "",
    param_notes: Mapping[str, str] | None = None,
    mention_hints: bool = False,
) -> Callable[[Callable[..., Any]], BandToolSpec]:
    """Declare a tool function: ``failure`` completes ``"Error {failure}: ..."``;
    ``extra_doc`` and ``param_notes`` are appended to the tool model's own texts."""

    def declare(func: Callable[..., Any]) -> BandToolSpec:
        return BandToolSpec(func, failure, extra_doc, dict(param_notes or {}), mention_hints)

    return declare


def build_band_tool(spec: BandToolSpec) -> Any:
    """A new Parlant ``ToolEntry`` for ``spec``."""
    guarded = guard_failures(spec.func, failure=spec.failure, mention_hints=spec.mention_hints)
    guarded.__signature__ = _described_signature(spec)  # type: ignore[attr-defined]
    guarded.__doc__ = get_tool_description(spec.name).rstrip() + spec.extra_doc
    return p.tool(consequential=turn_effect(spec.name).did_work)(guarded)


def or_none(value: str) -> str | None:
    """Parlant omits a text argument as ``""``; the platform wants ``None`` then."""
    return value or None


def invalid_choice(name: str, value: str, choices: Iterable[str]) -> ToolResult:
    """The result telling the model ``value`` is not one of ``choices``."""
    allowed = ", ".join(f"'{choice}'" for choice in choices)
    return ToolResult(data=f"Error: Invalid {name} '{value}'. Use one of {allowed}")


def _described_signature(spec: BandToolSpec) -> inspect.Signature:
    """The function's signature, each parameter described from the tool's input model
    (Parlant reads descriptions only from ``Annotated[..., ToolParameterOptions]``)."""
    signature = inspect.signature(spec.func, eval_str=True)
    model = resolve_tool_model(spec.name)
    if model is None:
        return signature
    described = []
    for param in signature.parameters.values():
        info = model.model_fields.get(param.name)
        if param.name == CONTEXT_PARAMETER or info is None or not info.description:
            described.append(param)
            continue
        text = info.description.rstrip()
        choices = _literal_choices(info.annotation)
        if choices:  # Parlant cannot take a Literal annotation: the choices go in the text
            text += f" One of: {', '.join(choices)}."
        text += spec.param_notes.get(param.name, "")
        options = ToolParameterOptions(description=text)
        described.append(param.replace(annotation=Annotated[param.annotation, options]))
    return signature.replace(parameters=described)


def _literal_choices(annotation: Any) -> tuple[str, ...]:
    args = get_args(annotation) if get_origin(annotation) is Literal else ()
    return tuple(args) if args and all(isinstance(a, str) for a in args) else ()
