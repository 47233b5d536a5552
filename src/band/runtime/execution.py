"""A room's execution as band-sdk names it: ``ExecutionContext`` and its vocabulary.

The execution itself lives in ``room_execution`` (the room loop) and ``turn_runner`` (one
message's turn).
"""

from band.runtime.room_execution import (
    Execution,
    ExecutionContext,
    ExecutionState,
    ResyncOutcome,
    ResyncRequest,
)
from band.runtime.turn_runner import TurnOutcome

__all__ = [
    "Execution",
    "ExecutionContext",
    "ExecutionState",
    "ResyncOutcome",
    "ResyncRequest",
    "TurnOutcome",
]
