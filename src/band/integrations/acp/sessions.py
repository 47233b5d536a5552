"""Session operations on a connected ACP agent: create, load (restore), configure, prompt,
cancel and close, each on the connection its lifecycle owner (``ACPRuntime``) holds.

``restore_session_response`` loads exactly one session and raises
:class:`ACPSessionRestoreError` when it cannot (the agent does not advertise
``loadSession``, refuses, or does not answer within ``ACP_SESSION_LOAD_TIMEOUT_SECONDS``);
``load_session_response`` turns that into None, so its caller starts a new session (and
replays the room). Every answer carrying a config catalog records it on the client. A
``ConnectionError`` under any request marks the connection as failed (a crash, not a stop).
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable
from typing import Any, TypeVar

from band.integrations.acp._sdk import require_acp
from band.integrations.acp.collecting import ACPCollectingClient
from band.integrations.acp.permissions import ElicitationHandler, PermissionHandler
from band.integrations.acp.session_config import SessionConfigOption, session_config_options
from band.integrations.acp.stream import ChunkSink
from band.integrations.acp.transport import ACPConnectionProtocol
from band.integrations.acp.types import CollectedChunk
from band.integrations.mcp.backends import BandMCPTransport

_acp = require_acp()

__all__ = [
    "ACP_SESSION_CANCEL_TIMEOUT_SECONDS",
    "ACP_SESSION_LOAD_TIMEOUT_SECONDS",
    "ACPSessionOperations",
    "ACPSessionRestoreError",
]

logger = logging.getLogger(__name__)
ACP_SESSION_LOAD_TIMEOUT_SECONDS = 5.0
# session/cancel is a notification: only an agent that stopped reading can hold it up.
ACP_SESSION_CANCEL_TIMEOUT_SECONDS = 5.0
# JSON-RPC code agents answer a load of an unknown session with.
SESSION_NOT_FOUND_CODE = -32002
Answer = TypeVar("Answer")


class ACPSessionRestoreError(RuntimeError):
    """The session could not be restored (the cause, if any, says why); it is not erased."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"ACP session {session_id} could not be restored: {reason}")
        self.session_id = session_id


