"""``OmpACPAdapter``: OMP (oh-my-pi, npm ``@oh-my-pi/pi-coding-agent``) over ACP (``omp acp``).

The command is finalised here: ``model`` (provider-qualified, e.g. ``openai/gpt-6-luna``)
becomes OMP's ``--model`` flag rather than a session option, ``omp_approval_mode`` its
``--approval-mode`` (``always-ask``: every tool call is asked, and relayed to the room per
``approval_mode``; ``yolo``: full access to the host, nothing asked). Approval flags in
``command`` itself are refused. ``api_key`` goes into the model's provider variable
(``OPENAI_API_KEY``, ...) unless ``env`` sets it. OMP needs ACP's unstable protocol: on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Unpack

from pydantic import Field, field_validator, model_validator

from band.adapters._coding.approvals import ApprovalMode
from band.adapters.acp import (
    ACPClientAdapter,
    ACPClientAdapterConfig,
    PermissionResolver,
    SessionConfigResolver,
)
from band.core.types import FeatureKwargs
from band.runtime.custom_tools import CustomToolDef
from band.workspaces import WorkspaceResolver

__all__ = ["DEFAULT_OMP_ACP_COMMAND", "OmpACPAdapter", "OmpACPAdapterConfig", "omp_command"]

DEFAULT_OMP_ACP_COMMAND: tuple[str, ...] = ("omp", "acp")
PROVIDER_KEYS = {
    "anthropic": "ANTHROPIC_API_KEY",
    "google": "GEMINI_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "xai": "XAI_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "together": "TOGETHER_API_KEY",
    "fireworks": "FIREWORKS_API_KEY",
}
_UNSAFE = ("--yolo", "--auto-approve", "--approval-mode")


class OmpACPAdapterConfig(ACPClientAdapterConfig):
    """``ACPClientAdapterConfig`` for ``omp acp`` (see the module docstring)."""

    command: tuple[str, ...] = DEFAULT_OMP_ACP_COMMAND
    omp_approval_mode: Literal["always-ask", "yolo"] = "always-ask"
    approval_mode: ApprovalMode = ApprovalMode.MANUAL
    api_key: str | None = Field(default=None, repr=False)
    use_unstable_protocol: Literal[True] = True

    @field_validator("command", mode="after")
    @classmethod
    def _no_approval_flags(cls, command: tuple[str, ...]) -> tuple[str, ...]:
        unsafe = [t for t in command if t.split("=")[0] in _UNSAFE]
        if unsafe:
            raise ValueError(
                f"set omp_approval_mode instead of approval flags in command: {unsafe}"
            )
        return command

    @model_validator(mode="after")
    def _key_needs_model(self) -> OmpACPAdapterConfig:
        if self.api_key is not None:
            if self.model is None:
                raise ValueError("api_key needs model: its provider names the key variable")
            provider_key(self.model)
        return self


def provider_key(model: str) -> str:
    """The environment variable of ``model``'s provider (``openai/x`` -> OPENAI_API_KEY)."""
    provider = model.partition("/")[0].lower()
    if provider not in PROVIDER_KEYS:
        supported = ", ".join(sorted(PROVIDER_KEYS))
        raise ValueError(f"unsupported OMP model provider {provider!r}; supported: {supported}")
    return PROVIDER_KEYS[provider]


def omp_command(config: OmpACPAdapterConfig) -> list[str]:
    """The argv ``omp acp`` runs with: the command, then the model and the approval mode."""
    argv = list(config.command)
    if config.model is not None:
        argv.append(f"--model={config.model}")
    return [*argv, "--approval-mode", config.omp_approval_mode]


class OmpACPAdapter(ACPClientAdapter):
    """Band rooms on ``omp acp``: one process and ACP session per room."""

    PROVIDER = "omp_acp"
    LABEL = "OMP agent"

    def __init__(
        self,
        config: OmpACPAdapterConfig | None = None,
        *,
        additional_tools: Sequence[CustomToolDef] | None = None,
        workspace_for_room: WorkspaceResolver | None = None,
        resolve_session_config: SessionConfigResolver | None = None,
        resolve_permission: PermissionResolver | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        config = config or OmpACPAdapterConfig()
        env = dict(config.env or {})
        if config.api_key is not None and config.model is not None:
            env.setdefault(provider_key(config.model), config.api_key)
        # The model is a launch flag here, not a session option to select.
        launch = config.model_copy(update={"command": tuple(omp_command(config)), "env": env})
        launch = launch.model_copy(update={"model": None})
        super().__init__(
            launch,
            additional_tools=additional_tools,
            workspace_for_room=workspace_for_room,
            resolve_session_config=resolve_session_config,
            resolve_permission=resolve_permission,
            **features,
        )
        self.omp = config
