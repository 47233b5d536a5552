"""``OmpACPAdapter``: OMP (oh-my-pi, npm ``@oh-my-pi/pi-coding-agent``) over ACP (``omp acp``).

How it works: docs/internals/sdk.md, "OMP over ACP".

The launch is OMP's (``band.integrations.omp``); its approval forms are decided like
permission requests.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Self

from pydantic import Field, field_validator, model_validator

from band.adapters._coding.approvals import ApprovalMode, ApprovalRelay
from band.adapters.acp import ACPClientAdapterConfig
from band.adapters.acp.client import RoomClient
from band.adapters.acp.preset import ACPPresetAdapter
from band.integrations.acp.permissions import ElicitationHandler, elicitation_requested_schema
from band.integrations.acp.room_emitter import RoomTurnEmitter
from band.integrations.acp.types import ACPToolCall, CollectedChunk
from band.integrations.omp import (
    DEFAULT_OMP_ACP_COMMAND,
    OMP_APPROVAL_FORM_TOOL_NAME,
    OMP_APPROVAL_MODE_ALWAYS_ASK,
    OMP_APPROVE_OPTION_ID,
    OMP_DENY_OPTION_ID,
    OMP_FORM_APPROVE,
    OMP_FORM_DENY,
    approve_deny_form_field,
    finalize_omp_command,
    normalize_omp_mcp_device_call,
    omp_command_in_workspace,
    omp_elicitation_call_id,
    omp_provider_env,
    validate_omp_command,
)

__all__ = ["DEFAULT_OMP_ACP_COMMAND", "OmpACPAdapter", "OmpACPAdapterConfig"]


class OmpACPAdapterConfig(ACPClientAdapterConfig):
    """``ACPClientAdapterConfig`` for ``omp acp`` (see the module docstring)."""

    retention_unavailable_reason: ClassVar[str] = (
        "OMP's pending-work and prompt-idle signals leave out background jobs that a "
        "shutdown would cancel"
    )

    approval_mode: Literal["always-ask", "yolo"] = OMP_APPROVAL_MODE_ALWAYS_ASK  # type: ignore[assignment]  # OMP's own mode; the room's is room_approval_mode
    command: tuple[str, ...] = DEFAULT_OMP_ACP_COMMAND
    api_key: str | None = Field(default=None, repr=False)
    use_unstable_protocol: Literal[True] = True
    room_approval_mode: ApprovalMode = ApprovalMode.AUTO_ACCEPT

    @field_validator("command", mode="after")
    @classmethod
    def _safe_command(cls, command: tuple[str, ...]) -> tuple[str, ...]:
        validate_omp_command(command)
        return command

    @model_validator(mode="after")
    def _key_needs_model(self) -> Self:
        if self.api_key is not None:
            if self.model is None:
                raise ValueError("api_key needs model: its provider names the key variable")
            omp_provider_env(model=self.model, api_key=self.api_key)  # a known provider
        return self


class OmpRoomClient(RoomClient):
    """A room's client for OMP: MCP device writes and ``mcp__`` names read as Band tools."""

    def __init__(self, adapter: OmpACPAdapter, room_id: str) -> None:
        super().__init__(adapter, room_id)
        self.own_tool_names = adapter.own_tool_names

    def _tool_call_chunk(self, update: object) -> CollectedChunk:
        chunk = super()._tool_call_chunk(update)
        call = chunk.tool
        if not isinstance(call, ACPToolCall):
            return chunk
        kind = getattr(update, "kind", None)
        name, args = normalize_omp_mcp_device_call(
            call.name, call.arguments, self.own_tool_names, kind=kind
        )
        if (name, args) != (call.name, call.arguments):
            chunk.tool = ACPToolCall(call.tool_call_id, name, args)  # type: ignore[arg-type]  # JSON parsed from the write
            chunk.content = name
        return chunk


class OmpACPAdapter(ACPPresetAdapter[OmpACPAdapterConfig]):
    """Band rooms on ``omp acp``: one process and ACP session per room."""

    PROVIDER = "omp_acp"
    LABEL = "OMP agent"

    def prepared(self, config: OmpACPAdapterConfig | None) -> OmpACPAdapterConfig:
        return config or OmpACPAdapterConfig()

    def preset_capabilities(self) -> Any:
        from acp.schema import (
            ClientCapabilities,
            ElicitationCapabilities,
            ElicitationFormCapabilities,
        )

        return ClientCapabilities(
            elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities())
        )

    @property
    def omp_command(self) -> list[str]:
        """The launch argv: the config's command, its model and OMP's approval mode."""
        config = self.config
        return finalize_omp_command(
            config.command, model=config.model, approval_mode=config.approval_mode
        )

    @staticmethod
    def _approval_relay(config: ACPClientAdapterConfig) -> ApprovalRelay:
        assert isinstance(config, OmpACPAdapterConfig)  # nosec B101 # narrows for mypy: OMP's config
        return ApprovalRelay(
            config.room_approval_mode,
            wait_timeout_s=config.approval_wait_timeout_s,
            timeout_decision=config.approval_timeout_decision,
            text_notifications=False,
        )

    @staticmethod
    def _session_model(config: ACPClientAdapterConfig) -> str | None:
        return None  # OMP's model is a launch flag; only the effort is a session option

    def room_client(self, room_id: str) -> RoomClient:
        return OmpRoomClient(self, room_id)

    def _spawn_command(self, workspace: str) -> list[str]:
        return omp_command_in_workspace(self.omp_command, workspace)

    def _spawn_cwd(self, workspace: str) -> str | None:
        # OMP (on Bun) stalls on its first turn when started with an explicit working
        # directory; the room's workspace is its --cwd flag instead.
        return None

    def _credential_env(self) -> dict[str, str]:
        if self.config.api_key is None or self.config.model is None:
            return {}
        return omp_provider_env(model=self.config.model, api_key=self.config.api_key)

    def _elicitation_handler(
        self, client: RoomClient, emitter: RoomTurnEmitter, session_id: str
    ) -> ElicitationHandler | None:
        from acp.schema import (
            AcceptElicitationResponse,
            DeclineElicitationResponse,
            PermissionOption,
        )

        async def handle(
            *, message: str, mode: object, narrate_elicitation: Any = None, **kwargs: object
        ) -> object:
            field = approve_deny_form_field(elicitation_requested_schema(mode, dict(kwargs)))
            if field is None:  # not OMP's approval question
                return DeclineElicitationResponse(action="decline")
            call = ACPToolCall(
                omp_elicitation_call_id(session_id),
                OMP_APPROVAL_FORM_TOOL_NAME,
                {"message": message},
                title=message,
            )
            options = [
                PermissionOption(
                    option_id=OMP_APPROVE_OPTION_ID, name=OMP_FORM_APPROVE, kind="allow_once"
                ),
                PermissionOption(
                    option_id=OMP_DENY_OPTION_ID, name=OMP_FORM_DENY, kind="reject_once"
                ),
            ]
            if await client.choose(session_id, call, options) == OMP_APPROVE_OPTION_ID:
                return AcceptElicitationResponse(action="accept", content={field: OMP_FORM_APPROVE})
            narration = emitter.open_permission(
                call=call, session_id=session_id, outcome="cancelled"
            )
            if narrate_elicitation is not None:
                await narrate_elicitation(narration)
            else:
                await narration
            return DeclineElicitationResponse(action="decline")

        return handle
