"""``setmodel`` / ``setreasoning``: dynamic tools that let Codex reconfigure its own room.

Offered only with ``enable_self_config_tools``. A change applies from the room's next turn
on (the running turn keeps its model), exactly like ``/model`` and ``/reasoning``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError

from band.runtime.custom_tools import custom_tools_to_schemas, invalid_arguments_message

from .config import ReasoningSummary
from .room import RoomCodexClient

__all__ = ["SELF_CONFIG_TOOLS", "dynamic_tool_specs", "run_self_config", "self_config_specs"]


class SetModelInput(BaseModel):
    """Use another Codex model in this room from the next turn on."""

    model: str = Field(min_length=1, description="The model id, e.g. one `/model list` shows.")


class SetReasoningInput(BaseModel):
    """Change this room's reasoning effort and/or summary from the next turn on."""

    effort: str | None = Field(default=None, description="e.g. low, medium, high")
    summary: ReasoningSummary | None = Field(default=None, description="reasoning summary")


SELF_CONFIG_TOOLS: dict[str, type[BaseModel]] = {
    "setmodel": SetModelInput,
    "setreasoning": SetReasoningInput,
}


def _noop(_: BaseModel) -> None:
    return None


def dynamic_tool_specs(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-format tool schemas as Codex dynamic tool specs."""
    return [
        {
            "type": "function",
            "name": s["function"]["name"],
            "description": s["function"].get("description", ""),
            "inputSchema": s["function"].get("parameters") or {"type": "object"},
        }
        for s in schemas
    ]


def self_config_specs() -> list[dict[str, Any]]:
    """The two tools as Codex dynamic tool specs."""
    tools = [(model, _noop) for model in SELF_CONFIG_TOOLS.values()]
    return dynamic_tool_specs(custom_tools_to_schemas(tools, "openai"))


def run_self_config(room: RoomCodexClient, name: str, args: dict[str, Any]) -> tuple[str, bool]:
    """Apply one call to ``room``: ``(output, is_error)``."""
    try:
        parsed = SELF_CONFIG_TOOLS[name].model_validate(args)
    except ValidationError as exc:
        return f"Error: {invalid_arguments_message(name, exc)}", True
    if isinstance(parsed, SetModelInput):
        room.selected_model = parsed.model
        return f"Model set to {parsed.model} for the next turns in this room.", False
    assert isinstance(parsed, SetReasoningInput)  # nosec B101 # narrows for mypy: the union's last member
    changes = []
    if parsed.effort is not None:
        room.reasoning_effort = parsed.effort
        changes.append(f"effort {parsed.effort}")
    if parsed.summary is not None:
        room.reasoning_summary = parsed.summary
        changes.append(f"summary {parsed.summary}")
    if not changes:
        return "Error: give effort and/or summary.", True
    return f"Reasoning set to {' and '.join(changes)} for the next turns in this room.", False
