"""What ``ClaudeSDKAdapter`` builds on: its system prompt (``prompts``), the room tools'
send deduplication (``dedup_tools``), the names of Band's tools as Claude sees them
(``tools``) and the CLI's transport (``transport``, which needs the extra ``claude_sdk``).

Build agents with ``band.adapters.ClaudeSDKAdapter``.
"""

from .prompts import generate_claude_sdk_agent_prompt

__all__ = ["generate_claude_sdk_agent_prompt"]
