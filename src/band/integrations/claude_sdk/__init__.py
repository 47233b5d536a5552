"""What ``ClaudeSDKAdapter`` builds on: its system prompt (``prompts``), the room tools'
send deduplication (``dedup_tools``), the names of Band's tools as Claude sees them
(``tools``), the CLI's transport (``transport``, which needs the extra ``claude_sdk``) and
per-room CLI sessions (``session_manager``).

Build agents with ``band.adapters.ClaudeSDKAdapter``.
"""

from .prompts import generate_claude_sdk_agent_prompt
from .session_manager import ClaudeSessionManager

__all__ = ["ClaudeSessionManager", "generate_claude_sdk_agent_prompt"]
