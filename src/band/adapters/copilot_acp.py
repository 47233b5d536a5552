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
from collections.abc import Sequence
from typing import Unpack

from pydantic import Field

from band.adapters._coding.base import Prompt
from band.adapters.acp import (
    ACPClientAdapter,
    ACPClientAdapterConfig,
    PermissionResolver,
    SessionConfigResolver,
)
from band.adapters.acp.process import ACPProcess
from band.core.types import FeatureKwargs
from band.runtime.custom_tools import CustomToolDef
from band.workspaces import WorkspaceResolver

__all__ = ["DEFAULT_COPILOT_COMMAND", "CopilotACPAdapter", "CopilotACPAdapterConfig"]

DEFAULT_COPILOT_COMMAND: tuple[str, ...] = ("copilot", "--acp")
# The CLI ends a failed turn with its error as agent text: "...Error: <what>\n  <hint>".
_ERROR = re.compile(r"Error: ([^\n]+)")


class CopilotACPAdapterConfig(ACPClientAdapterConfig):
    """``ACPClientAdapterConfig`` with Copilot's command and an optional GitHub token."""

    command: tuple[str, ...] = DEFAULT_COPILOT_COMMAND
    github_token: str | None = Field(default=None, repr=False)


class CopilotACPAdapter(ACPClientAdapter):
    """Band rooms on ``copilot --acp``: one process and ACP session per room."""

    PROVIDER = "copilot_acp"
    LABEL = "Copilot CLI"

    def __init__(
        self,
        config: CopilotACPAdapterConfig | None = None,
        *,
        additional_tools: Sequence[CustomToolDef] | None = None,
        workspace_for_room: WorkspaceResolver | None = None,
        resolve_session_config: SessionConfigResolver | None = None,
        resolve_permission: PermissionResolver | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        config = config or CopilotACPAdapterConfig()
        if config.github_token and "GITHUB_TOKEN" not in (config.env or {}):
            env = {**(config.env or {}), "GITHUB_TOKEN": config.github_token}
            config = config.model_copy(update={"env": env})
        super().__init__(
            config,
            additional_tools=additional_tools,
            workspace_for_room=workspace_for_room,
            resolve_session_config=resolve_session_config,
            resolve_permission=resolve_permission,
            **features,
        )

    async def run_prompt(self, proc: ACPProcess, prompt: Prompt) -> None:
        await super().run_prompt(proc, prompt)
        errors = _ERROR.findall(prompt.reporter.final_text)
        if errors and not prompt.tools.turn.replied and not prompt.tools.turn.settled:
            await self.fail(prompt.tools, f"Copilot turn failed: {errors[-1].strip()}")
