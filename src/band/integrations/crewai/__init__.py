"""CrewAI glue shared by ``CrewAIAdapter`` and ``CrewAIFlowAdapter``: Band room tools as
CrewAI ``BaseTool`` objects, and the bridge that runs their async work from CrewAI's
synchronous tool calls.
"""

from .runtime import run_async
from .tools import CrewAIToolContext, ReplyTracker, build_band_crewai_tools, current_context

__all__ = [
    "CrewAIToolContext",
    "ReplyTracker",
    "build_band_crewai_tools",
    "current_context",
    "run_async",
]
