"""band: the SDK for building agents on Band (open implementation).

Core vocabulary is imported eagerly; the runtime, logging and tool modules resolve on
first attribute access (PEP 562), so ``import band`` stays light and never needs an extra.
"""

from __future__ import annotations

import logging
from importlib import metadata
from typing import TYPE_CHECKING

from band._lazy import lazy_exports
from band.core.exceptions import (
    AgentAlreadyRunningError,
    BandConfigError,
    BandConnectionError,
    BandError,
    BandToolError,
    RoomExecutionStoppedError,
)
from band.core.types import AdapterFeatures, Capability, ConflictPolicy, Emit, FeatureKwargs

try:
    __version__ = metadata.version("openband")
except metadata.PackageNotFoundError:  # running from a source tree
    __version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "Agent": "band.runtime.agent",
    "configure_logging": "band._logging",
    "AgentTools": "band.runtime.tools",
    "ALL_TOOL_NAMES": "band.runtime.tools",
    "BASE_TOOL_NAMES": "band.runtime.tools",
    "CHAT_TOOL_NAMES": "band.runtime.tools",
    "CONTACT_TOOL_NAMES": "band.runtime.tools",
    "MEMORY_TOOL_NAMES": "band.runtime.tools",
    "TOOL_MODELS": "band.runtime.tools",
    "MCP_TOOL_PREFIX": "band.runtime.tools",
    "mcp_tool_names": "band.runtime.tools",
    "render_system_prompt": "band.runtime.prompts",
    "build_participants_message": "band.runtime.history",
}

__all__ = [
    "ALL_TOOL_NAMES",
    "BASE_TOOL_NAMES",
    "CHAT_TOOL_NAMES",
    "CONTACT_TOOL_NAMES",
    "MCP_TOOL_PREFIX",
    "MEMORY_TOOL_NAMES",
    "TOOL_MODELS",
    "AdapterFeatures",
    "Agent",
    "AgentAlreadyRunningError",
    "AgentTools",
    "BandConfigError",
    "BandConnectionError",
    "BandError",
    "BandToolError",
    "Capability",
    "ConflictPolicy",
    "Emit",
    "FeatureKwargs",
    "RoomExecutionStoppedError",
    "__version__",
    "build_participants_message",
    "configure_logging",
    "mcp_tool_names",
    "render_system_prompt",
]

if TYPE_CHECKING:
    from band.runtime.prompts import render_system_prompt
    from band.runtime.tools import (
        ALL_TOOL_NAMES,
        BASE_TOOL_NAMES,
        CHAT_TOOL_NAMES,
        CONTACT_TOOL_NAMES,
        MCP_TOOL_PREFIX,
        MEMORY_TOOL_NAMES,
        TOOL_MODELS,
        AgentTools,
        mcp_tool_names,
    )

_band_logger = logging.getLogger("band")
if not any(isinstance(h, logging.NullHandler) for h in _band_logger.handlers):
    _band_logger.addHandler(logging.NullHandler())

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
