"""``CodexAdapter``: Band rooms driven by the Codex CLI's ``codex app-server`` (extra ``codex``).

Needs the ``codex`` binary (``npm install -g @openai/codex@0.169.0``), no Python package.
"""

from .adapter import CodexAdapter, CodexContinuityError
from .approvals import PendingApproval
from .config import CodexAdapterConfig
from .items import CodexToolItem
from .messages import NativeMessage, TurnResult
from .native import NativeTurn
from .process import CodexTurn
from .room import RoomCodexClient, ThreadSettings
from .rpc import CodexClientProtocol
from .self_config import SetModelInput, SetReasoningInput
from .vocabulary import CodexCommand, CodexSandboxMode, CodexSubcommand

__all__ = [
    "CodexAdapter",
    "CodexAdapterConfig",
    "CodexClientProtocol",
    "CodexCommand",
    "CodexContinuityError",
    "CodexSandboxMode",
    "CodexSubcommand",
    "CodexToolItem",
    "CodexTurn",
    "NativeMessage",
    "NativeTurn",
    "PendingApproval",
    "RoomCodexClient",
    "SetModelInput",
    "SetReasoningInput",
    "ThreadSettings",
    "TurnResult",
]
