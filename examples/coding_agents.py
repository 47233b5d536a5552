"""A Band agent on a coding agent: Claude Code, OpenCode, or the GitHub Copilot CLI.

    python coding_agents.py claude       # pip install 'openband[claude-sdk]'
    python coding_agents.py opencode     # pip install 'openband[opencode]'; `opencode serve` up
    python coding_agents.py copilot      # pip install 'openband[acp]'; npm i -g @github/copilot
    python coding_agents.py copilot-sdk  # pip install 'openband[copilot-sdk]'; the same CLI

Each room gets its own Claude session / OpenCode session / Copilot process or session,
resumed after a restart; Claude's and Copilot's shell commands and OpenCode's permission asks
wait for `/approve <id>` or `/decline <id>` in the room. Through the Copilot SDK the agent
has Band's tools only, and asks the room its questions (`ask_user`): the answer is your next
message. Reads agent_config.yaml's "my_agent"
(`band agents create`). The model is the agent's own (its login or its provider settings:
`ANTHROPIC_BASE_URL` for Claude, OpenCode's config, `COPILOT_PROVIDER_BASE_URL` for Copilot).
"""

from __future__ import annotations

import asyncio
import sys

from band import Agent
from band.adapters import (
    ClaudeApprovalOptions,
    ClaudeSDKAdapter,
    ClaudeSDKAdapterConfig,
    CopilotACPAdapter,
    CopilotACPAdapterConfig,
    CopilotSDKAdapter,
    CopilotSDKAdapterConfig,
    OpencodeAdapter,
    OpencodeAdapterConfig,
)
from band.core import SimpleAdapter


def build_adapter(kind: str) -> SimpleAdapter[object]:
    if kind == "claude":
        approvals = ClaudeApprovalOptions(mode="manual")
        return ClaudeSDKAdapter(ClaudeSDKAdapterConfig(model="sonnet", approvals=approvals))
    if kind == "opencode":
        return OpencodeAdapter(OpencodeAdapterConfig(base_url="http://127.0.0.1:4096"))
    if kind == "copilot":
        return CopilotACPAdapter(CopilotACPAdapterConfig(approval_mode="manual"))
    if kind == "copilot-sdk":
        return CopilotSDKAdapter(CopilotSDKAdapterConfig(), ask_user="room")
    raise SystemExit(f"usage: {sys.argv[0]} claude|opencode|copilot|copilot-sdk")


if __name__ == "__main__":
    adapter = build_adapter(sys.argv[1] if len(sys.argv) > 1 else "")
    asyncio.run(Agent.from_config("my_agent", adapter=adapter).run())
