"""``CopilotACPAdapter``: the GitHub Copilot CLI's ACP server (``copilot --acp``), one per room.

Copilot speaks plain ACP, so this only presets the command and the token: ``github_token``
sets ``GITHUB_TOKEN`` unless ``env`` does. Without a token the CLI uses its stored login,
or, with ``COPILOT_PROVIDER_BASE_URL`` (and ``COPILOT_MODEL``) in ``env``, your own model
provider ("BYOK"); ``COPILOT_OFFLINE=true`` then keeps it off GitHub entirely.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

from pydantic import Field

from band.adapters._coding.workspace import WorkspaceForRoom
from band.adapters.acp import (
    ACPClientAdapter,
    ACPClientAdapterConfig,
    PermissionResolver,
    SessionConfigResolver,
)
from band.core.types import FeatureKwargs
from band.runtime.custom_tools import CustomToolDef

__all__ = ["DEFAULT_COPILOT_COMMAND", "CopilotACPAdapter", "CopilotACPAdapterConfig"]

DEFAULT_COPILOT_COMMAND: tuple[str, ...] = ("copilot", "--acp")


class CopilotACPAdapterConfig(ACPClientAdapterConfig):
    """``ACPClientAdapterConfig`` with Copilot's command and an optional GitHub token."""

    command: list[str] = Field(default_factory=lambda: list(DEFAULT_COPILOT_COMMAND))
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
        workspace_for_room: WorkspaceForRoom | None = None,
        resolve_session_config: SessionConfigResolver | None = None,
        resolve_permission: PermissionResolver | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        config = config or CopilotACPAdapterConfig()
        if config.github_token and "GITHUB_TOKEN" not in config.env:
            env = {**config.env, "GITHUB_TOKEN": config.github_token}
            config = config.model_copy(update={"env": env})
        super().__init__(
            config,
            additional_tools=additional_tools,
            workspace_for_room=workspace_for_room,
            resolve_session_config=resolve_session_config,
            resolve_permission=resolve_permission,
            **features,
        )