class ACPSessionOperations(ABC):
    """Session calls over ``ensure_connection()``; the agent's capabilities are read by
    the subclass at ``initialize`` into ``_agent_*``."""

    def __init__(self) -> None:
        self._client: ACPCollectingClient | None = None
        self._connection_failed = False
        self._agent_mcp_transport = BandMCPTransport.HTTP
        self._agent_supports_session_load = False
        self._agent_supports_session_close = False
        self._config_lock = asyncio.Lock()

    @abstractmethod
    async def ensure_connection(self) -> ACPConnectionProtocol:
        """The open connection (RuntimeError when there is none)."""

    async def create_session(self, *, cwd: str, mcp_servers: list[object]) -> str:
        return str(
            (await self.create_session_response(cwd=cwd, mcp_servers=mcp_servers)).session_id
        )

    async def create_session_response(self, *, cwd: str, mcp_servers: list[object]) -> Any:
        conn = await self.ensure_connection()
        answer = await self._request(conn.new_session(cwd=cwd, mcp_servers=mcp_servers))
        self._record_config_options(str(answer.session_id), answer)
        return answer

    async def load_session(self, *, cwd: str, session_id: str, mcp_servers: list[object]) -> bool:
        answer = await self.load_session_response(
            cwd=cwd, session_id=session_id, mcp_servers=mcp_servers
        )
        return answer is not None

    async def load_session_response(
        self, *, cwd: str, session_id: str, mcp_servers: list[object]
    ) -> Any | None:
        """The loaded session's answer, or None (any failure) so a new session is started."""
        try:
            return await self.restore_session_response(
                cwd=cwd, session_id=session_id, mcp_servers=mcp_servers
            )
        except ACPSessionRestoreError as error:
            cause = error.__cause__
            if isinstance(cause, _acp.RequestError) and self._is_missing_session_error(cause):
                logger.info("ACP session %s no longer exists", session_id)
            elif cause is not None:
                logger.warning("%s; starting a new session", error)
            return None

    async def restore_session_response(
        self, *, cwd: str, session_id: str, mcp_servers: list[object]
    ) -> Any:
        """Load exactly ``session_id``; ACPSessionRestoreError when that is not possible."""
        if not self._agent_supports_session_load:
            raise ACPSessionRestoreError(session_id, "the agent does not offer loadSession")
        conn = await self.ensure_connection()
        load = conn.load_session(cwd=cwd, session_id=session_id, mcp_servers=mcp_servers)
        try:
            async with asyncio.timeout(ACP_SESSION_LOAD_TIMEOUT_SECONDS):
                answer = await self._request(load)
        except TimeoutError as error:
            limit = ACP_SESSION_LOAD_TIMEOUT_SECONDS
            raise ACPSessionRestoreError(session_id, f"no answer within {limit} s") from error
        except _acp.RequestError as error:
            raise ACPSessionRestoreError(session_id, str(error)) from error
        self._record_config_options(session_id, answer)
        return answer

    async def set_config_option(self, *, session_id: str, config_id: str, value: str) -> Any:
        """``session/set_config_option``; the answer (its catalog is recorded)."""
        conn = await self.ensure_connection()
        answer = await self._request(
            conn.set_config_option(session_id=session_id, config_id=config_id, value=value)
        )
        self._record_config_options(session_id, answer)
        return answer

    def config_options(self, session_id: str) -> tuple[SessionConfigOption, ...]:
        """The session's catalog as last answered or pushed."""
        return self._client.config_options(session_id) if self._client is not None else ()

    @property
    def config_lock(self) -> asyncio.Lock:
        """Held while a room's model switch runs."""
        return self._config_lock

    def _record_config_options(self, session_id: str, answer: object) -> None:
        options = session_config_options(answer)
        if options is not None and self._client is not None:
            self._client.record_config_options(session_id, options)

    async def close_session(self, session_id: str) -> None:
        """Forget the session here; close it on the agent when it offers ``session/close``."""
        if self._client is not None:
            self._client.forget_session(session_id)
        if self._agent_supports_session_close:
            conn = await self.ensure_connection()
            await self._request(conn.close_session(session_id))

    async def prompt(
        self, *, session_id: str, prompt_text: str, on_chunk: ChunkSink | None = None
    ) -> list[CollectedChunk]:
        """Send one text prompt; ``on_chunk`` sees the turn's chunks live. The chunks after."""
        answer = await self.prompt_blocks(
            session_id=session_id, blocks=[_acp.text_block(prompt_text)], on_chunk=on_chunk
        )
        del answer
        return self.get_collected_chunks(session_id)

    async def prompt_blocks(
        self, *, session_id: str, blocks: list[object], on_chunk: ChunkSink | None = None
    ) -> Any:
        """Send a prompt of content ``blocks``; the agent's answer (stop reason, usage)."""
        conn = await self.ensure_connection()
        client = self._client
        if on_chunk is not None and client is not None:
            client.set_sink(session_id, on_chunk)
        try:
            answer = await self._request(conn.prompt(session_id=session_id, prompt=blocks))
            if client is not None:
                await client.flush(session_id)
        finally:
            if client is not None:
                client.set_sink(session_id, None)
        return answer

    async def cancel_turn(self, session_id: str) -> None:
        """``session/cancel`` the session's running prompt (bounded)."""
        conn = await self.ensure_connection()
        async with asyncio.timeout(ACP_SESSION_CANCEL_TIMEOUT_SECONDS):
            await self._request(conn.cancel(session_id))

    async def _request(self, request: Awaitable[Answer]) -> Answer:
        try:
            return await request
        except ConnectionError:
            self._connection_failed = True
            raise

    def reset_session(self, session_id: str) -> None:
        if self._client is not None:
            self._client.reset_session(session_id)

    def set_permission_handler(self, session_id: str, handler: PermissionHandler | None) -> None:
        if self._client is not None:
            self._client.set_permission_handler(session_id, handler)

    def set_elicitation_handler(self, session_id: str, handler: ElicitationHandler | None) -> None:
        if self._client is not None:
            self._client.set_elicitation_handler(session_id, handler)

    def get_collected_chunks(self, session_id: str) -> list[CollectedChunk]:
        return self._client.get_collected_chunks(session_id) if self._client is not None else []

    @property
    def client(self) -> ACPCollectingClient | None:
        """The client of the open connection."""
        return self._client

    @property
    def agent_mcp_transport(self) -> BandMCPTransport:
        """The MCP transport the agent said it speaks (HTTP unless only SSE)."""
        return self._agent_mcp_transport

    @property
    def supports_session_load(self) -> bool:
        """The agent advertised ``loadSession`` at ``initialize``."""
        return self._agent_supports_session_load

    @staticmethod
    def _is_missing_session_error(error: Any) -> bool:
        text = str(error).lower()
        return bool(
            error.code == SESSION_NOT_FOUND_CODE or ("session" in text and "not found" in text)
        )
