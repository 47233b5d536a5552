"""``ClaudeSDKAdapter``: Band rooms on Claude Code, through the Claude Agent SDK.

Extra ``claude-sdk``.

Importing this package needs nothing beyond the SDK; starting the adapter needs
``claude-agent-sdk`` (``pip install 'openband[claude_sdk]'``), whose wheel carries a
``claude`` CLI; ``cli.cli_path`` names another (``npm install -g @anthropic-ai/claude-code``).
"""

from .adapter import ClaudeSDKAdapter
from .approvals import ApprovalReply, ClaudeSDKCommand, PendingApproval
from .config import (
    ClaudeApprovalOptions,
    ClaudeCLIOptions,
    ClaudePermissionMode,
    ClaudeSDKAdapterConfig,
)

__all__ = [
    "ApprovalReply",
    "ClaudeApprovalOptions",
    "ClaudeCLIOptions",
    "ClaudePermissionMode",
    "ClaudeSDKAdapter",
    "ClaudeSDKAdapterConfig",
    "ClaudeSDKCommand",
    "PendingApproval",
]
