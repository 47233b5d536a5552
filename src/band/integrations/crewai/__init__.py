"""CrewAI glue shared by ``CrewAIAdapter`` and ``CrewAIFlowAdapter``: Band room tools as
CrewAI ``BaseTool`` objects (``tools``, ``catalog``), who narrates their calls
(``reporting``), one turn's work kept together (``turn``), a flow run to its end (``flow``),
and the bridge from CrewAI's synchronous tool calls to the agent's loop (``runtime``).
"""

from . import reporting
from .reporting import *  # noqa: F403  (its __all__, added below)
from .runtime import run_async
from .tools import build_band_crewai_tools, serialize_success_result

__all__ = ["build_band_crewai_tools", "run_async", "serialize_success_result"]
__all__ += reporting.__all__
