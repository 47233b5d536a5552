"""``CopilotACPAdapter``: the GitHub Copilot CLI's ACP server (``copilot --acp``), one per room.

Copilot speaks plain ACP, so this only presets the command and the token: ``github_token``
sets ``GITHUB_TOKEN`` unless ``env`` does. Without a token the CLI uses its stored login,
or, with ``COPILOT_PROVIDER_BASE_URL`` (and ``COPILOT_MODEL``) in ``env``, your own model
provider ("BYOK"); ``COPILOT_OFFLINE=true`` then keeps it off GitHub entirely. A turn the
CLI ends with an ``Error: ...`` line in its text (a provider refusing the key, say), and no
reply, is reported once in the room with that line.
"""

from __future__ import annotations

import re

from pydantic import Field

from band.adapters._coding.base import Prompt
from band.adapters.acp import ACPClientAdapterConfig
from band.adapters.acp.preset import ACPPresetAdapter
from band.adapters.acp.process import ACPProcess

__all__ = ["DEFAULT_COPILOT_COMMAND", "CopilotACPAdapter", "CopilotACPAdapterConfig"]

DEFAULT_COPILOT_COMMAND: tuple[str, ...] = ("copilot", "--acp")
# The CLI ends a failed turn with its error as agent text: "...Error: <what>\n  <hint>".
_ERROR = re.compile(r"Error: ([^\n]+)")


class CopilotACPAdapterConfig(ACPClientAdapterConfig):
    """``ACPClientAdapterConfig`` with Copilot's command and an optional GitHub token."""

    command: tuple[str, ...] = DEFAULT_COPILOT_COMMAND
    github_token: str | None = Field(default=None, repr=False)


class CopilotACPAdapter(ACPPresetAdapter[CopilotACPAdapterConfig]):
    """Band rooms on ``copilot --acp``: one process and ACP session per room."""

    PROVIDER = "copilot_acp"
    LABEL = "Copilot CLI"

    def prepared(self, config: CopilotACPAdapterConfig | None) -> CopilotACPAdapterConfig:
        config = config or CopilotACPAdapterConfig()
        if config.github_token and "GITHUB_TOKEN" not in (config.env or {}):
            env = {**(config.env or {}), "GITHUB_TOKEN": config.github_token}
            config = config.model_copy(update={"env": env})
        return config

    async def run_prompt(self, proc: ACPProcess, prompt: Prompt) -> None:
        await super().run_prompt(proc, prompt)
        errors = _ERROR.findall(prompt.reporter.final_text)
        if errors and not prompt.tools.turn.replied and not prompt.tools.turn.settled:
            await self.fail(prompt.tools, f"Copilot turn failed: {errors[-1].strip()}")
