"""Platform tools: names, effects, input models, schemas, the room-bound ``AgentTools`` and
a person's ``HumanTools``.
"""

from band.core.turn import Turn

from . import agent, human, inputs, registry, types
from .agent import *  # noqa: F403  (its __all__, added below)
from .backend import (
    ToolBackend,
)
from .human import *  # noqa: F403  (its __all__, added below)
from .inputs import *  # noqa: F403  (its __all__, added below)
from .names import (
    TOOL_EFFECTS,
    canonical_tool_name,
    turn_effect,
)
from .registry import *  # noqa: F403  (its __all__, added below)
from .registry import _resolve_mcp_tool_name
from .room_tools import (
    RoomTools,
)
from .roster import (
    Roster,
)
from .schema import (
    ToolCallOutcome,
    ToolFunc,
    docstring_with_args,
    format_arg_doc,
    format_tool_validation_error,
    get_tool_description,
    get_tool_docstring_with_args,
    platform_args_schema,
    platform_tool,
    resolve_tool_model,
    serialize_tool_result,
    tool_result_text,
    validate_tool_arguments,
)
from .types import *  # noqa: F403  (its __all__, added below)

__all__ = [
    "TOOL_EFFECTS",
    "RoomTools",
    "Roster",
    "ToolBackend",
    "ToolCallOutcome",
    "ToolFunc",
    "Turn",
    "_resolve_mcp_tool_name",
    "canonical_tool_name",
    "docstring_with_args",
    "format_arg_doc",
    "format_tool_validation_error",
    "get_tool_description",
    "get_tool_docstring_with_args",
    "platform_args_schema",
    "platform_tool",
    "resolve_tool_model",
    "serialize_tool_result",
    "tool_result_text",
    "turn_effect",
    "validate_tool_arguments",
]
__all__ += agent.__all__
__all__ += human.__all__
__all__ += inputs.__all__
__all__ += registry.__all__
__all__ += types.__all__
