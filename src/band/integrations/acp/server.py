"""``ACPServer``: the ACP agent an editor talks to over stdio, backed by Band rooms.

The ACP SDK calls its methods by name with the request's fields as keywords, so each takes
what it reads and absorbs the rest. Methods it does not define answer ``method_not_found``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, cast

from band._extras import needs_extra
from band.runtime.agent import SDK_API_VERSION

with needs_extra("the ACP server needs agent-client-protocol", "acp"):
    from acp import (
        InitializeResponse,
        NewSessionResponse,
        PromptResponse,
        RequestError,
        run_agent,
    )
    from acp.schema import (
        AgentCapabilities,
        AuthenticateResponse,
        AuthMethodAgent,
        ForkSessionResponse,
        Implementation,
        ListSessionsResponse,
        LoadSessionResponse,
        PromptCapabilities,
        ResumeSessionResponse,
        SessionCapabilities,
        SessionCloseCapabilities,
        SessionForkCapabilities,
        SessionInfo,
        SessionListCapabilities,
        SessionResumeCapabilities,
        SetSessionModeResponse,
    )

from .types import ACPStopReason, ConcurrentPromptError

if TYPE_CHECKING:
    from .server_adapter import BandACPServerAdapter

__all__ = ["ACPServer", "run_acp_server"]

logger = logging.getLogger("band.integrations.acp.server")


class ACPServer:
    """ACP's agent side, each session a Band room through ``BandACPServerAdapter``."""

    def __init__(self, adapter: BandACPServerAdapter) -> None:
        self._adapter = adapter

    def on_connect(self, conn: Any) -> None:
        """The editor connected: updates and permission requests go to ``conn``."""
        self._adapter.set_acp_client(conn)

    async def initialize(self, *, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        sessions = SessionCapabilities(
            list=SessionListCapabilities(),
            resume=SessionResumeCapabilities(),
            fork=SessionForkCapabilities(),
            close=SessionCloseCapabilities(),
        )
        return InitializeResponse(
            protocol_version=protocol_version,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=True
                ),
                session_capabilities=sessions,
            ),
            agent_info=Implementation(
                name="band-agent",
                title=self._adapter.agent_name or "Band Agent",
                version=SDK_API_VERSION,
            ),
            auth_methods=[
                AuthMethodAgent(id="api_key", name="API Key", description="BAND_API_KEY")
            ],
        )

    async def authenticate(self, *, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        if method_id in ("api_key", "cursor_login") and await self._adapter.verify_credentials():
            return AuthenticateResponse()
        raise RequestError.auth_required({"method": method_id})

    async def new_session(
        self, *, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        session_id = await self._adapter.create_session(cwd=cwd, mcp_servers=mcp_servers)
        return NewSessionResponse(session_id=session_id)

    async def load_session(
        self, *, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        await self._reopen(session_id, cwd=cwd, mcp_servers=mcp_servers)
        return LoadSessionResponse()

    async def resume_session(
        self, *, session_id: str, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> ResumeSessionResponse:
        await self._reopen(session_id, cwd=cwd, mcp_servers=mcp_servers)
        return ResumeSessionResponse()

    async def fork_session(
        self, *, session_id: str, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> ForkSessionResponse:
        await self._require_session(session_id)
        forked = await self._adapter.create_session(cwd=cwd, mcp_servers=mcp_servers)
        return ForkSessionResponse(session_id=forked)

    async def list_sessions(self, **kwargs: Any) -> ListSessionsResponse:
        sessions = [
            SessionInfo(session_id=sid, cwd=self._adapter.get_session_cwd(sid))
            for sid in self._adapter.get_session_ids()
        ]
        return ListSessionsResponse(sessions=sessions)

    async def close_session(self, *, session_id: str, **kwargs: Any) -> None:
        room_id = self._adapter.get_room_for_session(session_id)
        if room_id is not None:
            await self._adapter.cancel_prompt(session_id)
            await self._adapter.on_cleanup(room_id)

    async def set_session_mode(
        self, *, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        self._adapter.set_session_mode(session_id, mode_id)
        return SetSessionModeResponse()

    async def set_config_option(self, **kwargs: Any) -> None:
        return None  # no session options to configure

    async def prompt(self, *, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        await self._require_session(session_id)
        try:
            outcome = await self._adapter.handle_prompt(session_id, prompt_text(prompt))
        except ConcurrentPromptError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from exc
        if isinstance(outcome, ACPStopReason):
            return PromptResponse(stop_reason=outcome.value)
        raise RequestError.internal_error({"failure": outcome.to_dict()})

    async def cancel(self, *, session_id: str, **kwargs: Any) -> None:
        await self._adapter.cancel_prompt(session_id)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        logger.debug("ACP extension notification %s ignored", method)

    async def _require_session(self, session_id: str) -> None:
        if not await self._adapter.find_session(session_id):
            raise RequestError(-32002, f"Unknown ACP session: {session_id}")

    async def _reopen(self, session_id: str, *, cwd: str, mcp_servers: list[Any] | None) -> None:
        """Load and resume alike: a known session takes the editor's ``cwd`` and MCP servers."""
        await self._require_session(session_id)
        self._adapter.update_session_context(session_id, cwd=cwd, mcp_servers=mcp_servers)


def prompt_text(blocks: list[Any]) -> str:
    """The prompt as text: text blocks as they are, resources as labels (with their text)."""
    parts: list[str] = []
    for block in blocks:
        item = block.model_dump() if hasattr(block, "model_dump") else dict(block)
        kind = item.get("type") or "text"
        if kind == "text" and item.get("text"):
            parts.append(str(item["text"]))
        elif kind == "resource_link":
            parts.append(f"[Resource: {item.get('title') or item.get('name') or item.get('uri')}]")
        elif kind == "resource":
            resource = item.get("resource") or {}
            label = f"[Resource: {resource.get('uri')}]"
            parts.append(f"{label}\n{resource['text']}" if resource.get("text") else label)
        elif kind == "image":
            parts.append("[Image]")
    return "\n".join(parts)


async def run_acp_server(
    server: ACPServer,
    input_stream: Any = None,
    output_stream: Any = None,
    **connection_kwargs: Any,
) -> None:
    """Serve ``server`` over stdio (or the given streams) until the editor disconnects.

    Unstable ACP methods (session fork, resume, close) are on.
    """
    if "use_unstable_protocol" in connection_kwargs:
        raise TypeError("run_acp_server always runs with use_unstable_protocol=True")
    await run_agent(
        cast(Any, server),
        input_stream,
        output_stream,
        use_unstable_protocol=True,
        **connection_kwargs,
    )
